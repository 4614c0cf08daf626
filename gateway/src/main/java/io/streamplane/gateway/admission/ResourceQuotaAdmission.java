package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * kube-apiserver's ResourceQuota plugin (plugin/pkg/admission/resourcequota), for objects created
 * in a namespace with ResourceQuota objects. For every quota whose {@code status.hard} names a
 * resource the object uses ({@link QuotaUsage}):
 *
 * <ul>
 *   <li>a quota whose controller has not yet written its usage is 403 {@code status unknown for
 *       quota: q, resources: pods};
 *   <li>a pod that leaves undeclared a compute resource the quota limits is 403 {@code failed
 *       quota: q: must specify limits.cpu for: app};
 *   <li>usage beyond {@code hard} is 403 {@code exceeded quota: q, requested: pods=1, used: pods=2,
 *       limited: pods=2};
 *   <li>otherwise the quota is charged: its {@code status.used} is written with the new usage,
 *       conditioned on the quota's resourceVersion, before the object is stored; when another write
 *       changed the quota first (another gateway admitting into the same quota), the quota is read
 *       again and checked again, so two gateways cannot both admit the last slot.
 * </ul>
 *
 * <p>A dry run is checked but charges nothing. Limits: quota scopes and scope selectors are not
 * applied (every quota counts every object); only creates are charged (the resources of objects
 * Streamplane serves do not change on update). Usage is brought back to what the objects use by the
 * quota controller, which also undoes a charge whose object then failed to be stored.
 */
public final class ResourceQuotaAdmission implements ValidatingAdmission {

  private static final int CHARGE_ATTEMPTS = 10;

  private final ClusterObjects objects;
  private final SystemWrites writer;
  private final Clock clock;

  public ResourceQuotaAdmission(ClusterObjects objects, SystemWrites writer, Clock clock) {
    this.objects = objects;
    this.writer = writer;
    this.clock = clock;
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (request.operation() != Operation.CREATE
        || !request.subresource().isEmpty()
        || !request.type().namespaced()
        || request.namespace() == null
        || request.object() == null) {
      return;
    }
    TreeMap<String, BigDecimal> delta =
        QuotaUsage.of(request.type(), request.object(), clock.instant());
    List<ObjectNode> quotas = objects.list("", "resourcequotas", request.namespace());
    List<String> charged = new ArrayList<>();
    for (ObjectNode quota : quotas) {
      if (check(request, quota, delta) != null) {
        charged.add(quota.path("metadata").path("name").asText());
      }
    }
    if (request.dryRun()) {
      return;
    }
    for (String name : charged) {
      charge(request, name, delta);
    }
  }

  /** Charges one quota, reading it again after each conflicting write. */
  private void charge(AdmissionRequest request, String name, TreeMap<String, BigDecimal> delta) {
    ObjectNode quota = objects.get("", "resourcequotas", request.namespace(), name).orElse(null);
    for (int attempt = 1; quota != null; attempt++) {
      ObjectNode charged = check(request, quota, delta);
      if (charged == null) {
        return;
      }
      try {
        writer.writeStatus("", "resourcequotas", request.namespace(), charged);
        return;
      } catch (ApiException e) {
        if (e.code() != 409 || attempt >= CHARGE_ATTEMPTS) {
          throw e;
        }
      }
      objects.catchUp();
      quota = objects.get("", "resourcequotas", request.namespace(), name).orElse(null);
    }
  }

  /**
   * Checks the object against one quota: null when the quota does not limit anything it uses, else
   * the quota with its usage charged; a refusal is thrown.
   */
  ObjectNode check(AdmissionRequest request, ObjectNode quota, Map<String, BigDecimal> delta) {
    String quotaName = quota.path("metadata").path("name").asText("");
    TreeMap<String, BigDecimal> hard = ResourceLists.of(quota.path("status").path("hard"));
    TreeMap<String, BigDecimal> used = ResourceLists.of(quota.path("status").path("used"));
    TreeSet<String> restricted = new TreeSet<>();
    for (String resource : hard.keySet()) {
      if (QuotaUsage.matches(request.type(), resource)) {
        restricted.add(resource);
      }
    }
    if (restricted.isEmpty()) {
      return null;
    }
    List<String> unmet = request.type().strategy().quota().unmet(request.object(), restricted);
    if (!unmet.isEmpty()) {
      throw forbidden(
          request, "failed quota: " + quotaName + ": must specify " + String.join("; ", unmet));
    }
    for (String resource : restricted) {
      if (!used.containsKey(resource)) {
        throw forbidden(
            request,
            "status unknown for quota: "
                + quotaName
                + ", resources: "
                + String.join(",", restricted));
      }
    }
    TreeMap<String, BigDecimal> requested = new TreeMap<>();
    delta.forEach(
        (k, v) -> {
          if (hard.containsKey(k)) {
            requested.put(k, v);
          }
        });
    if (requested.isEmpty()) {
      return null;
    }
    TreeMap<String, BigDecimal> newUsage = new TreeMap<>(used);
    requested.forEach((k, v) -> newUsage.merge(k, v, BigDecimal::add));
    TreeSet<String> exceeded = new TreeSet<>();
    for (String resource : requested.keySet()) {
      if (newUsage.get(resource).compareTo(hard.get(resource)) > 0) {
        exceeded.add(resource);
      }
    }
    if (!exceeded.isEmpty()) {
      throw forbidden(
          request,
          "exceeded quota: "
              + quotaName
              + ", requested: "
              + ResourceLists.pretty(mask(requested, exceeded))
              + ", used: "
              + ResourceLists.pretty(mask(used, exceeded))
              + ", limited: "
              + ResourceLists.pretty(mask(hard, exceeded)));
    }
    ObjectNode charged = quota.deepCopy();
    ObjectNode usedNode = charged.with("status").with("used");
    newUsage.forEach(
        (k, v) -> {
          if (requested.containsKey(k)) {
            usedNode.put(k, ResourceLists.format(k, v));
          }
        });
    return charged;
  }

  private static TreeMap<String, BigDecimal> mask(Map<String, BigDecimal> list, Set<String> keys) {
    TreeMap<String, BigDecimal> masked = new TreeMap<>();
    list.forEach(
        (k, v) -> {
          if (keys.contains(k)) {
            masked.put(k, v);
          }
        });
    return masked;
  }

  private static ApiException forbidden(AdmissionRequest request, String message) {
    return new ApiException(
        Statuses.forbidden(
            request.type().group(), request.type().plural(), request.name(), message));
  }
}
