package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Kubernetes' TaintToleration plugin.
 *
 * <p>Filter: the first {@code NoSchedule} or {@code NoExecute} taint of the node that no toleration
 * of the pod tolerates rejects the node with {@code node(s) had untolerated taint {key: value}}
 * (Kubernetes' exact format, an absent value printing as empty). Score: the number of {@code
 * PreferNoSchedule} taints the pod does not tolerate, normalized in reverse so that the node with
 * the most such taints scores 0.
 *
 * <p>Toleration matching is Kubernetes' {@code ToleratesTaint}: an empty effect matches every
 * effect, an empty key with {@code Exists} matches every taint, an empty operator means {@code
 * Equal}. {@code tolerationSeconds} matters only for eviction, not for scheduling.
 */
public final class TaintTolerationPlugin implements Filter, Score {

  public static final String NAME = "TaintToleration";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node) {
    List<Taint> taints = node.node().getSpec() == null ? null : node.node().getSpec().getTaints();
    if (taints == null) {
      return Optional.empty();
    }
    List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    for (Taint taint : taints) {
      String effect = taint.getEffect();
      if (("NoSchedule".equals(effect) || "NoExecute".equals(effect))
          && !tolerated(tolerations, taint)) {
        return Optional.of(
            Rejection.unresolvable(
                "node(s) had untolerated taint {"
                    + orEmpty(taint.getKey())
                    + ": "
                    + orEmpty(taint.getValue())
                    + "}"));
      }
    }
    return Optional.empty();
  }

  @Override
  public boolean passes(Pod pod, PodRequests requests, NodeInfo node) {
    List<Taint> taints = node.node().getSpec() == null ? null : node.node().getSpec().getTaints();
    if (taints == null) {
      return true;
    }
    List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    for (Taint taint : taints) {
      String effect = taint.getEffect();
      if (("NoSchedule".equals(effect) || "NoExecute".equals(effect))
          && !tolerated(tolerations, taint)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public long score(Pod pod, PodRequests requests, NodeInfo node) {
    List<Taint> taints = node.node().getSpec() == null ? null : node.node().getSpec().getTaints();
    if (taints == null) {
      return 0;
    }
    List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    long count = 0;
    for (Taint taint : taints) {
      if ("PreferNoSchedule".equals(taint.getEffect())
          && !toleratedBy(tolerations, taint, /* preferNoScheduleOnly= */ true)) {
        count++;
      }
    }
    return count;
  }

  @Override
  public void normalize(long[] scores) {
    Score.defaultNormalize(scores, true);
  }

  /** Whether any of the tolerations tolerates the taint (Kubernetes' TolerationsTolerateTaint). */
  public static boolean tolerated(List<Toleration> tolerations, Taint taint) {
    return toleratedBy(tolerations, taint, false);
  }

  private static boolean toleratedBy(
      List<Toleration> tolerations, Taint taint, boolean preferNoScheduleOnly) {
    if (tolerations == null) {
      return false;
    }
    for (Toleration t : tolerations) {
      String effect = orEmpty(t.getEffect());
      // Scoring considers only tolerations that can apply to PreferNoSchedule taints.
      if (preferNoScheduleOnly && !effect.isEmpty() && !effect.equals("PreferNoSchedule")) {
        continue;
      }
      if (tolerates(t, taint)) {
        return true;
      }
    }
    return false;
  }

  /** Whether one toleration tolerates the taint (Kubernetes' {@code Toleration.ToleratesTaint}). */
  public static boolean tolerates(Toleration t, Taint taint) {
    String effect = orEmpty(t.getEffect());
    if (!effect.isEmpty() && !effect.equals(orEmpty(taint.getEffect()))) {
      return false;
    }
    String key = orEmpty(t.getKey());
    if (!key.isEmpty() && !key.equals(orEmpty(taint.getKey()))) {
      return false;
    }
    return switch (orEmpty(t.getOperator())) {
      case "", "Equal" -> Objects.equals(orEmpty(t.getValue()), orEmpty(taint.getValue()));
      case "Exists" -> true;
      default -> false;
    };
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
