package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.QuotaUsage;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.cache.WatchEvent;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.kinds.ResourceType;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * kube-controller-manager's ResourceQuota controller, for one namespace at a time: each quota's
 * {@code status.hard} is its {@code spec.hard} and its {@code status.used} what the namespace's
 * objects in the gateway's cache use of each resource ({@link QuotaUsage}; resources of kinds
 * Streamplane does not serve use 0). The status is written, conditioned on the quota's
 * resourceVersion, only when it differs; a conflict (the admission charged the quota meanwhile) is
 * tried again on the next sync with the quota as it then is.
 */
final class ResourceQuotaController {

  private final WatchCache cache;
  private final ResourceService service;
  private final ResourceType quotas;
  private final List<ResourceType> counted;
  private final WriteOptions options;
  private final Clock clock;

  ResourceQuotaController(
      WatchCache cache,
      ResourceService service,
      ResourceType quotas,
      List<ResourceType> counted,
      WriteOptions options,
      Clock clock) {
    this.cache = cache;
    this.service = service;
    this.quotas = quotas;
    this.counted = counted;
    this.options = options;
    this.clock = clock;
  }

  /**
   * Whether a change of a quota asks for its usage to be worked out: a new quota, or one whose
   * {@code spec.hard} is not yet its {@code status.hard}. A change of its usage alone does not (as
   * in kube-controller-manager): the admission charges usage ahead of the objects reaching the
   * cache, and counting then would undo the charge and let the next object past the limit.
   */
  static boolean needsSync(WatchEvent change) {
    JsonNode quota = change.object();
    return change.type().equals("ADDED")
        || !quota.path("spec").path("hard").equals(quota.path("status").path("hard"));
  }

  /**
   * Whether a change of a counted object may free quota (kube-controller-manager's replenishment):
   * a delete. New objects were charged by the admission.
   */
  static boolean releases(WatchEvent change) {
    return change.type().equals("DELETED");
  }

  /** Whether a change of a pod may free quota: a delete, or the pod reached Succeeded or Failed. */
  static boolean podReleases(WatchEvent change) {
    String phase = change.object().path("status").path("phase").asText("");
    return releases(change) || phase.equals("Succeeded") || phase.equals("Failed");
  }

  void sync(String namespace) {
    ApiException failed = null;
    for (ObjectNode quota : cache.list("", "resourcequotas", namespace, o -> true).items()) {
      ObjectNode status = status(namespace, quota.path("spec").path("hard"));
      if (status.equals(quota.path("status"))) {
        continue;
      }
      ObjectNode updated = quota.deepCopy();
      updated.set("status", status);
      try {
        service.updateStatus(
            quotas, namespace, quota.path("metadata").path("name").asText(), updated, options);
      } catch (ApiException e) {
        if (e.code() != 404) {
          failed = e;
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** The status a quota with these hard limits has in the namespace as the cache holds it. */
  ObjectNode status(String namespace, JsonNode hard) {
    ObjectNode status = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    if (!hard.isObject() || hard.isEmpty()) {
      return status;
    }
    status.set("hard", hard.deepCopy());
    TreeMap<String, BigDecimal> used = new TreeMap<>();
    hard.fieldNames().forEachRemaining(resource -> used.put(resource, BigDecimal.ZERO));
    for (ResourceType type : counted) {
      boolean relevant = used.keySet().stream().anyMatch(r -> QuotaUsage.matches(type, r));
      if (!relevant) {
        continue;
      }
      for (ObjectNode object :
          cache.list(type.group(), type.plural(), namespace, o -> true).items()) {
        Map<String, BigDecimal> usage = QuotaUsage.of(type, object, clock.instant());
        usage.forEach(
            (resource, value) -> {
              if (used.containsKey(resource)) {
                used.merge(resource, value, BigDecimal::add);
              }
            });
      }
    }
    ObjectNode usedNode = status.putObject("used");
    used.forEach((resource, value) -> usedNode.put(resource, QuotaUsage.format(resource, value)));
    return status;
  }
}
