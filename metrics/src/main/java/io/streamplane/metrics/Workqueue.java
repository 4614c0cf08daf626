package io.streamplane.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.IntSupplier;

/**
 * The metrics of a controller's queue of pending work, under client-go's workqueue names so that
 * dashboards made for kube-controller-manager read them: {@code workqueue_depth}, {@code
 * workqueue_adds_total}, {@code workqueue_queue_duration_seconds}, {@code
 * workqueue_work_duration_seconds} and {@code workqueue_retries_total}, each labelled {@code name}.
 *
 * <p>The controller keeps its queue itself (in a Streams processor: the keys whose input changed
 * and that are not reconciled yet, one queue per task); this class only reports:
 *
 * <pre>{@code
 * Workqueue metrics = Workqueue.named("replicaset");      // once, e.g. in a static field
 * Workqueue.Tracked depth = metrics.trackDepth(queue::size); // when the task's queue is made
 * long addedAt = metrics.added();                         // a key entered the queue
 * try (Workqueue.Work work = metrics.started(addedAt)) {  // the key is taken to be reconciled
 *   reconcile(key);                                       // (started() if its add time is unknown)
 * }
 * metrics.retried();                                      // a failed key goes back
 * depth.close();                                          // when the task closes
 * }</pre>
 *
 * <p>Contract: every name has one set of series per JVM, shared by all the tasks and instances of
 * that controller in the process; {@code workqueue_depth} is the sum of the tracked queues' sizes,
 * read at each scrape (on the scraping thread: a size read without the queue's lock is fine, as it
 * is only a moment's count). Calls are thread-safe and cheap.
 */
public final class Workqueue {

  // client-go's buckets: 10 ns to 10 s, by powers of ten.
  private static final double[] DURATION_BUCKETS = {
    1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10
  };

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

  static {
    GaugeWithCallback.builder()
        .name("workqueue_depth")
        .help("Current depth of workqueue")
        .labelNames("name")
        .callback(
            callback ->
                QUEUES.forEach(
                    (name, queue) -> {
                      long depth = 0;
                      for (IntSupplier size : queue.sizes) {
                        depth += size.getAsInt();
                      }
                      callback.call(depth, name);
                    }))
        .register();
  }

  private final Set<IntSupplier> sizes = ConcurrentHashMap.newKeySet();
  private final CounterDataPoint adds;
  private final DistributionDataPoint queueDuration;
  private final DistributionDataPoint workDuration;
  private final CounterDataPoint retries;

  private Workqueue(String name) {
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
   * Counts {@code size} (one task's queue) into this name's {@code workqueue_depth} until the
   * returned handle is closed.
   */
  public Tracked trackDepth(IntSupplier size) {
    IntSupplier own = size::getAsInt; // one entry per call, even for the same supplier
    sizes.add(own);
    return () -> sizes.remove(own);
  }

  /**
   * A key entered the queue (one already queued is not added again).
   *
   * @return when it entered ({@link System#nanoTime()}), to hand to {@link #started(long)}
   */
  public long added() {
    adds.inc();
    return System.nanoTime();
  }

  /**
   * The key added at {@code addedAt} is taken to be worked on: its wait is observed. Close the
   * returned {@link Work} when the work is done.
   */
  public Work started(long addedAt) {
    long now = System.nanoTime();
    queueDuration.observe((now - addedAt) / 1e9);
    return new Work(now);
  }

  /** A key whose add time is unknown (restored after a restart) is taken to be worked on. */
  public Work started() {
    return new Work(System.nanoTime());
  }

  /** A key goes back after a failure (client-go's AddRateLimited). */
  public void retried() {
    retries.inc();
  }

  /** A tracked queue size; closing it stops counting it. */
  public interface Tracked extends AutoCloseable {
    @Override
    void close();
  }

  /** The work on one key; {@link #close} observes how long it took. */
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
