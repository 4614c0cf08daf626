package io.streamplane.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.metrics.PrometheusText;
import io.streamplane.bench.recovery.LagTimeline.Key;
import io.streamplane.bench.recovery.LagTimeline.View;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LagTimelineTest {

  private static final long S = 1_000_000_000L;

  @Test
  void reportedLagsTakeTheLargerWhereTwoProcessesReportOnePartition() {
    var a =
        PrometheusText.parse(
            """
            # TYPE streamplane_kafka_consumer_lag gauge
            streamplane_kafka_consumer_lag{application="sp-store",topic="sp.commands",partition="0"} 3.0
            streamplane_kafka_consumer_lag{application="sp-store",topic="sp.commands",partition="1"} 0.0
            process_cpu_seconds_total 12.0
            """);
    var b =
        PrometheusText.parse(
            """
            streamplane_kafka_consumer_lag{application="sp-store",topic="sp.commands",partition="0"} 7.0
            streamplane_kafka_consumer_lag{application="sp-binder",topic="sp.bind-requests",partition="2"} 1.0
            """);

    Map<Key, Double> lags = LagTimeline.reported(List.of(a, b));

    assertThat(lags)
        .containsOnly(
            Map.entry(new Key("sp-store", "sp.commands", 0), 7.0),
            Map.entry(new Key("sp-store", "sp.commands", 1), 0.0),
            Map.entry(new Key("sp-binder", "sp.bind-requests", 2), 1.0));
    assertThat(LagTimeline.applications(b)).containsExactly("sp-binder", "sp-store");
  }

  @Test
  void perAppSumsThePartitionsOfEachRoundAndShowsAnAbsentAppAsZero() {
    LagTimeline t = new LagTimeline();
    t.add(10 * S, View.REPORTED, Map.of(key("store", 0), 4.0, key("store", 1), 6.0));
    t.add(11 * S, View.REPORTED, Map.of(key("binder", 0), 2.0));
    t.add(11 * S, View.COMMITTED, Map.of(key("store", 0), 100.0));

    List<TimeSeries> series = t.perApp(View.REPORTED, 10 * S);

    assertThat(series).extracting(TimeSeries::name).containsExactly("binder", "store");
    assertThat(series.get(1).points())
        .containsExactly(new TimeSeries.Point(0, 10), new TimeSeries.Point(1, 0));
    assertThat(series.get(0).points())
        .containsExactly(new TimeSeries.Point(0, 0), new TimeSeries.Point(1, 2));
  }

  @Test
  void laggingCountsEachLaggingRoundUntilTheNextAndSortsTheLongestStretchFirst() {
    LagTimeline t = new LagTimeline();
    t.add(0, View.COMMITTED, Map.of(key("store", 0), 9.0, key("binder", 1), 0.0));
    t.add(2 * S, View.COMMITTED, Map.of(key("store", 0), 5.0, key("binder", 1), 3.0));
    t.add(4 * S, View.COMMITTED, Map.of(key("store", 0), 0.0, key("binder", 1), 3.0));
    t.add(6 * S, View.COMMITTED, Map.of(key("store", 0), 2.0, key("binder", 1), 1.0));
    t.add(8 * S, View.COMMITTED, Map.of(key("store", 0), 0.0, key("binder", 1), 0.0));
    t.add(3 * S, View.REPORTED, Map.of(key("store", 0), 50.0));

    List<LagTimeline.Lagging> lagging = t.lagging(View.COMMITTED, 0);

    assertThat(lagging)
        .containsExactly(
            new LagTimeline.Lagging("binder", "t", 1, 3, 6, 6, 6),
            new LagTimeline.Lagging("store", "t", 0, 9, 6, 4, 6));
    assertThat(t.lagging(View.COMMITTED, 5 * S))
        .containsExactlyInAnyOrder(
            new LagTimeline.Lagging("binder", "t", 1, 1, 2, 2, 1),
            new LagTimeline.Lagging("store", "t", 0, 2, 2, 2, 1));
  }

  @Test
  void aWindowLeavesOutTheRoundsAfterItsEnd() {
    LagTimeline t = new LagTimeline();
    t.add(0, View.UNSTABLE, Map.of(key("log", 0), 2.0));
    t.add(2 * S, View.UNSTABLE, Map.of(key("log", 0), 2.0));
    t.add(4 * S, View.UNSTABLE, Map.of(key("log", 0), 9.0));

    List<LagTimeline.Lagging> lagging = t.lagging(View.UNSTABLE, 0, 3 * S);

    assertThat(lagging).containsExactly(new LagTimeline.Lagging("log", "t", 0, 2, 2, 2, 2));
    assertThat(lagging.get(0).describe())
        .isEqualTo("`t-0` 2.0 s in a row (2.0 s in all), last at 2.0 s, peak 2");
  }

  @Test
  void appsSaysWhenEachApplicationLastLaggedAndNaNForOneThatNeverDid() {
    LagTimeline t = new LagTimeline();
    t.add(
        1 * S,
        View.COMMITTED,
        Map.of(key("store", 0), 2.0, key("store", 1), 3.0, key("nodes", 0), 0.0));
    t.add(4 * S, View.COMMITTED, Map.of(key("store", 0), 1.0, key("nodes", 0), 0.0));
    t.add(9 * S, View.COMMITTED, Map.of(key("store", 0), 0.0, key("nodes", 0), 0.0));

    List<LagTimeline.AppLag> apps = t.apps(View.COMMITTED, 0);

    assertThat(apps).hasSize(2);
    assertThat(apps.get(0)).isEqualTo(new LagTimeline.AppLag("store", 5, 4));
    assertThat(apps.get(1).app()).isEqualTo("nodes");
    assertThat(apps.get(1).lastLaggingSeconds()).isNaN();
  }

  private static Key key(String app, int partition) {
    return new Key(app, "t", partition);
  }
}
