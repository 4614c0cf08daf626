package io.streamplane.gateway.eviction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.NodeRestriction;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.gateway.storage.Written;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code POST /api/v1/namespaces/{ns}/pods/{name}/eviction}: a policy/v1 Eviction carried out as
 * {@link EvictionDecision} decides, through the registry's own reads and writes (consistent reads;
 * the budget's status written with its resourceVersion as precondition, read and decided again on a
 * conflict, as kube-apiserver's {@code RetryOnConflict}). Answers {@code Status Success} (201).
 *
 * <p>A dry run (the request's {@code dryRun=All} or the eviction's {@code deleteOptions.dryRun})
 * decides the same, writes no budget and deletes the pod as a dry run. Limits: the budget's status
 * is written as the user who evicts, where kube-apiserver writes it with its loopback client.
 */
public final class PodEviction {

  /** kube-apiserver's {@code EvictionsRetry}: five tries. */
  private static final int ATTEMPTS = 5;

  private final ResourceService service;
  private final ResourceType pods;
  private final ResourceType budgets;
  private final Clock clock;

  public PodEviction(ResourceService service, ResourceRegistry registry, Clock clock) {
    this.service = service;
    this.pods = registry.served("", "v1", "pods").orElseThrow();
    this.budgets = registry.served("policy", "v1", "poddisruptionbudgets").orElseThrow();
    this.clock = clock;
  }

  public Written evict(String namespace, String name, ObjectNode eviction, WriteOptions options) {
    String named = eviction.path("metadata").path("name").asText("");
    if (!named.equals(name)) {
      throw new ApiException(
          Statuses.badRequest("name in URL does not match name in Eviction object"));
    }
    JsonNode requested = eviction.path("deleteOptions");
    ObjectNode deleteOptions =
        requested.isObject()
            ? ((ObjectNode) requested).deepCopy()
            : JsonNodeFactory.instance.objectNode();
    if (deleteOptions.path("dryRun").toString().contains("All")) {
      options = options.withDryRun();
    }
    boolean dryRun = options.dryRun();
    for (int attempt = 1; ; attempt++) {
      ObjectNode pod = service.get(pods, namespace, name);
      String node = NodeRestriction.nodeName(options.actor());
      if (node != null && !node.equals(pod.at("/spec/nodeName").asText(""))) {
        // NodeRestriction's rule for evictions, before any budget is spent.
        throw new ApiException(
            Statuses.forbidden(
                "",
                "pods",
                name,
                "node \"" + node + "\" can only evict pods with spec.nodeName set to itself"));
      }
      EvictionDecision.Outcome outcome =
          EvictionDecision.decide(pod, budgetsOf(namespace), clock.instant());
      try {
        if (outcome instanceof EvictionDecision.Refuse r) {
          throw new ApiException(r.status());
        } else if (outcome instanceof EvictionDecision.Delete d) {
          delete(namespace, name, pod, d.preconditions(), deleteOptions, options);
        } else if (outcome instanceof EvictionDecision.SpendBudget s && !dryRun) {
          String budget = s.budget().path("metadata").path("name").asText();
          service.updateStatus(budgets, namespace, budget, s.budget(), options);
        }
      } catch (ApiException e) {
        if (e.code() != 409 || attempt >= ATTEMPTS) {
          throw e;
        }
        continue;
      }
      if (outcome instanceof EvictionDecision.SpendBudget) {
        // The budget is spent: a failed deletion now is the client's to retry, not ours.
        delete(namespace, name, pod, false, deleteOptions, options);
      }
      return new Written(201, success(), List.of());
    }
  }

  private void delete(
      String namespace,
      String name,
      ObjectNode pod,
      boolean preconditions,
      ObjectNode deleteOptions,
      WriteOptions options) {
    ObjectNode delete = deleteOptions.deepCopy();
    if (preconditions && !delete.has("preconditions")) {
      JsonNode meta = pod.path("metadata");
      delete
          .putObject("preconditions")
          .put("uid", meta.path("uid").asText())
          .put("resourceVersion", meta.path("resourceVersion").asText());
    }
    service.delete(pods, namespace, name, delete, options);
  }

  private List<ObjectNode> budgetsOf(String namespace) {
    ObjectNode list =
        service.list(
            budgets,
            namespace,
            Selectors.LabelSelector.everything(),
            Selectors.parseFields(null, budgets),
            0,
            null,
            null);
    List<ObjectNode> items = new ArrayList<>();
    list.path("items").forEach(i -> items.add((ObjectNode) i));
    return items;
  }

  private static ObjectNode success() {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", "Success");
    status.put("code", 201);
    return status;
  }
}
