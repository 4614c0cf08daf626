package io.streamplane.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecoveryBenchmarkTest {

  @Test
  void everyRunOfUpComesBeforeTheMultiProcessClusterStarts() {
    assertThat(
            RecoveryBenchmark.order(
                List.of("gateway", "up", "store", "up-none"), List.of(200, 1000)))
        .containsExactly(
            Map.entry("up", 200),
            Map.entry("up-none", 200),
            Map.entry("up", 1000),
            Map.entry("up-none", 1000),
            Map.entry("gateway", 200),
            Map.entry("store", 200),
            Map.entry("gateway", 1000),
            Map.entry("store", 1000));
  }
}
