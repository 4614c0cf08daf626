package io.streamplane.controller.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** When a pod must leave a node with NoExecute taints, as a pure function. */
class TaintEvictionTest {

  private static final Instant ADDED = Instant.parse("2026-11-22T10:00:00Z");
  private static final Taint UNREACHABLE =
      Taint.newBuilder()
          .setKey(TaintEviction.UNREACHABLE)
          .setEffect("NoExecute")
          .setTimeAdded(ADDED)
          .build();
  private static final Taint DEDICATED =
      Taint.newBuilder().setKey("dedicated").setValue("db").setEffect("NoExecute").build();

  @Test
  void aPodWithoutTolerationsGetsTheDefaultSecondsForUnreachableButNotForOtherTaints() {
    Pod pod = pod();

    assertThat(evictAt(pod, UNREACHABLE)).contains(ADDED.plusSeconds(300));
    assertThat(evictAt(pod, DEDICATED)).contains(Instant.MIN);
  }

  @Test
  void theDefaultIsNotAddedWhenAnyTolerationOfTheKeyOrOfEveryKeyCoversNoExecute() {
    assertThat(
            TaintEviction.withDefaults(
                pod(toleration(TaintEviction.UNREACHABLE, "Exists", null, 5L)), 300))
        .filteredOn(t -> TaintEviction.UNREACHABLE.equals(t.getKey()))
        .singleElement()
        .extracting(Toleration::getTolerationSeconds)
        .isEqualTo(5L);
    assertThat(TaintEviction.withDefaults(pod(toleration(null, "Exists", "NoExecute", null)), 300))
        .hasSize(1);
    assertThat(
            TaintEviction.withDefaults(
                pod(toleration(TaintEviction.UNREACHABLE, "Exists", "NoSchedule", null)), 300))
        .as("a NoSchedule-only toleration does not count")
        .hasSize(3);
  }

  @Test
  void theEarliestTaintDeadlineWinsAndZeroSecondsMeansAtOnce() {
    Pod pod =
        pod(
            toleration(TaintEviction.UNREACHABLE, "Exists", "NoExecute", 600L),
            toleration("dedicated", "Equal", "NoExecute", 0L));

    assertThat(evictAt(pod, UNREACHABLE)).contains(ADDED.plusSeconds(600));
    assertThat(evictAt(pod, UNREACHABLE, DEDICATED)).contains(ADDED);
  }

  @Test
  void theFirstMatchingTolerationDecidesAsInKubernetes() {
    Pod pod =
        pod(
            toleration(TaintEviction.UNREACHABLE, "Exists", "NoExecute", null),
            toleration(TaintEviction.UNREACHABLE, "Exists", "NoExecute", 10L));

    assertThat(evictAt(pod, UNREACHABLE)).isEmpty();
  }

  private static Optional<Instant> evictAt(Pod pod, Taint... taints) {
    return TaintEviction.evictAt(pod, List.of(taints), t -> ADDED, 300);
  }

  private static Pod pod(Toleration... tolerations) {
    return Pod.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName("p").setNamespace("default").build())
        .setSpec(PodSpec.newBuilder().setTolerations(List.of(tolerations)).build())
        .build();
  }

  private static Toleration toleration(String key, String operator, String effect, Long seconds) {
    return Toleration.newBuilder()
        .setKey(key)
        .setOperator(operator)
        .setValue("Equal".equals(operator) ? "db" : null)
        .setEffect(effect)
        .setTolerationSeconds(seconds)
        .build();
  }
}
