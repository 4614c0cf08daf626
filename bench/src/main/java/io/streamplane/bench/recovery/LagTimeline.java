package io.streamplane.bench.recovery;

import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.metrics.PrometheusText.Sample;
import io.streamplane.bench.metrics.Scrape;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How far behind each Kafka application of the cluster was, round after round of sampling, in three
 * views that together explain a stall:
 *
 * <ul>
 *   <li>{@link View#REPORTED}: what the processes report at {@code /metrics} ({@code
 *       streamplane_kafka_consumer_lag}, their consumers' {@code records-lag}). A partition whose
 *       task is not fetching — restoring, or waiting for its committed offsets — is not reported.
 *   <li>{@link View#COMMITTED}: from the broker, the application's group's committed offset against
 *       the partition's last stable offset: records it has not yet processed and committed, whether
 *       or not it fetches them.
 *   <li>{@link View#UNSTABLE}: from the broker, records between the partition's last stable offset
 *       and its end: records behind a transaction still open. A transaction a killed producer left
 *       open holds every read_committed reader of the partition until it is aborted.
 * </ul>
 *
 * Times are nanoseconds on the run's clock; what is asked for is answered in seconds after a given
 * origin. Thread-safe.
 */
public final class LagTimeline {

  /** Where a lag comes from; see the class comment. */
  public enum View {
    REPORTED,
    COMMITTED,
    UNSTABLE
  }

  /**
   * A partition of a topic as read by one application ({@code "log"} for {@link View#UNSTABLE}).
   */
  public record Key(String app, String topic, int partition) {}

  /**
   * How one partition lagged after an origin: its peak, the seconds it spent lagging in all, the
   * longest of those stretches without a round at 0 (a partition held up rather than busy), and its
   * last lagging round.
   */
  public record Lagging(
      String app,
      String topic,
      int partition,
      double peak,
      double laggingSeconds,
      double longestStretchSeconds,
      double lastLaggingSeconds) {

    /** As the reports write it; the application left out for {@link View#UNSTABLE}. */
    public String describe() {
      return String.format(
          Locale.ROOT,
          "%s`%s-%d` %.1f s in a row (%.1f s in all), last at %.1f s, peak %,.0f",
          app.equals(LOG) ? "" : "`" + app + "` ",
          topic,
          partition,
          longestStretchSeconds,
          laggingSeconds,
          lastLaggingSeconds,
          peak);
    }
  }

  /** The application of {@link View#UNSTABLE} keys: the log itself. */
  public static final String LOG = "log";

  /** How one application lagged after an origin, over all its partitions. */
  public record AppLag(String app, double peak, double lastLaggingSeconds) {}

  private record Round(long nanos, View view, Map<Key, Double> lags) {}

  static final String LAG_METRIC = "streamplane_kafka_consumer_lag";

  private final List<Round> rounds = new ArrayList<>();

  /** Records one sampling of {@code view}: every partition's lag at {@code nanos}. */
  public synchronized void add(long nanos, View view, Map<Key, Double> lags) {
    rounds.add(new Round(nanos, view, Map.copyOf(lags)));
  }

  /**
   * The {@link View#REPORTED} lags of one round of scrapes (of every process that answered): the
   * larger where two processes report the same partition of an application, as during a rebalance.
   */
  public static Map<Key, Double> reported(List<Scrape> scrapes) {
    Map<Key, Double> lags = new HashMap<>();
    for (Scrape scrape : scrapes) {
      for (Sample s : scrape.samples()) {
        if (!s.name().equals(LAG_METRIC) || Double.isNaN(s.value())) {
          continue;
        }
        String app = s.labels().get("application");
        String topic = s.labels().get("topic");
        String partition = s.labels().get("partition");
        if (app == null || topic == null || partition == null) {
          continue;
        }
        try {
          lags.merge(new Key(app, topic, Integer.parseInt(partition)), s.value(), Math::max);
        } catch (NumberFormatException e) {
          // Not a partition number: not a sample of this metric as the processes write it.
        }
      }
    }
    return lags;
  }

  /** The applications one scrape reports a lag for. */
  public static List<String> applications(Scrape scrape) {
    return scrape.sumBy(LAG_METRIC, "application").keySet().stream().toList();
  }

  /** Per application, its total lag (over its partitions) at each round of {@code view}. */
  public synchronized List<TimeSeries> perApp(View view, long origin) {
    List<Round> of = rounds.stream().filter(r -> r.view() == view).toList();
    Map<String, TimeSeries> series = new TreeMap<>();
    for (Round r : of) {
      for (Key k : r.lags().keySet()) {
        series.computeIfAbsent(k.app(), TimeSeries::new);
      }
    }
    for (Round r : of) {
      Map<String, Double> totals = totals(r);
      double at = (r.nanos() - origin) / 1e9;
      series.forEach((app, s) -> s.add(at, totals.getOrDefault(app, 0.0)));
    }
    return new ArrayList<>(series.values());
  }

  /**
   * Every partition that lagged in a round of {@code view} at or after {@code from}: its peak, the
   * seconds it spent lagging (each lagging round counts until the next round of the view), its
   * longest stretch of lagging rounds in a row, and its last lagging round, in seconds after {@code
   * from}; the longest stretch first.
   */
  public synchronized List<Lagging> lagging(View view, long from) {
    return lagging(view, from, Long.MAX_VALUE);
  }

  /** {@link #lagging(View, long)} over the rounds from {@code from} to {@code to} only. */
  public synchronized List<Lagging> lagging(View view, long from, long to) {
    List<Round> of = after(view, from).stream().filter(r -> r.nanos() <= to).toList();
    // peak, lagging seconds, current stretch, longest stretch, last lagging round
    Map<Key, double[]> stats = new LinkedHashMap<>();
    for (int i = 0; i < of.size(); i++) {
      Round r = of.get(i);
      double span = i + 1 < of.size() ? (of.get(i + 1).nanos() - r.nanos()) / 1e9 : 0;
      double at = (r.nanos() - from) / 1e9;
      for (Map.Entry<Key, Double> e : r.lags().entrySet()) {
        if (e.getValue() <= 0) {
          double[] s = stats.get(e.getKey());
          if (s != null) {
            s[2] = 0;
          }
          continue;
        }
        double[] s = stats.computeIfAbsent(e.getKey(), k -> new double[5]);
        s[0] = Math.max(s[0], e.getValue());
        s[1] += span;
        s[2] += span;
        s[3] = Math.max(s[3], s[2]);
        s[4] = Math.max(s[4], at);
      }
    }
    List<Lagging> list = new ArrayList<>();
    stats.forEach(
        (k, s) -> list.add(new Lagging(k.app(), k.topic(), k.partition(), s[0], s[1], s[3], s[4])));
    list.sort(
        Comparator.comparingDouble(Lagging::longestStretchSeconds)
            .thenComparingDouble(Lagging::laggingSeconds)
            .reversed());
    return list;
  }

  /**
   * Per application seen in {@code view} at or after {@code from}: its peak total lag and the last
   * round in which it lagged (seconds after {@code from}; NaN if it never did), the latest first.
   */
  public synchronized List<AppLag> apps(View view, long from) {
    Map<String, double[]> stats = new TreeMap<>();
    for (Round r : after(view, from)) {
      double at = (r.nanos() - from) / 1e9;
      for (Key k : r.lags().keySet()) {
        stats.computeIfAbsent(k.app(), a -> new double[] {0, Double.NaN});
      }
      totals(r)
          .forEach(
              (app, total) -> {
                if (total > 0) {
                  double[] s = stats.get(app);
                  s[0] = Math.max(s[0], total);
                  s[1] = Double.isNaN(s[1]) ? at : Math.max(s[1], at);
                }
              });
    }
    List<AppLag> list = new ArrayList<>();
    stats.forEach((app, s) -> list.add(new AppLag(app, s[0], s[1])));
    list.sort(
        Comparator.comparingDouble(
                (AppLag a) -> Double.isNaN(a.lastLaggingSeconds()) ? -1 : a.lastLaggingSeconds())
            .reversed());
    return list;
  }

  /** How many rounds of {@code view} were recorded. */
  public synchronized int rounds(View view) {
    return (int) rounds.stream().filter(r -> r.view() == view).count();
  }

  private List<Round> after(View view, long from) {
    return rounds.stream()
        .filter(r -> r.view() == view && r.nanos() >= from)
        .sorted(Comparator.comparingLong(Round::nanos))
        .toList();
  }

  private static Map<String, Double> totals(Round r) {
    Map<String, Double> totals = new HashMap<>();
    r.lags().forEach((k, lag) -> totals.merge(k.app(), lag, Double::sum));
    return totals;
  }
}
