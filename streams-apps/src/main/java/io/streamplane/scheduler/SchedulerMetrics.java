package io.streamplane.scheduler;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the schedulers and binders of this process report, under kube-scheduler's names where
 * kube-scheduler has them:
 *
 * <ul>
 *   <li>{@code scheduler_schedule_attempts_total{result, profile}}: attempts to place a pod; result
 *       {@code scheduled} (a node was proposed to its binder), {@code unschedulable} (no node fits)
 *       or {@code error}.
 *   <li>{@code scheduler_scheduling_attempt_duration_seconds{result, profile}}: how long the
 *       filters and scores of one attempt took.
 *   <li>{@code scheduler_pod_scheduling_sli_duration_seconds{attempts}} and {@code
 *       scheduler_pod_scheduling_attempts}: from the moment a pod entered this scheduler's queue to
 *       the moment its event shows it bound — binder round trip and retries included.
 *   <li>{@code scheduler_pending_pods{queue}}: {@code active} (due for an attempt now) and {@code
 *       unschedulable} (its last attempt found no node; it waits for its back-off or a change of
 *       the nodes, whichever comes first). Pods proposed to a binder and not answered yet are not
 *       pending, as pods in kube-scheduler's binding cycle are not. There is no separate back-off
 *       queue, so {@code backoff} is not reported.
 *   <li>{@code scheduler_preemption_attempts_total} (a pod fit no node, so preemption was tried)
 *       and {@code scheduler_preemption_victims} (the number of victims of each preemption).
 *   <li>{@code streamplane_binder_bind_requests_total{result}}: BindRequests a binder {@code
 *       accepted} (the place taken, the BIND written) or {@code rejected} (the pod goes back to its
 *       scheduler).
 * </ul>
 *
 * <p>Limits: counts are of processing, so a record processed again after a crash (exactly-once
 * aborts and retries the transaction) is counted again. A pod already queued when its scheduler
 * restarted has no start time, and is left out of the scheduling-duration histograms.
 */
public final class SchedulerMetrics {

  private static final Counter SCHEDULE_ATTEMPTS =
      Counter.builder()
          .name("scheduler_schedule_attempts_total")
          .help(
              "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod"
                  + " could not be scheduled, while 'error' means an internal scheduler problem.")
          .labelNames("result", "profile")
          .register();

  private static final Histogram ATTEMPT_DURATION =
      Histogram.builder()
          .name("scheduler_scheduling_attempt_duration_seconds")
          .help("Scheduling attempt latency in seconds (scheduling algorithm)")
          .labelNames("result", "profile")
          .classicOnly()
          .classicExponentialUpperBounds(0.001, 2, 15) // kube-scheduler's buckets
          .register();

  private static final Histogram POD_SCHEDULING_SLI_DURATION =
      Histogram.builder()
          .name("scheduler_pod_scheduling_sli_duration_seconds")
          .help(
              "E2e latency for a pod being scheduled, from the time the pod enters the scheduling"
                  + " queue and might involve multiple scheduling attempts.")
          .labelNames("attempts")
          .classicOnly()
          .classicExponentialUpperBounds(0.01, 2, 20) // 10 ms to ~88 min, as kube-scheduler's
          .register();

  private static final Histogram POD_SCHEDULING_ATTEMPTS =
      Histogram.builder()
          .name("scheduler_pod_scheduling_attempts")
          .help("Number of attempts to successfully schedule a pod.")
          .classicOnly()
          .classicUpperBounds(1, 2, 4, 8, 16)
          .register();

  private static final Counter BIND_REQUESTS =
      Counter.builder()
          .name("streamplane_binder_bind_requests_total")
          .help(
              "BindRequests the binders of this process answered, by result (accepted, rejected).")
          .labelNames("result")
          .register();

  private static final Counter PREEMPTION_ATTEMPTS =
      Counter.builder()
          .name("scheduler_preemption_attempts_total")
          .help("Total preemption attempts in the cluster till now")
          .register();

  private static final Histogram PREEMPTION_VICTIMS =
      Histogram.builder()
          .name("scheduler_preemption_victims")
          .help("Number of selected preemption victims")
          .classicOnly()
          .classicExponentialUpperBounds(1, 2, 7) // kube-scheduler's buckets
          .register();

  private static final Set<PendingPods> QUEUES = ConcurrentHashMap.newKeySet();

  static {
    GaugeWithCallback.builder()
        .name("scheduler_pending_pods")
        .help(
            "Number of pending pods, by the queue type. 'active' means number of pods in"
                + " activeQ; 'unschedulable' means number of pods whose last attempt found no node.")
        .labelNames("queue")
        .callback(
            callback -> {
              long active = 0;
              long unschedulable = 0;
              for (PendingPods queue : QUEUES) {
                active += queue.active;
                unschedulable += queue.unschedulable;
              }
              callback.call(active, "active");
              callback.call(unschedulable, "unschedulable");
            })
        .register();
  }

  private SchedulerMetrics() {}

  /** One scheduling attempt of {@code profile} ended with {@code result} after {@code seconds}. */
  public static void attempted(String profile, String result, double seconds) {
    SCHEDULE_ATTEMPTS.labelValues(result, profile).inc();
    ATTEMPT_DURATION.labelValues(result, profile).observe(seconds);
  }

  /** A queued pod was seen bound, {@code seconds} after it entered the queue. */
  public static void podScheduled(int attempts, double seconds) {
    POD_SCHEDULING_SLI_DURATION.labelValues(Integer.toString(attempts)).observe(seconds);
    POD_SCHEDULING_ATTEMPTS.observe(attempts);
  }

  /** Preemption was tried for a pod that fits no node; it chose {@code victims} (0: none). */
  public static void preemptionAttempted(int victims) {
    PREEMPTION_ATTEMPTS.inc();
    if (victims > 0) {
      PREEMPTION_VICTIMS.observe(victims);
    }
  }

  /** A binder answered a BindRequest. */
  public static void bindRequest(boolean accepted) {
    BIND_REQUESTS.labelValues(accepted ? "accepted" : "rejected").inc();
  }

  /** The pending-pod counts of one queue task, summed into {@code scheduler_pending_pods}. */
  public static PendingPods pendingPods() {
    PendingPods queue = new PendingPods();
    QUEUES.add(queue);
    return queue;
  }

  /** One queue task's share of {@code scheduler_pending_pods}; closed with the task. */
  public static final class PendingPods implements AutoCloseable {
    private volatile long active;
    private volatile long unschedulable;

    private PendingPods() {}

    public void set(long active, long unschedulable) {
      this.active = active;
      this.unschedulable = unschedulable;
    }

    @Override
    public void close() {
      QUEUES.remove(this);
    }
  }
}
