package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.container;
import static io.streamplane.scheduler.framework.Fixtures.pod;
import static io.streamplane.scheduler.framework.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodRequestsTest {

  @Test
  void containersAddUpAndInitContainersRaiseEachResourceToTheirMaximumPlusOverhead() {
    PodSpec spec =
        spec(container("500m", "256Mi"), container("250m", "256Mi"))
            .setInitContainers(List.of(container("1", "64Mi"), container("100m", "1Gi")))
            .setOverhead(Map.of("cpu", "100m", "memory", "32Mi"))
            .build();

    Resources r = PodRequests.of(pod(spec)).requests();

    // cpu: max(750m, 1, 100m) + 100m; memory: max(512Mi, 64Mi, 1Gi) + 32Mi.
    assertThat(r).isEqualTo(new Resources(1100, (1024L + 32) << 20, 0, 1));
  }

  @Test
  void limitsStandInForMissingRequestsAsAdmissionDefaultsThem() {
    Container limitedOnly =
        Container.newBuilder()
            .setName("c")
            .setResources(
                ResourceRequirements.newBuilder()
                    .setLimits(Map.of("cpu", "2", "memory", "1Gi", "ephemeral-storage", "1G"))
                    .setRequests(Map.of("cpu", "500m"))
                    .build())
            .build();

    Resources r = PodRequests.of(pod(spec(limitedOnly).build())).requests();

    assertThat(r).isEqualTo(new Resources(500, 1L << 30, 1_000_000_000L, 1));
  }

  @Test
  void nonZeroRequestsDefaultMissingCpuAndMemoryPerContainer() {
    Pod pod = pod(spec(container(null, null), container("0", "1Gi")).build());

    PodRequests requests = PodRequests.of(pod);

    assertThat(requests.requests()).isEqualTo(new Resources(0, 1L << 30, 0, 1));
    // Only the missing requests take the defaults: an explicit "0" stays 0.
    assertThat(requests.nonZeroRequests())
        .isEqualTo(new Resources(100, (200L << 20) + (1L << 30), 0, 1));
  }

  @Test
  void aPodWithoutSpecOrContainersStillCountsAsOnePod() {
    assertThat(PodRequests.of(Pod.newBuilder().build()).requests())
        .isEqualTo(new Resources(0, 0, 0, 1));
    assertThat(PodRequests.of(pod(PodSpec.newBuilder().build())).requests())
        .isEqualTo(new Resources(0, 0, 0, 1));
  }

  @Test
  void aMapCarriesBothSumsAndReadersOfTheRequestsAloneIgnoreTheNonZeroKeys() {
    PodRequests bestEffort = PodRequests.of(pod(spec(container(null, null)).build()));

    Map<String, Long> map = bestEffort.toMap();

    assertThat(map)
        .containsExactly(
            Map.entry("cpu", 0L),
            Map.entry("memory", 0L),
            Map.entry("ephemeral-storage", 0L),
            Map.entry("pods", 1L),
            Map.entry("non-zero:cpu", 100L),
            Map.entry("non-zero:memory", 200L << 20));
    assertThat(PodRequests.fromMap(map)).isEqualTo(bestEffort);
    assertThat(Resources.fromMap(map)).isEqualTo(new Resources(0, 0, 0, 1));
  }

  @Test
  void aMapWrittenBeforeTheNonZeroKeysReadsAsNonZeroEqualToRequests() {
    Resources requests = new Resources(250, 64L << 20, 0, 1);

    assertThat(PodRequests.fromMap(requests.toMap()))
        .isEqualTo(new PodRequests(requests, requests));
  }

  @Test
  void sumsAddBothPairs() {
    PodRequests bestEffort = PodRequests.of(pod(spec(container(null, null)).build()));
    PodRequests small = PodRequests.of(pod("250m", "64Mi"));

    PodRequests sum = PodRequests.NONE.plus(bestEffort).plus(small);

    assertThat(sum.requests()).isEqualTo(new Resources(250, 64L << 20, 0, 2));
    assertThat(sum.nonZeroRequests()).isEqualTo(new Resources(350, (200L + 64) << 20, 0, 2));
  }
}
