package io.streamplane.scheduler.framework;

import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import io.streamplane.schema.objects.Quantities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The four resources kube-scheduler's NodeResourcesFit accounts for: CPU in milli-CPU, memory and
 * ephemeral storage in bytes, and a pod count.
 *
 * <p>Contract: {@link #insufficientIn} follows Kubernetes' {@code fitsRequest}: a dimension this
 * request leaves at zero never fails, however full the node is, so a pod without requests still
 * fits a node whose CPU is fully requested. {@link #toMap} / {@link #fromMap} use the Kubernetes
 * resource names ({@code cpu} in milli-units) so a ledger can be stored as a plain map; the same
 * maps may also hold {@link #NON_ZERO_CPU}, {@link #NON_ZERO_MEMORY} and {@link #VOLUME} keys (see
 * {@link PodRequests#toMap}), which {@link #fromMap} ignores: they are not requests.
 *
 * <p>Limits: extended resources ({@code nvidia.com/gpu}) and hugepages are not accounted for;
 * quantities for them are ignored (attachable volumes are {@link NodeVolumeLimits}'s). Sums
 * saturate instead of overflowing.
 */
public record Resources(long milliCpu, long memory, long ephemeralStorage, long pods) {

  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";
  public static final String PODS = "pods";

  /**
   * Keys of the non-zero CPU (milli) and memory sums in the same maps as the requests ({@code
   * BindRequest.requests}, {@code NodeUsage.allocated}, the binder's ledger). The colon makes them
   * impossible as Kubernetes resource names, so they cannot clash with a real resource.
   */
  public static final String NON_ZERO_CPU = "non-zero:cpu";

  public static final String NON_ZERO_MEMORY = "non-zero:memory";

  /**
   * The prefix of the keys, in the same maps, of the CSI volumes a pod uses ({@link
   * PodRequests#volumes}): {@code volume:<driver>^<volume>}, the number of pods using it. Not a
   * request either.
   */
  public static final String VOLUME = "volume:";

  private static final List<String> KEYS =
      List.of(CPU, MEMORY, EPHEMERAL_STORAGE, PODS, NON_ZERO_CPU, NON_ZERO_MEMORY);

  public static final Resources ZERO = new Resources(0, 0, 0, 0);

  public Resources plus(Resources other) {
    return new Resources(
        add(milliCpu, other.milliCpu),
        add(memory, other.memory),
        add(ephemeralStorage, other.ephemeralStorage),
        add(pods, other.pods));
  }

  public Resources minus(Resources other) {
    return new Resources(
        add(milliCpu, negate(other.milliCpu)),
        add(memory, negate(other.memory)),
        add(ephemeralStorage, negate(other.ephemeralStorage)),
        add(pods, negate(other.pods)));
  }

  /** Per resource, the larger of the two (how an init container's requests combine). */
  public Resources max(Resources other) {
    return new Resources(
        Math.max(milliCpu, other.milliCpu),
        Math.max(memory, other.memory),
        Math.max(ephemeralStorage, other.ephemeralStorage),
        Math.max(pods, other.pods));
  }

  /**
   * The resource names (in the order cpu, memory, ephemeral-storage, pods) for which this request
   * is positive and larger than {@code available}; empty when it fits.
   */
  public List<String> insufficientIn(Resources available) {
    List<String> names = new ArrayList<>(0);
    if (pods > 0 && pods > available.pods) {
      names.add(PODS);
    }
    if (milliCpu > 0 && milliCpu > available.milliCpu) {
      names.add(CPU);
    }
    if (memory > 0 && memory > available.memory) {
      names.add(MEMORY);
    }
    if (ephemeralStorage > 0 && ephemeralStorage > available.ephemeralStorage) {
      names.add(EPHEMERAL_STORAGE);
    }
    return names;
  }

  /**
   * Whether this request fits next to {@code requested} in {@code allocatable}: the same answer as
   * {@code fitsIn(allocatable.minus(requested))}, without building the difference.
   */
  public boolean fitsBeside(Resources requested, Resources allocatable) {
    return fits(pods, allocatable.pods, requested.pods)
        && fits(milliCpu, allocatable.milliCpu, requested.milliCpu)
        && fits(memory, allocatable.memory, requested.memory)
        && fits(ephemeralStorage, allocatable.ephemeralStorage, requested.ephemeralStorage);
  }

  private static boolean fits(long wanted, long allocatable, long requested) {
    return wanted <= 0 || wanted <= add(allocatable, negate(requested));
  }

  /** Whether this request fits in {@code available} (e.g. allocatable minus requested). */
  public boolean fitsIn(Resources available) {
    return insufficientIn(available).isEmpty();
  }

  /** {@code {cpu: milli-CPU, memory, ephemeral-storage, pods}}, always with exactly these keys. */
  public Map<String, Long> toMap() {
    Map<String, Long> map = new LinkedHashMap<>();
    map.put(CPU, milliCpu);
    map.put(MEMORY, memory);
    map.put(EPHEMERAL_STORAGE, ephemeralStorage);
    map.put(PODS, pods);
    return map;
  }

  /**
   * The inverse of {@link #toMap}; a missing key is zero, {@link #NON_ZERO_CPU} and {@link
   * #NON_ZERO_MEMORY} are ignored, any other key is an error.
   */
  public static Resources fromMap(Map<String, Long> map) {
    for (String key : map.keySet()) {
      if (!KEYS.contains(key) && !key.startsWith(VOLUME)) {
        throw new IllegalArgumentException(
            "unknown resource '" + key + "'; expected cpu, memory, ephemeral-storage or pods");
      }
    }
    return new Resources(
        map.getOrDefault(CPU, 0L),
        map.getOrDefault(MEMORY, 0L),
        map.getOrDefault(EPHEMERAL_STORAGE, 0L),
        map.getOrDefault(PODS, 0L));
  }

  /**
   * What a node offers pods, from {@code status.allocatable}. A node with no allocatable map falls
   * back to {@code status.capacity}, as the API server's defaulting of NodeStatus does. A resource
   * the node does not report is zero: in particular a node without a {@code pods} quantity admits
   * no pod at all ("Too many pods"), exactly as kube-scheduler treats it.
   */
  public static Resources allocatableOf(Node node) {
    NodeStatus status = node.getStatus();
    if (status == null) {
      return ZERO;
    }
    Map<String, String> list =
        status.getAllocatable() != null ? status.getAllocatable() : status.getCapacity();
    return list == null ? ZERO : fromResourceList(list);
  }

  /** A Kubernetes ResourceList (quantity strings by resource name); other resources are ignored. */
  public static Resources fromResourceList(Map<String, String> list) {
    if (list == null || list.isEmpty()) {
      return ZERO;
    }
    String cpu = list.get(CPU);
    String memory = list.get(MEMORY);
    String storage = list.get(EPHEMERAL_STORAGE);
    String pods = list.get(PODS);
    return new Resources(
        cpu == null ? 0 : Quantities.milliValue(cpu),
        memory == null ? 0 : Quantities.value(memory),
        storage == null ? 0 : Quantities.value(storage),
        pods == null ? 0 : Quantities.value(pods));
  }

  private static long negate(long v) {
    return v == Long.MIN_VALUE ? Long.MAX_VALUE : -v;
  }

  private static long add(long a, long b) {
    long r = a + b;
    // Overflow iff both operands have the sign opposite to the result's.
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }
}
