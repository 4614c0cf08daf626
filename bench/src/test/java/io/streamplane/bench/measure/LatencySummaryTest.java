package io.streamplane.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {

  @Test
  void percentilesAreNearestRankValuesOfTheSortedSet() {
    List<Integer> values = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      values.add(i);
    }
    Collections.shuffle(values);

    LatencySummary s = LatencySummary.of(values);

    assertThat(s.count()).isEqualTo(100);
    assertThat(s.min()).isEqualTo(1);
    assertThat(s.p50()).isEqualTo(50);
    assertThat(s.p90()).isEqualTo(90);
    assertThat(s.p99()).isEqualTo(99);
    assertThat(s.max()).isEqualTo(100);
    assertThat(s.mean()).isEqualTo(50.5);
  }

  @Test
  void aSmallSetRoundsTheRankUp() {
    double[] sorted = {10, 20, 30};

    assertThat(LatencySummary.percentile(sorted, 50)).isEqualTo(20);
    assertThat(LatencySummary.percentile(sorted, 90)).isEqualTo(30);
    assertThat(LatencySummary.percentile(sorted, 34)).isEqualTo(20);
    assertThat(LatencySummary.percentile(sorted, 33)).isEqualTo(10);
    assertThat(LatencySummary.percentile(sorted, 0)).isEqualTo(10);
  }

  @Test
  void oneValueIsEveryPercentile() {
    LatencySummary s = LatencySummary.of(new double[] {7.5});

    assertThat(List.of(s.min(), s.p50(), s.p90(), s.p99(), s.max())).containsOnly(7.5);
  }

  @Test
  void anEmptySetHasNoStatistics() {
    LatencySummary s = LatencySummary.of(new double[0]);

    assertThat(s.count()).isZero();
    assertThat(s.p99()).isNaN();
  }
}
