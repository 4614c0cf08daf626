package io.streamplane.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The metrics of one controller's queue of pending work, under client-go's workqueue names so that
 * dashboards made for kube-controller-manager read them: {@code workqueue_depth}, {@code
 * workqueue_adds_total}, {@code workqueue_queue_duration_seconds}, {@code
 * workqueue_work_duration_seconds} and {@code workqueue_retries_total}, each labelled {@code name}.
 *
 * <p>The controller keeps its queue itself (in a Streams processor: the keys whose input changed
 * and that are not reconciled yet); this class only counts what it is told:
 *
 * <pre>{@code
 * Workqueue queue = Workqueue.named("replicaset");     // once, e.g. in a static field
 * long addedAt = queue.added();                        // a key became dirty
 * try (Workqueue.Work work = queue.started(addedAt)) { // the key is taken to be reconciled
 *   reconcile(key);
 * }
 * queue.retried();                                     // a failed key goes back (then added())
 * queue.dropped(pending.size());                       // the task closed with keys still queued
 * }</pre>
 *
 * <p>Contract: every name has one set of series per JVM, shared by all the tasks and instances of
 * that controller in the process; calls are thread-safe and cheap (no allocation but {@link Work}).
 * {@code added()} and {@code started()}/{@code dropped()} must balance, or the depth drifts.
 */
public final class Workqueue {

  // client-go's buckets: 10 ns to 10 s, by powers of ten.
  private static final double[] DURATION_BUCKETS = {
    1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10
  };

  private static final Gauge DEPTH =
      Gauge.builder()
          .name("workqueue_depth")
          .help("Current depth of workqueue")
          .labelNames("name")
          .register();

  private static final Counter ADDS =
      Counter.builder()
          .name("workqueue_adds_total")
          .help("Total number of adds handled by workqueue")
          .labelNames("name")
          .register();

  private static final Histogram QUEUE_DURATION =
      Histogram.builder()
          .name("workqueue_queue_duration_seconds")
          .help("How long in seconds an item stays in workqueue before being requested.")
          .labelNames("name")
          .classicOnly()
          .classicUpperBounds(DURATION_BUCKETS)
          .register();

  private static final Histogram WORK_DURATION =
      Histogram.builder()
          .name("workqueue_work_duration_seconds")
          .help("How long in seconds processing an item from workqueue takes.")
          .labelNames("name")
          .classicOnly()
          .classicUpperBounds(DURATION_BUCKETS)
          .register();

  private static final Counter RETRIES =
      Counter.builder()
          .name("workqueue_retries_total")
          .help("Total number of retries handled by workqueue")
          .labelNames("name")
          .register();

  private static final ConcurrentMap<String, Workqueue> QUEUES = new ConcurrentHashMap<>();

  private final GaugeDataPoint depth;
  private final CounterDataPoint adds;
  private final DistributionDataPoint queueDuration;
  private final DistributionDataPoint workDuration;
  private final CounterDataPoint retries;

  private Workqueue(String name) {
    depth = DEPTH.labelValues(name);
    adds = ADDS.labelValues(name);
    queueDuration = QUEUE_DURATION.labelValues(name);
    workDuration = WORK_DURATION.labelValues(name);
    retries = RETRIES.labelValues(name);
  }

  /**
   * The queue called {@code name} (kube-controller-manager's are "deployment", "replicaset"...).
   */
  public static Workqueue named(String name) {
    return QUEUES.computeIfAbsent(name, Workqueue::new);
  }

  /**
   * An item entered the queue: adds +1, depth +1.
   *
   * @return when it entered ({@link System#nanoTime()}), to hand to {@link #started}
   */
  public long added() {
    adds.inc();
    depth.inc();
    return System.nanoTime();
  }

  /**
   * The item added at {@code addedAt} leaves the queue to be worked on: depth -1, and its wait is
   * observed. Close the returned {@link Work} when the work is done.
   */
  public Work started(long addedAt) {
    long now = System.nanoTime();
    depth.dec();
    queueDuration.observe((now - addedAt) / 1e9);
    return new Work(now);
  }

  /** {@code items} left the queue without being worked on (their task was closed or moved). */
  public void dropped(int items) {
    depth.dec(items);
  }

  /** An item goes back after a failure (client-go's AddRateLimited); its re-adding is an add. */
  public void retried() {
    retries.inc();
  }

  /** The work on one item; {@link #close} observes how long it took. */
  public final class Work implements AutoCloseable {
    private final long startedAt;

    private Work(long startedAt) {
      this.startedAt = startedAt;
    }

    @Override
    public void close() {
      workDuration.observe((System.nanoTime() - startedAt) / 1e9);
    }
  }
}
