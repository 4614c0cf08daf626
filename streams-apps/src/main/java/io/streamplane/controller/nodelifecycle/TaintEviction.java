package io.streamplane.controller.nodelifecycle;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import io.streamplane.scheduler.framework.TaintTolerationPlugin;
import io.streamplane.schema.objects.PodEvents;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Kubernetes' taint-eviction controller (the NoExecute taint manager) as pure functions: when a pod
 * on a node with NoExecute taints must go.
 *
 * <p>For each NoExecute taint the first toleration of the pod that tolerates it decides: none means
 * the pod goes at once; one without {@code tolerationSeconds} means this taint never evicts it; one
 * with {@code tolerationSeconds} means it goes at the taint's {@code timeAdded} plus those seconds
 * (zero or less: at once). The pod goes at the earliest of these times, and never if every taint is
 * tolerated forever.
 *
 * <p>Kubernetes' DefaultTolerationSeconds admission plugin gives every pod that does not already
 * tolerate them tolerations of {@code node.kubernetes.io/not-ready} and {@code
 * node.kubernetes.io/unreachable} (NoExecute, 300 s). Streamplane has no such admission plugin, so
 * the same tolerations are assumed here instead, with the same rule for "already tolerates": a
 * toleration whose key is that taint's or empty, and whose effect is NoExecute or empty.
 */
public final class TaintEviction {

  public static final String NOT_READY = "node.kubernetes.io/not-ready";
  public static final String UNREACHABLE = "node.kubernetes.io/unreachable";
  public static final String NO_EXECUTE = "NoExecute";
  static final String COMPONENT = "taint-eviction-controller";

  private TaintEviction() {}

  /**
   * When the pod must be evicted from a node with these NoExecute taints: empty for never, {@link
   * Instant#MIN} for at once. {@code addedAt} gives each taint's time (its {@code timeAdded}, or
   * when the controller first saw it).
   */
  public static Optional<Instant> evictAt(
      Pod pod,
      List<Taint> noExecuteTaints,
      Function<Taint, Instant> addedAt,
      long defaultTolerationSeconds) {
    List<Toleration> tolerations = withDefaults(pod, defaultTolerationSeconds);
    Instant earliest = null;
    for (Taint taint : noExecuteTaints) {
      Toleration matching =
          tolerations.stream()
              .filter(t -> TaintTolerationPlugin.tolerates(t, taint))
              .findFirst()
              .orElse(null);
      Instant deadline;
      if (matching == null) {
        deadline = Instant.MIN;
      } else if (matching.getTolerationSeconds() == null) {
        continue;
      } else {
        deadline = addedAt.apply(taint).plusSeconds(Math.max(0, matching.getTolerationSeconds()));
      }
      if (earliest == null || deadline.isBefore(earliest)) {
        earliest = deadline;
      }
    }
    return Optional.ofNullable(earliest);
  }

  /** The pod's tolerations plus those DefaultTolerationSeconds admission would have added. */
  static List<Toleration> withDefaults(Pod pod, long defaultTolerationSeconds) {
    List<Toleration> own =
        pod.getSpec() == null || pod.getSpec().getTolerations() == null
            ? List.of()
            : pod.getSpec().getTolerations();
    List<Toleration> all = new ArrayList<>(own);
    for (String key : List.of(NOT_READY, UNREACHABLE)) {
      boolean tolerated =
          own.stream()
              .anyMatch(
                  t ->
                      (t.getKey() == null || t.getKey().isEmpty() || key.equals(t.getKey()))
                          && (t.getEffect() == null
                              || t.getEffect().isEmpty()
                              || NO_EXECUTE.equals(t.getEffect())));
      if (!tolerated) {
        all.add(
            Toleration.newBuilder()
                .setKey(key)
                .setOperator("Exists")
                .setEffect(NO_EXECUTE)
                .setTolerationSeconds(defaultTolerationSeconds)
                .build());
      }
    }
    return all;
  }

  /**
   * The Event Kubernetes records on an eviction ({@code TaintManagerEviction}, "Marking for
   * deletion Pod ns/name"), named from the pod's uid so that deciding the eviction twice records it
   * once.
   */
  static Event evictionEvent(Pod pod, Instant now) {
    ObjectMeta meta = pod.getMetadata();
    return PodEvents.about(
        pod,
        EventSource.newBuilder().setComponent(COMPONENT).build(),
        "Normal",
        "TaintManagerEviction",
        "Marking for deletion Pod " + meta.getNamespace() + "/" + meta.getName(),
        now,
        "TaintManagerEviction/" + meta.getUid());
  }
}
