package io.streamplane.scheduler.binder;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.log.NodeLedger;
import io.streamplane.log.PlacedPod;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BinderTest {

  @Test
  void aLedgerSumsRequestsAndNonZeroRequestsAndReadsEntriesWrittenBeforeTheNonZeroKeys() {
    PodRequests bestEffort =
        new PodRequests(new Resources(0, 0, 0, 1), new Resources(100, 200L << 20, 0, 1));
    Resources old = new Resources(500, 1L << 30, 0, 1); // a ledger entry from before the change
    NodeLedger ledger =
        NodeLedger.newBuilder()
            .setPods(
                Map.of(
                    "pods//default/a", bestEffort.toMap(),
                    "pods//default/b", bestEffort.toMap(),
                    "pods//default/c", old.toMap()))
            .build();

    PodRequests allocated = Binder.allocated(ledger);

    assertThat(allocated.requests()).isEqualTo(new Resources(500, 1L << 30, 0, 3));
    assertThat(allocated.nonZeroRequests())
        .isEqualTo(new Resources(700, (400L << 20) + (1L << 30), 0, 3));
  }

  @Test
  void aPlacedPodCarriesWhatPreemptionReads() {
    Instant created = Instant.parse("2026-01-01T00:00:00Z");
    Pod pod =
        Pod.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("web-1")
                    .setNamespace("shop")
                    .setUid("u1")
                    .setLabels(Map.of("app", "web"))
                    .setCreationTimestamp(created)
                    .build())
            .setSpec(PodSpec.newBuilder().setPriority(100).build())
            .build();
    Map<String, Long> requests = Map.of("cpu", 500L);

    PlacedPod placed = Binder.placed("pods//shop/web-1", pod, requests);

    assertThat(placed.getPriority()).isEqualTo(100);
    assertThat(placed.getLabels()).containsEntry("app", "web");
    assertThat(placed.getStartTime()).as("no startTime: created").isEqualTo(created.toEpochMilli());
    assertThat(placed.getTerminating()).isFalse();
    assertThat(placed.getRequests()).isEqualTo(requests);

    pod.setStatus(PodStatus.newBuilder().setStartTime(created.plusSeconds(5)).build());
    pod.getMetadata().setDeletionTimestamp(created.plusSeconds(9));
    pod.getSpec().setPriority(null);
    placed = Binder.placed("pods//shop/web-1", pod, requests);
    assertThat(placed.getStartTime()).isEqualTo(created.plusSeconds(5).toEpochMilli());
    assertThat(placed.getTerminating()).isTrue();
    assertThat(placed.getPriority()).as("no priority: 0").isZero();
  }
}
