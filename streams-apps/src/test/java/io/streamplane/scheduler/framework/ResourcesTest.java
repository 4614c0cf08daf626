package io.streamplane.scheduler.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourcesTest {

  @Test
  void mapRoundTripUsesKubernetesNamesWithCpuInMilliUnits() {
    Resources r = new Resources(1500, 2048, 4096, 3);

    assertThat(r.toMap())
        .containsExactly(
            Map.entry("cpu", 1500L),
            Map.entry("memory", 2048L),
            Map.entry("ephemeral-storage", 4096L),
            Map.entry("pods", 3L));
    assertThat(Resources.fromMap(r.toMap())).isEqualTo(r);
    assertThat(Resources.fromMap(Map.of("cpu", 5L))).isEqualTo(new Resources(5, 0, 0, 0));
  }

  @Test
  void fromMapIgnoresTheNonZeroSumsThatShareItsMaps() {
    Map<String, Long> map = new java.util.HashMap<>(new Resources(0, 0, 0, 2).toMap());
    map.put(Resources.NON_ZERO_CPU, 200L);
    map.put(Resources.NON_ZERO_MEMORY, 400L << 20);

    assertThat(Resources.fromMap(map)).isEqualTo(new Resources(0, 0, 0, 2));
  }

  @Test
  void fromMapRejectsUnknownResources() {
    assertThatThrownBy(() -> Resources.fromMap(Map.of("nvidia.com/gpu", 1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nvidia.com/gpu");
  }

  @Test
  void plusAndMinusArePerDimensionAndSaturate() {
    Resources a = new Resources(100, 200, 300, 1);
    Resources b = new Resources(10, 20, 30, 1);

    assertThat(a.plus(b)).isEqualTo(new Resources(110, 220, 330, 2));
    assertThat(a.minus(b)).isEqualTo(new Resources(90, 180, 270, 0));
    assertThat(new Resources(Long.MAX_VALUE, 0, 0, 0).plus(a).milliCpu()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void insufficiencyListsEveryShortResourceButNeverAZeroRequest() {
    Resources available = new Resources(500, 1000, 0, 0);

    assertThat(new Resources(600, 2000, 1, 1).insufficientIn(available))
        .containsExactly("pods", "cpu", "memory", "ephemeral-storage");
    assertThat(new Resources(500, 1000, 0, 0).fitsIn(available)).isTrue();
    // A request of zero fits even where nothing is left, as in Kubernetes' fitsRequest.
    assertThat(new Resources(0, 0, 0, 0).fitsIn(new Resources(-5, -5, -5, 0))).isTrue();
  }

  @Test
  void allocatableFallsBackToCapacityOnlyWhenAbsent() {
    Node onlyCapacity =
        Node.newBuilder()
            .setStatus(
                NodeStatus.newBuilder()
                    .setCapacity(Map.of("cpu", "4", "memory", "8Gi", "pods", "110"))
                    .build())
            .build();
    Node both =
        Node.newBuilder()
            .setStatus(
                NodeStatus.newBuilder()
                    .setCapacity(Map.of("cpu", "4", "memory", "8Gi", "pods", "110"))
                    .setAllocatable(
                        Map.of("cpu", "3500m", "memory", "7Gi", "ephemeral-storage", "10Gi"))
                    .build())
            .build();

    assertThat(Resources.allocatableOf(onlyCapacity))
        .isEqualTo(new Resources(4000, 8L << 30, 0, 110));
    // No "pods" in allocatable: the node admits no pod, as in kube-scheduler.
    assertThat(Resources.allocatableOf(both))
        .isEqualTo(new Resources(3500, 7L << 30, 10L << 30, 0));
    assertThat(Resources.allocatableOf(Node.newBuilder().build())).isEqualTo(Resources.ZERO);
  }
}
