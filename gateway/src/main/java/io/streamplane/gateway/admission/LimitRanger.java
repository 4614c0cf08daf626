package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubernetes.client.custom.Quantity;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.core.PodQuota;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * kube-apiserver's LimitRanger plugin (plugin/pkg/admission/limitranger), for pods created in a
 * namespace with LimitRange objects:
 *
 * <ul>
 *   <li>mutating: each container and init container gets the {@code Container} items' {@code
 *       default} limits and {@code defaultRequest} requests it does not set itself, and the pod the
 *       annotation {@code kubernetes.io/limit-ranger} saying what was set ("LimitRanger plugin set:
 *       cpu request for container app; cpu limit for container app");
 *   <li>validating: every {@code Container} item's {@code min}, {@code max} and {@code
 *       maxLimitRequestRatio} against each container, every {@code Pod} item's against the pod's
 *       total (containers summed, init containers at their largest), refused 403 with Kubernetes'
 *       messages ("maximum cpu usage per Container is 1, but limit is 2"), several as one list.
 * </ul>
 *
 * <p>Limits: PersistentVolumeClaim items are not checked (claims are not served). Updates of pods
 * are not checked, as in Kubernetes (their containers' resources cannot change).
 */
public final class LimitRanger implements MutatingAdmission, ValidatingAdmission {

  static final String ANNOTATION = "kubernetes.io/limit-ranger";

  private final ClusterObjects objects;

  public LimitRanger(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (!applies(request)) {
      return;
    }
    for (ObjectNode range : objects.list("", "limitranges", request.namespace())) {
      defaults(request.object(), range);
    }
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (!applies(request)) {
      return;
    }
    List<String> errors = new ArrayList<>();
    for (ObjectNode range : objects.list("", "limitranges", request.namespace())) {
      errors.addAll(violations(request.object(), range));
    }
    if (!errors.isEmpty()) {
      List<String> distinct = new ArrayList<>(new java.util.LinkedHashSet<>(errors));
      throw new ApiException(
          Statuses.forbidden(
              request.type().group(),
              request.type().plural(),
              request.name(),
              distinct.size() == 1 ? distinct.get(0) : "[" + String.join(", ", distinct) + "]"));
    }
  }

  private static boolean applies(AdmissionRequest request) {
    return request.operation() == Operation.CREATE
        && request.type().group().isEmpty()
        && request.type().plural().equals("pods")
        && request.subresource().isEmpty()
        && request.object() != null
        && !request.object().path("metadata").has("deletionTimestamp");
  }

  /** Kubernetes' mergePodResourceRequirements with one LimitRange's container defaults. */
  static void defaults(ObjectNode pod, JsonNode range) {
    Map<String, JsonNode> limits = new LinkedHashMap<>();
    Map<String, JsonNode> requests = new LinkedHashMap<>();
    for (JsonNode item : range.path("spec").path("limits")) {
      if (item.path("type").asText("").equals("Container")) {
        item.path("defaultRequest")
            .fields()
            .forEachRemaining(e -> requests.put(e.getKey(), e.getValue()));
        item.path("default").fields().forEachRemaining(e -> limits.put(e.getKey(), e.getValue()));
      }
    }
    if (limits.isEmpty() && requests.isEmpty()) {
      return;
    }
    List<String> set = new ArrayList<>();
    ObjectNode spec = pod.with("spec");
    merge(spec.path("containers"), "container", limits, requests, set);
    merge(spec.path("initContainers"), "init container", limits, requests, set);
    if (!set.isEmpty()) {
      pod.with("metadata")
          .with("annotations")
          .put(ANNOTATION, "LimitRanger plugin set: " + String.join("; ", set));
    }
  }

  private static void merge(
      JsonNode containers,
      String prefix,
      Map<String, JsonNode> limits,
      Map<String, JsonNode> requests,
      List<String> set) {
    for (JsonNode node : containers) {
      if (!(node instanceof ObjectNode container)) {
        continue;
      }
      ObjectNode resources = container.with("resources");
      ObjectNode ownLimits = resources.with("limits");
      ObjectNode ownRequests = resources.with("requests");
      TreeSet<String> setLimits = new TreeSet<>();
      TreeSet<String> setRequests = new TreeSet<>();
      limits.forEach(
          (k, v) -> {
            if (!ownLimits.has(k)) {
              ownLimits.set(k, v.deepCopy());
              setLimits.add(k);
            }
          });
      requests.forEach(
          (k, v) -> {
            if (!ownRequests.has(k)) {
              ownRequests.set(k, v.deepCopy());
              setRequests.add(k);
            }
          });
      if (ownLimits.isEmpty()) {
        resources.remove("limits");
      }
      if (ownRequests.isEmpty()) {
        resources.remove("requests");
      }
      String name = container.path("name").asText("");
      if (!setRequests.isEmpty()) {
        set.add(String.join(", ", setRequests) + " request for " + prefix + " " + name);
      }
      if (!setLimits.isEmpty()) {
        set.add(String.join(", ", setLimits) + " limit for " + prefix + " " + name);
      }
    }
  }

  /** Kubernetes' PodValidateLimitFunc against one LimitRange: the messages of what it breaks. */
  static List<String> violations(JsonNode pod, JsonNode range) {
    List<String> errors = new ArrayList<>();
    JsonNode spec = pod.path("spec");
    for (JsonNode item : range.path("spec").path("limits")) {
      String type = item.path("type").asText("");
      if (type.equals("Container")) {
        for (String list : new String[] {"containers", "initContainers"}) {
          for (JsonNode container : spec.path(list)) {
            check(
                item,
                type,
                ResourceLists.of(container.path("resources").path("requests")),
                ResourceLists.of(container.path("resources").path("limits")),
                errors);
          }
        }
      } else if (type.equals("Pod")) {
        check(item, type, PodQuota.total(spec, "requests"), PodQuota.total(spec, "limits"), errors);
      }
    }
    return errors;
  }

  private static void check(
      JsonNode item,
      String type,
      Map<String, BigDecimal> requests,
      Map<String, BigDecimal> limits,
      List<String> errors) {
    item.path("min")
        .fields()
        .forEachRemaining(
            e -> {
              String resource = e.getKey();
              String enforcedText = e.getValue().asText("");
              BigDecimal enforced = ResourceLists.parse(enforcedText);
              if (enforced == null) {
                return;
              }
              BigDecimal request = requests.get(resource);
              BigDecimal limit = limits.get(resource);
              String prefix =
                  "minimum " + resource + " usage per " + type + " is " + text(enforcedText);
              if (request == null) {
                errors.add(prefix + ".  No request is specified");
              } else if (request.compareTo(enforced) < 0) {
                errors.add(prefix + ", but request is " + ResourceLists.format(resource, request));
              } else if (limit != null && limit.compareTo(enforced) < 0) {
                errors.add(prefix + ", but limit is " + ResourceLists.format(resource, limit));
              }
            });
    item.path("max")
        .fields()
        .forEachRemaining(
            e -> {
              String resource = e.getKey();
              String enforcedText = e.getValue().asText("");
              BigDecimal enforced = ResourceLists.parse(enforcedText);
              if (enforced == null) {
                return;
              }
              BigDecimal request = requests.get(resource);
              BigDecimal limit = limits.get(resource);
              String prefix =
                  "maximum " + resource + " usage per " + type + " is " + text(enforcedText);
              if (limit == null) {
                errors.add(prefix + ".  No limit is specified");
              } else if (limit.compareTo(enforced) > 0) {
                errors.add(prefix + ", but limit is " + ResourceLists.format(resource, limit));
              } else if (request != null && request.compareTo(enforced) > 0) {
                errors.add(prefix + ", but request is " + ResourceLists.format(resource, request));
              }
            });
    item.path("maxLimitRequestRatio")
        .fields()
        .forEachRemaining(
            e -> {
              String resource = e.getKey();
              String enforcedText = e.getValue().asText("");
              BigDecimal enforced = ResourceLists.parse(enforcedText);
              if (enforced == null) {
                return;
              }
              BigDecimal request = requests.get(resource);
              BigDecimal limit = limits.get(resource);
              String prefix =
                  resource
                      + " max limit to request ratio per "
                      + type
                      + " is "
                      + text(enforcedText);
              if (request == null || request.signum() == 0) {
                errors.add(prefix + ", but no request is specified or request is 0");
              } else if (limit == null || limit.signum() == 0) {
                errors.add(prefix + ", but no limit is specified or limit is 0");
              } else {
                double ratio = limit.doubleValue() / request.doubleValue();
                if (limit.compareTo(request.multiply(enforced)) > 0) {
                  errors.add(
                      prefix
                          + ", but provided ratio is "
                          + String.format(Locale.ROOT, "%f", ratio));
                }
              }
            });
  }

  /** A quantity as Kubernetes' {@code Quantity.String()} prints it: in the format it was given. */
  private static String text(String quantity) {
    try {
      return Quantity.fromString(quantity).toSuffixedString();
    } catch (RuntimeException e) {
      return quantity;
    }
  }
}
