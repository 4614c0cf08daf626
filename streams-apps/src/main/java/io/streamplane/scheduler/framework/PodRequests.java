package io.streamplane.scheduler.framework;

import io.streamplane.api.Container;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pod asks of a node, computed as kube-scheduler's {@code resource.PodRequests} does: the
 * sum of the containers' requests, raised per resource to the largest init container's request
 * (init containers run one at a time, before the others), plus {@code spec.overhead}; the pod count
 * is 1.
 *
 * <p>{@link #requests} is what NodeResourcesFit and BalancedAllocation use. {@link
 * #nonZeroRequests} is what LeastAllocated scores with: a container that requests no CPU counts as
 * 100m and one that requests no memory as 200Mi (kube-scheduler's {@code DefaultMilliCPURequest}
 * and {@code DefaultMemoryRequest}), so best-effort pods still spread.
 *
 * <p>A container with a limit but no request for a resource requests its limit: the API server's
 * defaulting does this at admission, and it is repeated here (it is idempotent) so that pods stored
 * without that defaulting are accounted for the same way.
 *
 * <p>The same pair also holds a sum over pods (a node's ledger, {@link #plus}). {@link #toMap}
 * writes it as one map — the requests under the Kubernetes resource names, as {@link
 * Resources#toMap}, plus the non-zero CPU and memory under {@link Resources#NON_ZERO_CPU} and
 * {@link Resources#NON_ZERO_MEMORY} — so it travels in {@code BindRequest.requests} and {@code
 * NodeUsage.allocated} without a schema change; readers of the requests alone ({@link
 * Resources#fromMap}) ignore the two extra keys.
 *
 * <p>{@link #volumes} are the CSI volumes the pod uses ({@link NodeVolumeLimits#of}: {@code
 * <driver>^<volume>} → 1), or, in a sum, the number of the node's pods using each; {@link #toMap}
 * writes them under {@link Resources#VOLUME}{@code <driver>^<volume>}, so a node's ledger knows its
 * distinct volumes. {@link #of} leaves them empty: resolving a pod's claims needs the cluster's
 * objects.
 *
 * <p>Limits: restartable ("sidecar") init containers and pod-level resources are not modelled (the
 * schema has neither); a malformed quantity throws IllegalArgumentException.
 */
public record PodRequests(
    Resources requests, Resources nonZeroRequests, Map<String, Long> volumes) {

  public PodRequests(Resources requests, Resources nonZeroRequests) {
    this(requests, nonZeroRequests, Map.of());
  }

  /** kube-scheduler's {@code DefaultMilliCPURequest}. */
  public static final long DEFAULT_MILLI_CPU_REQUEST = 100;

  /** kube-scheduler's {@code DefaultMemoryRequest}, 200 MiB. */
  public static final long DEFAULT_MEMORY_REQUEST = 200L * 1024 * 1024;

  /** Nothing requested, no pod: the sum over an empty node. */
  public static final PodRequests NONE = new PodRequests(Resources.ZERO, Resources.ZERO);

  /** Both sums, per dimension, and the volumes' pods. */
  public PodRequests plus(PodRequests other) {
    return new PodRequests(
        requests.plus(other.requests),
        nonZeroRequests.plus(other.nonZeroRequests),
        combine(volumes, other.volumes, 1));
  }

  /** The same requests, using {@code volumes} (each used once). */
  public PodRequests withVolumes(Map<String, Long> volumes) {
    return new PodRequests(requests, nonZeroRequests, Map.copyOf(volumes));
  }

  /**
   * Per volume key, {@code a + sign * b}; keys left at zero or below are dropped. Returns one of
   * the maps itself when the other is empty and {@code sign} is 1.
   */
  static Map<String, Long> combine(Map<String, Long> a, Map<String, Long> b, int sign) {
    if (b.isEmpty()) {
      return a;
    }
    if (a.isEmpty() && sign > 0) {
      return b;
    }
    Map<String, Long> sum = new HashMap<>(a);
    b.forEach((key, n) -> sum.merge(key, sign * n, (x, y) -> x + y > 0 ? x + y : null));
    sum.values().removeIf(n -> n <= 0);
    return sum;
  }

  /**
   * The requests' four keys ({@link Resources#toMap}) plus {@link Resources#NON_ZERO_CPU} and
   * {@link Resources#NON_ZERO_MEMORY}; the non-zero ephemeral storage and pod count are always the
   * requests' own, so they are not repeated.
   */
  public Map<String, Long> toMap() {
    Map<String, Long> map = requests.toMap();
    map.put(Resources.NON_ZERO_CPU, nonZeroRequests.milliCpu());
    map.put(Resources.NON_ZERO_MEMORY, nonZeroRequests.memory());
    volumes.forEach((key, n) -> map.put(Resources.VOLUME + key, n));
    return map;
  }

  /**
   * The inverse of {@link #toMap}. A map without the non-zero keys (written before they existed)
   * reads as non-zero = requests, which is exact for pods that request both CPU and memory.
   */
  public static PodRequests fromMap(Map<String, Long> map) {
    Resources requests = Resources.fromMap(map);
    Map<String, Long> volumes = Map.of();
    for (Map.Entry<String, Long> e : map.entrySet()) {
      if (e.getKey().startsWith(Resources.VOLUME) && e.getValue() > 0) {
        if (volumes.isEmpty()) {
          volumes = new HashMap<>();
        }
        volumes.put(e.getKey().substring(Resources.VOLUME.length()), e.getValue());
      }
    }
    Long cpu = map.get(Resources.NON_ZERO_CPU);
    Long memory = map.get(Resources.NON_ZERO_MEMORY);
    if (cpu == null && memory == null) {
      return new PodRequests(requests, requests, volumes);
    }
    return new PodRequests(
        requests,
        new Resources(
            cpu == null ? requests.milliCpu() : cpu,
            memory == null ? requests.memory() : memory,
            requests.ephemeralStorage(),
            requests.pods()),
        volumes);
  }

  public static PodRequests of(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return new PodRequests(onePod(), onePod());
    }
    Resources sum = Resources.ZERO;
    Resources nonZeroSum = Resources.ZERO;
    for (Container c : orEmpty(spec.getContainers())) {
      Map<String, String> requests = effectiveRequests(c);
      sum = sum.plus(Resources.fromResourceList(requests));
      nonZeroSum = nonZeroSum.plus(nonZero(requests));
    }
    for (Container c : orEmpty(spec.getInitContainers())) {
      Map<String, String> requests = effectiveRequests(c);
      sum = sum.max(Resources.fromResourceList(requests));
      nonZeroSum = nonZeroSum.max(nonZero(requests));
    }
    Resources overhead = Resources.fromResourceList(spec.getOverhead());
    Resources one = onePod();
    return new PodRequests(
        withOnePod(sum.plus(overhead), one), withOnePod(nonZeroSum.plus(overhead), one));
  }

  private static Map<String, String> effectiveRequests(Container c) {
    ResourceRequirements r = c.getResources();
    if (r == null) {
      return Map.of();
    }
    Map<String, String> requests = r.getRequests() == null ? Map.of() : r.getRequests();
    Map<String, String> limits = r.getLimits();
    if (limits == null || requests.keySet().containsAll(limits.keySet())) {
      return requests;
    }
    Map<String, String> defaulted = new HashMap<>(limits);
    defaulted.putAll(requests);
    return defaulted;
  }

  private static Resources nonZero(Map<String, String> requests) {
    Resources r = Resources.fromResourceList(requests);
    return new Resources(
        requests.containsKey(Resources.CPU) ? r.milliCpu() : DEFAULT_MILLI_CPU_REQUEST,
        requests.containsKey(Resources.MEMORY) ? r.memory() : DEFAULT_MEMORY_REQUEST,
        r.ephemeralStorage(),
        r.pods());
  }

  private static Resources onePod() {
    return new Resources(0, 0, 0, 1);
  }

  private static Resources withOnePod(Resources r, Resources one) {
    return new Resources(r.milliCpu(), r.memory(), r.ephemeralStorage(), one.pods());
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
