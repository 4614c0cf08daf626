package io.streamplane.gateway.podautoscaler;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * kube-controller-manager's {@code normalizeDesiredReplicasWithBehaviors} and, for an autoscaler
 * without {@code spec.behavior}, {@code normalizeDesiredReplicas}: the stabilization of a
 * recommendation over the recent ones, then the limits of the scaling policies over the recent
 * scale events, then minReplicas and maxReplicas, with the reason and message of the AbleToScale
 * and ScalingLimited conditions it leads to. Pure: the recommendations and scale events of an
 * autoscaler are passed in and the ones to keep are returned.
 */
public final class ScalingBehavior {

  /** kube-controller-manager's {@code --horizontal-pod-autoscaler-downscale-stabilization}. */
  public static final Duration DEFAULT_DOWNSCALE_STABILIZATION = Duration.ofMinutes(5);

  /** A recommendation made at a time. */
  public record Recommendation(int replicas, Instant at) {}

  /** A change of the target's replicas made at a time (positive up, negative down). */
  public record ScaleEvent(int change, Instant at) {}

  /** The replicas to set and why, and the recommendations to remember. */
  public record Decision(
      int replicas,
      String ableReason,
      String ableMessage,
      boolean limited,
      String limitReason,
      String limitMessage,
      List<Recommendation> recommendations) {}

  /** One direction's rules, defaulted. */
  record Rules(int windowSeconds, String selectPolicy, List<Policy> policies) {}

  record Policy(String type, int value, int periodSeconds) {}

  private ScalingBehavior() {}

  /**
   * Normalizes {@code desired} for an autoscaler with {@code behavior} (null: none, the old
   * algorithm), its target at {@code current} replicas.
   */
  public static Decision normalize(
      JsonNode behavior,
      int min,
      int max,
      int current,
      int desired,
      List<Recommendation> recommendations,
      List<ScaleEvent> events,
      Instant now) {
    if (behavior == null || !behavior.isObject()) {
      return withoutBehavior(min, max, current, desired, recommendations, now);
    }
    Rules up = rules(behavior.path("scaleUp"), 0);
    Rules down =
        rules(behavior.path("scaleDown"), (int) DEFAULT_DOWNSCALE_STABILIZATION.toSeconds());
    // stabilizeRecommendationWithBehaviors
    int upRecommendation = desired;
    int downRecommendation = desired;
    Instant upCutoff = now.minusSeconds(up.windowSeconds());
    Instant downCutoff = now.minusSeconds(down.windowSeconds());
    int longest = Math.max(up.windowSeconds(), down.windowSeconds());
    List<Recommendation> kept = new ArrayList<>();
    for (Recommendation r : recommendations) {
      if (r.at().isAfter(upCutoff)) {
        upRecommendation = Math.min(upRecommendation, r.replicas());
      }
      if (r.at().isAfter(downCutoff)) {
        downRecommendation = Math.max(downRecommendation, r.replicas());
      }
      if (r.at().isAfter(now.minusSeconds(longest))) {
        kept.add(r);
      }
    }
    kept.add(new Recommendation(desired, now));
    int stabilized = current;
    if (stabilized < upRecommendation) {
      stabilized = upRecommendation;
    }
    if (stabilized > downRecommendation) {
      stabilized = downRecommendation;
    }
    String ableReason = "ReadyForNewScale";
    String ableMessage = "recommended size matches current size";
    if (stabilized != desired) {
      if (stabilized < desired) {
        ableReason = "ScaleUpStabilized";
        ableMessage =
            "recent recommendations were lower than current one, applying the lowest recent"
                + " recommendation";
      } else {
        ableReason = "ScaleDownStabilized";
        ableMessage =
            "recent recommendations were higher than current one, applying the highest recent"
                + " recommendation";
      }
    }
    // convertDesiredReplicasWithBehaviorRate
    int replicas = stabilized;
    String reason = "DesiredWithinRange";
    String message = "the desired count is within the acceptable range";
    if (stabilized > current) {
      int limit = Math.max(scaleUpLimit(current, events, up, now), current);
      int allowed = max;
      String r = "TooManyReplicas";
      String m = "the desired replica count is more than the maximum replica count";
      if (allowed > limit) {
        allowed = limit;
        r = "ScaleUpLimit";
        m = "the desired replica count is increasing faster than the maximum scale rate";
      }
      if (stabilized > allowed) {
        replicas = allowed;
        reason = r;
        message = m;
      }
    } else if (stabilized < current) {
      int limit = Math.min(scaleDownLimit(current, events, down, now), current);
      int allowed = min;
      String r = "TooFewReplicas";
      String m = "the desired replica count is less than the minimum replica count";
      if (allowed < limit) {
        allowed = limit;
        r = "ScaleDownLimit";
        m = "the desired replica count is decreasing faster than the maximum scale rate";
      }
      if (stabilized < allowed) {
        replicas = allowed;
        reason = r;
        message = m;
      }
    }
    return new Decision(
        replicas, ableReason, ableMessage, replicas != stabilized, reason, message, kept);
  }

