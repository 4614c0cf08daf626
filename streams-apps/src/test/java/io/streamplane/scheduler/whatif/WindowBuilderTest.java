package io.streamplane.scheduler.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.scheduler.framework.SchedulerConfig;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowBuilderTest {

  @Test
  void aPodPendingAtTheStartAndBoundInTheWindowIsScheduledFromItsPendingVersion() {
    EventLog log = new EventLog().node("a", "4", "8Gi").pending("web", "1", "1Gi");
    Instant from = log.now().minusSeconds(1);
    log.bind("web", "a");

    WhatIfWindow window = log.window(from, log.now());

    assertThat(window.nodes()).hasSize(1);
    assertThat(window.boundPods()).isEmpty();
    assertThat(window.changes())
        .singleElement()
        .isInstanceOfSatisfying(
            LogChange.PodBound.class,
            bound -> {
              assertThat(bound.podKey()).isEqualTo("pods./default/web");
              assertThat(bound.node()).isEqualTo("a");
              assertThat(bound.scheduled()).isTrue();
              assertThat(bound.pod().getSpec().getNodeName()).isNull();
            });
  }

  @Test
  void nodesComeAndGoAndFinishedPodsAreReleasedOnce() {
    EventLog log =
        new EventLog()
            .node("a", "4", "8Gi")
            .pending("job", "1", "1Gi")
            .bind("job", "a")
            .succeed("job")
            .delete("job")
            .removeNode("a");

    WhatIfWindow window = log.all();

    assertThat(window.changes())
        .extracting(c -> c.getClass().getSimpleName())
        .containsExactly("NodeSet", "PodBound", "PodReleased", "NodeRemoved");
    WhatIfResult result = WhatIfSimulation.run(window, SchedulerConfig.defaults());
    assertThat(result.nodes()).isEmpty();
    assertThat(result.placements()).singleElement().extracting(p -> p.whatIfNode()).isEqualTo("a");
  }

  @Test
  void theWhatIfNeverPlacesAPodOnANodeRemovedBeforeIt() {
    EventLog log =
        new EventLog()
            .node("a", "4", "8Gi")
            .node("b", "4", "8Gi")
            .removeNode("a")
            .pending("web", "1", "1Gi")
            .bind("web", "b");

    WhatIfResult result = WhatIfSimulation.run(log.all(), SchedulerConfig.defaults());

    assertThat(result.placements()).singleElement().extracting(p -> p.whatIfNode()).isEqualTo("b");
  }

  @Test
  void eventsOutOfTimestampOrderAreRefused() {
    WindowBuilder builder =
        new WindowBuilder(
            Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-02T00:00:00Z"));
    ResourceEvent event =
        ResourceEvent.newBuilder()
            .setType(EventType.DELETED)
            .setResource("nodes")
            .setName("a")
            .setResourceVersion(1)
            .setCommandId("c")
            .setActor(UserInfo.newBuilder().setUsername("u").setGroups(List.of()).build())
            .build();
    builder.add(2_000, event);

    assertThatThrownBy(() -> builder.add(1_000, event)).hasMessageContaining("out of order");
    assertThatThrownBy(
            () -> new WindowBuilder(Instant.parse("2026-01-02T00:00:00Z"), Instant.EPOCH))
        .hasMessageContaining("ends");
  }
}
