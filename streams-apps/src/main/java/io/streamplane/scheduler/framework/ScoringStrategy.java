package io.streamplane.scheduler.framework;

import java.util.List;
import java.util.Locale;

/**
 * How NodeResourcesFit scores a feasible node: kube-scheduler 1.32's {@code
 * NodeResourcesFitArgs.scoringStrategy}.
 *
 * <p>Per resource {@code r} listed in {@code resources}, with {@code requested} the node's requests
 * plus the pod's ({@link PodRequests#nonZeroRequests} for cpu and memory, as Kubernetes) and {@code
 * allocatable} the node's; a resource the node does not report (allocatable 0) is left out:
 *
 * <ul>
 *   <li>{@link Type#LeastAllocated}: {@code (allocatable - requested) * 100 / allocatable}, 0 when
 *       requested exceeds allocatable; the node score is the weighted average, rounded down.
 *   <li>{@link Type#MostAllocated}: {@code min(requested, allocatable) * 100 / allocatable};
 *       weighted average rounded down.
 *   <li>{@link Type#RequestedToCapacityRatio}: the utilization {@code requested * 100 /
 *       allocatable} (100 when over) mapped through the broken-line {@code shape} (scores 0..10,
 *       scaled by 10); resources scoring 0 are left out of the weighted average, which is rounded
 *       to the nearest integer.
 * </ul>
 *
 * <p>Defaults as kube-scheduler's: {@code LeastAllocated} over cpu and memory, weight 1 each.
 * Validation as kube-scheduler's: weights 1..100; a shape has at least one point, utilizations
 * 0..100 strictly increasing, scores 0..10.
 *
 * <p>Limits: the resources are {@code cpu}, {@code memory} and {@code ephemeral-storage}; extended
 * resources are not accounted for by this scheduler and are rejected.
 */
public record ScoringStrategy(Type type, List<ResourceWeight> resources, List<ShapePoint> shape) {

  /** kube-scheduler's {@code ScoringStrategyType}. */
  public enum Type {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio
  }

  /** One {@code scoringStrategy.resources} entry. */
  public record ResourceWeight(String name, long weight) {
    public ResourceWeight {
      if (!Resources.CPU.equals(name)
          && !Resources.MEMORY.equals(name)
          && !Resources.EPHEMERAL_STORAGE.equals(name)) {
        throw new IllegalArgumentException(
            "scoringStrategy resource '"
                + name
                + "' is not accounted for by this scheduler; known: cpu, memory,"
                + " ephemeral-storage");
      }
      if (weight < 1 || weight > MAX_WEIGHT) {
        throw new IllegalArgumentException(
            "resource weight of " + name + " not in valid range [1, 100], got " + weight);
      }
    }
  }

  /** One point of the {@code requestedToCapacityRatio.shape}: utilization in %, score 0..10. */
  public record ShapePoint(int utilization, int score) {}

  /** kube-scheduler's {@code MaxCustomPriorityScore}: shape scores are 0..10. */
  public static final int MAX_CUSTOM_PRIORITY_SCORE = 10;

  static final long MAX_WEIGHT = 100;
  private static final long MAX_UTILIZATION = 100;

  private static final List<ResourceWeight> DEFAULT_RESOURCES =
      List.of(new ResourceWeight(Resources.CPU, 1), new ResourceWeight(Resources.MEMORY, 1));

  public static final ScoringStrategy LEAST_ALLOCATED =
      new ScoringStrategy(Type.LeastAllocated, DEFAULT_RESOURCES, List.of());

  public ScoringStrategy {
    if (type == null) {
      throw new IllegalArgumentException("scoringStrategy.type must be set");
    }
    resources =
        resources == null || resources.isEmpty() ? DEFAULT_RESOURCES : List.copyOf(resources);
    shape = shape == null ? List.of() : List.copyOf(shape);
    if (type == Type.RequestedToCapacityRatio) {
      validateShape(shape);
    } else if (!shape.isEmpty()) {
      throw new IllegalArgumentException(
          "requestedToCapacityRatio is only used with type RequestedToCapacityRatio, not " + type);
    }
  }

  /** {@code type} with the default resources (cpu and memory, weight 1 each). */
  public static ScoringStrategy of(Type type) {
    return new ScoringStrategy(type, DEFAULT_RESOURCES, List.of());
  }