  /** {@code normalizeDesiredReplicas}: 5 min down-scale stabilization, up by 2x or to 4 at most. */
  private static Decision withoutBehavior(
      int min,
      int max,
      int current,
      int desired,
      List<Recommendation> recommendations,
      Instant now) {
    Instant cutoff = now.minus(DEFAULT_DOWNSCALE_STABILIZATION);
    int stabilized = desired;
    List<Recommendation> kept = new ArrayList<>();
    for (Recommendation r : recommendations) {
      if (r.at().isAfter(cutoff)) {
        stabilized = Math.max(stabilized, r.replicas());
        kept.add(r);
      }
    }
    kept.add(new Recommendation(desired, now));
    String ableReason = "ReadyForNewScale";
    String ableMessage = "recommended size matches current size";
    if (stabilized != desired) {
      ableReason = "ScaleDownStabilized";
      ableMessage =
          "recent recommendations were higher than current one, applying the highest recent"
              + " recommendation";
    }
    int scaleUpLimit = (int) Math.max(2.0 * current, 4.0);
    int maximumAllowed = max;
    String reason = "TooManyReplicas";
    String message = "the desired replica count is more than the maximum replica count";
    if (max > scaleUpLimit) {
      maximumAllowed = scaleUpLimit;
      reason = "ScaleUpLimit";
      message = "the desired replica count is increasing faster than the maximum scale rate";
    }
    int replicas = stabilized;
    boolean limited = false;
    if (stabilized < min) {
      replicas = min;
      reason = "TooFewReplicas";
      message = "the desired replica count is less than the minimum replica count";
      limited = true;
    } else if (stabilized > maximumAllowed) {
      replicas = maximumAllowed;
      limited = true;
    } else {
      reason = "DesiredWithinRange";
      message = "the desired count is within the acceptable range";
    }
    return new Decision(replicas, ableReason, ableMessage, limited, reason, message, kept);
  }

  static Rules rules(JsonNode rules, int defaultWindow) {
    int window =
        rules.hasNonNull("stabilizationWindowSeconds")
            ? rules.get("stabilizationWindowSeconds").asInt()
            : defaultWindow;
    List<Policy> policies = new ArrayList<>();
    for (JsonNode p : rules.path("policies")) {
      policies.add(
          new Policy(
              p.path("type").asText(), p.path("value").asInt(), p.path("periodSeconds").asInt()));
    }
    return new Rules(window, rules.path("selectPolicy").asText("Max"), policies);
  }

  /** {@code calculateScaleUpLimitWithScalingRules}. */
  static int scaleUpLimit(int current, List<ScaleEvent> events, Rules rules, Instant now) {
    if (rules.selectPolicy().equals("Disabled")) {
      return current;
    }
    boolean min = rules.selectPolicy().equals("Min");
    int result = min ? Integer.MAX_VALUE : Integer.MIN_VALUE;
    for (Policy p : rules.policies()) {
      int added = change(events, now, p.periodSeconds(), true);
      int deleted = change(events, now, p.periodSeconds(), false);
      int periodStart = current - added + deleted;
      int proposed =
          p.type().equals("Pods")
              ? periodStart + p.value()
              : (int) Math.ceil(periodStart * (1 + p.value() / 100.0));
      result = min ? Math.min(result, proposed) : Math.max(result, proposed);
    }
    return result;
  }

  /** {@code calculateScaleDownLimitWithBehaviors}. */
  static int scaleDownLimit(int current, List<ScaleEvent> events, Rules rules, Instant now) {
    if (rules.selectPolicy().equals("Disabled")) {
      return current;
    }
    boolean min = rules.selectPolicy().equals("Min");
    int result = min ? Integer.MIN_VALUE : Integer.MAX_VALUE;
    for (Policy p : rules.policies()) {
      int added = change(events, now, p.periodSeconds(), true);
      int deleted = change(events, now, p.periodSeconds(), false);
      int periodStart = current + deleted - added;
      int proposed =
          p.type().equals("Pods")
              ? periodStart - p.value()
              : (int) (periodStart * (1 - p.value() / 100.0));
      result = min ? Math.max(result, proposed) : Math.min(result, proposed);
    }
    return result;
  }

  /** {@code getReplicasChangePerPeriod}: the replicas added (or removed) in the last period. */
  private static int change(List<ScaleEvent> events, Instant now, int periodSeconds, boolean up) {
    Instant cutoff = now.minusSeconds(periodSeconds);
    int sum = 0;
    for (ScaleEvent e : events) {
      if (e.at().isAfter(cutoff) && (up ? e.change() > 0 : e.change() < 0)) {
        sum += Math.abs(e.change());
      }
    }
    return sum;
  }
}
