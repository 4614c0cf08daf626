package io.streamplane.gateway.eviction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * What an eviction of a pod does, decided from the pod and its namespace's PodDisruptionBudgets as
 * kube-apiserver's eviction REST decides it ({@code pkg/registry/core/pod/storage/eviction.go}):
 *
 * <ul>
 *   <li>a pod already being deleted is left to its deletion (the eviction succeeds);
 *   <li>a pod that is Pending, Succeeded or Failed, or that no budget selects, is deleted;
 *   <li>a pod two or more budgets select is a 500, which the eviction API does not support;
 *   <li>a pod that is not Ready is deleted without spending the budget when the budget says {@code
 *       AlwaysAllow}, or when it is already healthy enough ({@code currentHealthy >= desiredHealthy
 *       > 0});
 *   <li>otherwise the budget is spent: refused with 429 TooManyRequests and a {@code
 *       DisruptionBudget} cause when its status has not caught up with its generation or allows no
 *       disruption, else its {@code disruptionsAllowed} goes down by one, the pod is recorded in
 *       {@code disruptedPods} and, once that status is written, the pod is deleted.
 * </ul>
 *
 * <p>A pure function: the caller reads, writes the budget's new status with its resourceVersion as
 * precondition and decides again on a conflict.
 */
public final class EvictionDecision {

  /** kube-apiserver's {@code MaxDisruptedPodSize}. */
  static final int MAX_DISRUPTED_PODS = 2000;

  private EvictionDecision() {}

  /** One outcome of an eviction. */
  public sealed interface Outcome {}

  /** The pod is already terminating: nothing to delete, the eviction succeeds. */
  public record AlreadyTerminating() implements Outcome {}

  /**
   * Delete the pod now; {@code preconditions}: with the pod's uid and resourceVersion as
   * preconditions (where the eviction's options name none), so a pod that changed in between is a
   * conflict and not an unchecked deletion.
   */
  public record Delete(boolean preconditions) implements Outcome {}

  /** Write {@code budget} (the budget with its new status), then delete the pod. */
  public record SpendBudget(ObjectNode budget) implements Outcome {}

  /** The eviction fails with this Status. */
  public record Refuse(ObjectNode status) implements Outcome {}

  /** The outcome of evicting {@code pod} given every PodDisruptionBudget of its namespace. */
  public static Outcome decide(ObjectNode pod, List<ObjectNode> budgets, Instant now) {
    if (!pod.path("metadata").path("deletionTimestamp").isMissingNode()
        && !pod.path("metadata").path("deletionTimestamp").isNull()) {
      return new AlreadyTerminating();
    }
    String phase = pod.path("status").path("phase").asText("");
    if (phase.isEmpty()
        || phase.equals("Pending")
        || phase.equals("Succeeded")
        || phase.equals("Failed")) {
      return new Delete(true);
    }
    List<ObjectNode> matching = budgets.stream().filter(b -> selects(b, pod)).toList();
    if (matching.size() > 1) {
      return new Refuse(
          Statuses.internalError(
              "This pod has more than one PodDisruptionBudget, which the eviction subresource"
                  + " does not support."));
    }
    if (matching.isEmpty()) {
      return new Delete(false);
    }
    ObjectNode budget = matching.get(0);
    JsonNode status = budget.path("status");
    if (!ready(pod)) {
      if ("AlwaysAllow".equals(budget.path("spec").path("unhealthyPodEvictionPolicy").asText())) {
        return new Delete(true);
      }
      int desired = status.path("desiredHealthy").asInt(0);
      if (status.path("currentHealthy").asInt(0) >= desired && desired > 0) {
        return new Delete(true);
      }
    }
    return spend(pod.path("metadata").path("name").asText(), budget, now);
  }

  /** {@code checkAndDecrement}. */
  static Outcome spend(String podName, ObjectNode budget, Instant now) {
    String name = budget.path("metadata").path("name").asText();
    JsonNode status = budget.path("status");
    if (status.path("observedGeneration").asLong(0)
        < budget.path("metadata").path("generation").asLong(0)) {
      return new Refuse(
          tooManyRequests(
              10, "The disruption budget " + name + " is still being processed by the server."));
    }
    int allowed = status.path("disruptionsAllowed").asInt(0);
    if (allowed < 0) {
      return new Refuse(
          Statuses.forbidden(
              "policy", "poddisruptionbudget", name, "pdb disruptions allowed is negative"));
    }
    if (status.path("disruptedPods").size() > MAX_DISRUPTED_PODS) {
      return new Refuse(
          Statuses.forbidden(
              "policy",
              "poddisruptionbudget",
              name,
              "DisruptedPods map too big - too many evictions not confirmed by PDB controller"));
    }
    if (allowed == 0) {
      return new Refuse(
          tooManyRequests(
              0,
              "The disruption budget "
                  + name
                  + " needs "
                  + status.path("desiredHealthy").asInt(0)
                  + " healthy pods and has "
                  + status.path("currentHealthy").asInt(0)
                  + " currently"));
    }
    ObjectNode spent = budget.deepCopy();
    ObjectNode newStatus = spent.with("status");
    newStatus.put("disruptionsAllowed", allowed - 1);
    if (allowed - 1 == 0) {
      DisruptionCondition.set(newStatus, false, now);
    }
    newStatus.with("disruptedPods").put(podName, now.truncatedTo(ChronoUnit.SECONDS).toString());
    return new SpendBudget(spent);
  }

  /**
   * 429 with kube-apiserver's message and a {@code DisruptionBudget} cause; kubectl drain retries
   * on it.
   */
  static ObjectNode tooManyRequests(int retryAfterSeconds, String cause) {
    ObjectNode details = JsonNodeFactory.instance.objectNode();
    details.putArray("causes").addObject().put("reason", "DisruptionBudget").put("message", cause);
    if (retryAfterSeconds > 0) {
      details.put("retryAfterSeconds", retryAfterSeconds);
    }
    return Statuses.failure(
        429,
        "TooManyRequests",
        "Cannot evict pod as it would violate the pod's disruption budget.",
        details);
  }

  /** Whether {@code budget} selects {@code pod}: a nil or empty selector selects nothing here. */
  static boolean selects(ObjectNode budget, ObjectNode pod) {
    Selectors.LabelSelector selector =
        Selectors.fromLabelSelector(budget.path("spec").path("selector"));
    return !selector.isEverything() && selector.matches(pod);
  }

  private static boolean ready(ObjectNode pod) {
    for (JsonNode condition : pod.path("status").path("conditions")) {
      if ("Ready".equals(condition.path("type").asText())) {
        return "True".equals(condition.path("status").asText());
      }
    }
    return false;
  }
}