  /** The type named as in a KubeSchedulerConfiguration; an empty name is LeastAllocated. */
  public static Type type(String name) {
    if (name == null || name.isEmpty()) {
      return Type.LeastAllocated;
    }
    for (Type t : Type.values()) {
      if (t.name().equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "scoringStrategy.type '"
            + name
            + "' is not supported; known: LeastAllocated, MostAllocated, RequestedToCapacityRatio");
  }

  /** The node's NodeResourcesFit score, 0..100, for a pod whose requests are {@code pod}. */
  public long score(PodRequests pod, NodeInfo node) {
    Resources allocatable = node.allocatable();
    Resources nonZero = node.nonZeroRequested().plus(pod.nonZeroRequests());
    long storage = node.requested().ephemeralStorage() + pod.requests().ephemeralStorage();
    long sum = 0;
    long weights = 0;
    for (ResourceWeight r : resources) {
      long capacity;
      long requested;
      // The name is one of cpu, memory, ephemeral-storage (checked by ResourceWeight); its first
      // letter tells them apart without hashing the string for every node scored.
      switch (r.name().charAt(0)) {
        case 'c' -> {
          capacity = allocatable.milliCpu();
          requested = nonZero.milliCpu();
        }
        case 'm' -> {
          capacity = allocatable.memory();
          requested = nonZero.memory();
        }
        default -> {
          capacity = allocatable.ephemeralStorage();
          requested = storage;
        }
      }
      if (capacity == 0) {
        continue;
      }
      long s = resourceScore(requested, capacity);
      if (type == Type.RequestedToCapacityRatio && s <= 0) {
        continue;
      }
      sum += s * r.weight();
      weights += r.weight();
    }
    if (weights == 0) {
      return 0;
    }
    return type == Type.RequestedToCapacityRatio
        ? Math.round((double) sum / (double) weights)
        : sum / weights;
  }

  private long resourceScore(long requested, long capacity) {
    return switch (type) {
      case LeastAllocated ->
          requested > capacity ? 0 : scaled(capacity - requested, capacity, Score.MAX_NODE_SCORE);
      case MostAllocated -> scaled(Math.min(requested, capacity), capacity, Score.MAX_NODE_SCORE);
      case RequestedToCapacityRatio ->
          brokenLine(
              requested > capacity
                  ? MAX_UTILIZATION
                  : scaled(Math.max(requested, 0), capacity, MAX_UTILIZATION));
    };
  }

  /** {@code value * max / capacity}, exact unless the product would overflow (exabyte nodes). */
  private static long scaled(long value, long capacity, long max) {
    return value <= Long.MAX_VALUE / max
        ? value * max / capacity
        : (long) ((double) value * max / capacity);
  }

  /** kube-scheduler's {@code helper.BuildBrokenLinearFunction}, with scores scaled to 0..100. */
  private long brokenLine(long utilization) {
    long scale = Score.MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
    for (int i = 0; i < shape.size(); i++) {
      ShapePoint p = shape.get(i);
      if (utilization <= p.utilization()) {
        if (i == 0) {
          return p.score() * scale;
        }
        ShapePoint q = shape.get(i - 1);
        return q.score() * scale
            + (p.score() - q.score())
                * scale
                * (utilization - q.utilization())
                / (p.utilization() - q.utilization());
      }
    }
    return shape.get(shape.size() - 1).score() * scale;
  }

  private static void validateShape(List<ShapePoint> shape) {
    if (shape.isEmpty()) {
      throw new IllegalArgumentException(
          "requestedToCapacityRatio.shape: at least one point must be specified");
    }
    for (int i = 0; i < shape.size(); i++) {
      ShapePoint p = shape.get(i);
      if (p.utilization() < 0 || p.utilization() > MAX_UTILIZATION) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "requestedToCapacityRatio.shape[%d].utilization not in valid range [0, 100], got"
                    + " %d",
                i,
                p.utilization()));
      }
      if (i > 0 && p.utilization() <= shape.get(i - 1).utilization()) {
        throw new IllegalArgumentException(
            "requestedToCapacityRatio.shape: utilization values must be sorted in increasing"
                + " order");
      }
      if (p.score() < 0 || p.score() > MAX_CUSTOM_PRIORITY_SCORE) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "requestedToCapacityRatio.shape[%d].score not in valid range [0, 10], got %d",
                i,
                p.score()));
      }
    }
  }
}
