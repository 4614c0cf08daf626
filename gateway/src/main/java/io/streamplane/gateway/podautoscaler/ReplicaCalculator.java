package io.streamplane.gateway.podautoscaler;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-controller-manager's {@code ReplicaCalculator.GetResourceReplicas} for a resource metric
 * with a utilization target: the pods' use of the resource over their requests, against the target,
 * with the same handling of pods that cannot be counted as they are. Pure.
 *
 * <ul>
 *   <li>Pods being deleted or Failed are ignored; Pending pods are unready; pods without figures
 *       are missing. For CPU, a pod within {@code cpuInitializationPeriod} (5 min) of its start is
 *       unready unless it is Ready and its figures were taken after it became Ready; an older one
 *       is unready only if it is not Ready and became so within {@code
 *       delayOfInitialReadinessStatus} (30 s) of its start.
 *   <li>The usage ratio is the ready pods' use over their requests, divided by the target. Within
 *       the tolerance (0.1) of 1 the replicas stay; otherwise, with no missing pod and no unready
 *       pod on a scale-up, they become {@code ceil(ratio * readyPods)}.
 *   <li>Otherwise the ratio is taken again counting missing pods as using their whole request on a
 *       scale-down and nothing on a scale-up, and unready pods (on a scale-up) as using nothing; if
 *       that changes the direction or falls within the tolerance the replicas stay, else they
 *       become {@code ceil(newRatio * counted pods)}, never past the current count in the other
 *       direction.
 * </ul>
 */
public final class ReplicaCalculator {

  public static final double TOLERANCE = 0.1;
  public static final Duration CPU_INITIALIZATION_PERIOD = Duration.ofMinutes(5);
  public static final Duration DELAY_OF_INITIAL_READINESS_STATUS = Duration.ofSeconds(30);

  /** What the calculation needs of a pod. {@code readySince} null: no Ready condition. */
  public record PodInfo(
      String name,
      String phase,
      boolean deleting,
      Instant startTime,
      Boolean ready,
      Instant readySince,
      long request) {}

  /** A pod's use of the resource and when and over how long it was measured. */
  public record PodMetric(long value, Instant timestamp, Duration window) {}

  /** The recommendation, the utilization (percent) and the average use of the counted pods. */
  public record Result(int replicas, int utilization, long averageValue, Instant timestamp) {}

  /** Why no recommendation could be made, in kube-controller-manager's words. */
  public static class CalculationException extends Exception {
    public CalculationException(String message) {
      super(message);
    }
  }

  private ReplicaCalculator() {}

  public static Result resourceReplicas(
      int currentReplicas,
      int targetUtilization,
      String resource,
      List<PodInfo> pods,
      Map<String, PodMetric> metrics,
      Instant now)
      throws CalculationException {
    if (metrics.isEmpty()) {
      throw new CalculationException(
          "unable to get metrics for resource "
              + resource
              + ": no metrics returned from resource metrics API");
    }
    if (pods.isEmpty()) {
      throw new CalculationException(
          "no pods returned by selector while calculating replica count");
    }
    int ready = 0;
    List<String> unready = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    Map<String, Long> requests = new HashMap<>();
    Map<String, Long> usable = new HashMap<>();
    for (PodInfo pod : pods) {
      if (pod.deleting() || "Failed".equals(pod.phase())) {
        continue;
      }
      requests.put(pod.name(), pod.request());
      if ("Pending".equals(pod.phase())) {
        unready.add(pod.name());
        continue;
      }
      PodMetric metric = metrics.get(pod.name());
      if (metric == null) {
        missing.add(pod.name());
        continue;
      }
      if (resource.equals("cpu") && unready(pod, metric)) {
        unready.add(pod.name());
        continue;
      }
      usable.put(pod.name(), metric.value());
      ready++;
    }
    if (usable.isEmpty()) {
      throw new CalculationException(
          "did not receive metrics for targeted pods (pods might be unready)");
    }
    double[] first = ratio(usable, requests, targetUtilization);
    double usageRatio = first[0];
    int utilization = (int) first[1];
    long average = (long) first[2];
    Instant timestamp =
        usable.keySet().stream()
            .map(n -> metrics.get(n).timestamp())
            .max(Instant::compareTo)
            .orElse(now);
    boolean scaleUpWithUnready = !unready.isEmpty() && usageRatio > 1.0;
    if (!scaleUpWithUnready && missing.isEmpty()) {
      if (Math.abs(1.0 - usageRatio) <= TOLERANCE) {
        return new Result(currentReplicas, utilization, average, timestamp);
      }
      return new Result((int) Math.ceil(usageRatio * ready), utilization, average, timestamp);
    }
    Map<String, Long> adjusted = new HashMap<>(usable);
    for (String name : missing) {
      adjusted.put(name, usageRatio < 1.0 ? requests.get(name) : 0L);
    }
    if (scaleUpWithUnready) {
      unready.forEach(name -> adjusted.put(name, 0L));
    }
    double newRatio = ratio(adjusted, requests, targetUtilization)[0];
    if (Math.abs(1.0 - newRatio) <= TOLERANCE
        || (usageRatio < 1.0 && newRatio > 1.0)
        || (usageRatio > 1.0 && newRatio < 1.0)) {
      return new Result(currentReplicas, utilization, average, timestamp);
    }
    int newReplicas = (int) Math.ceil(newRatio * adjusted.size());
    if ((newRatio < 1.0 && newReplicas > currentReplicas)
        || (newRatio > 1.0 && newReplicas < currentReplicas)) {
      return new Result(currentReplicas, utilization, average, timestamp);
    }
    return new Result(newReplicas, utilization, average, timestamp);
  }

  /** {@code groupPods}' readiness rule for CPU. */
  private static boolean unready(PodInfo pod, PodMetric metric) {
    if (pod.ready() == null || pod.startTime() == null) {
      return true;
    }
    Instant start = pod.startTime();
    if (start.plus(CPU_INITIALIZATION_PERIOD).isAfter(metric.timestamp())) {
      // Within the initialization period: counted only once Ready, with figures since then.
      return !pod.ready()
          || pod.readySince() == null
          || metric.timestamp().isBefore(pod.readySince().plus(metric.window()));
    }
    return !pod.ready()
        && pod.readySince() != null
        && start.plus(DELAY_OF_INITIAL_READINESS_STATUS).isAfter(pod.readySince());
  }

  /**
   * {@code GetResourceUtilizationRatio}: {usage ratio, utilization percent, average use} over the
   * pods with both figures and requests.
   */
  private static double[] ratio(Map<String, Long> usage, Map<String, Long> requests, int target) {
    long total = 0;
    long requested = 0;
    int counted = 0;
    for (Map.Entry<String, Long> e : usage.entrySet()) {
      Long request = requests.get(e.getKey());
      if (request == null) {
        continue;
      }
      total += e.getValue();
      requested += request;
      counted++;
    }
    int utilization = requested == 0 ? 0 : (int) (total * 100 / requested);
    return new double[] {
      (double) utilization / target, utilization, counted == 0 ? 0 : (double) total / counted
    };
  }
}
