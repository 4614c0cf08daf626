package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.patch.JsonPatch;
import io.streamplane.gateway.patch.PatchException;
import io.streamplane.gateway.webhook.WebhookClient;
import io.streamplane.gateway.webhook.WebhookClient.CallFailure;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.io.IOException;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;

/**
 * kube-apiserver's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: every webhook
 * of every {@code MutatingWebhookConfiguration} (or {@code ValidatingWebhookConfiguration}) of
 * admissionregistration.k8s.io/v1, configurations by name and webhooks in order, whose {@code
 * rules} (operations, apiGroups, apiVersions, resources with subresources, scope), {@code
 * namespaceSelector} and {@code objectSelector} match the write is sent an {@code AdmissionReview}
 * of admission.k8s.io/v1 through the {@link WebhookClient} (HTTPS, the configuration's {@code
 * caBundle}), within {@code timeoutSeconds} (10 by default).
 *
 * <ul>
 *   <li>a response with {@code allowed: false} refuses the write with its Status, its message
 *       prefixed {@code admission webhook "name" denied the request: } (code 400 at least);
 *   <li>a mutating webhook's {@code patch} (base64 of a JSON Patch, {@code patchType: JSONPatch})
 *       is applied to the object;
 *   <li>a webhook that cannot be called, answers badly or too late is ignored when its {@code
 *       failurePolicy} is {@code Ignore}, and otherwise (Fail, the default) refuses the write with
 *       500 {@code Internal error occurred: failed calling webhook "name": ...};
 *   <li>a dry run is sent only to webhooks whose {@code sideEffects} is {@code None} or {@code
 *       NoneOnDryRun}; for another it is 400 {@code admission webhook "name" does not support dry
 *       run}.
 * </ul>
 *
 * <p>Limits: no reinvocation ({@code reinvocationPolicy: IfNeeded} is treated as Never), no {@code
 * matchConditions}, {@code matchPolicy} is always Equivalent to the request's own version, and
 * validating webhooks are called one after another rather than at once.
 */
public final class Webhooks implements MutatingAdmission, ValidatingAdmission {

  private static final String GROUP = "admissionregistration.k8s.io";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int DEFAULT_TIMEOUT_SECONDS = 10;

  private final ClusterObjects objects;
  private final boolean mutatingPlugin;
  private final WebhookClient client = new WebhookClient();

  private Webhooks(ClusterObjects objects, boolean mutatingPlugin) {
    this.objects = objects;
    this.mutatingPlugin = mutatingPlugin;
  }

  /** The MutatingAdmissionWebhook plugin. */
  public static Webhooks mutating(ClusterObjects objects) {
    return new Webhooks(objects, true);
  }

  /** The ValidatingAdmissionWebhook plugin. */
  public static Webhooks validating(ClusterObjects objects) {
    return new Webhooks(objects, false);
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (mutatingPlugin) {
      dispatch(request, "mutatingwebhookconfigurations");
    }
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (!mutatingPlugin) {
      dispatch(request, "validatingwebhookconfigurations");
    }
  }

  private void dispatch(AdmissionRequest request, String configurations) {
    // The configurations themselves are never sent to webhooks, so a broken webhook cannot lock
    // the cluster out of fixing it (kube-apiserver's IsExemptAdmissionConfigurationResource).
    if (request.type().group().equals(GROUP)) {
      return;
    }
    for (ObjectNode configuration : objects.list(GROUP, configurations, null)) {
      for (JsonNode webhook : configuration.path("webhooks")) {
        if (matches(webhook, request)) {
          call(webhook, request);
        }
      }
    }
  }

  // ---------------------------------------------------------------- matching

  boolean matches(JsonNode webhook, AdmissionRequest request) {
    boolean ruleMatches = false;
    for (JsonNode rule : webhook.path("rules")) {
      ruleMatches |= ruleMatches(rule, request);
    }
    return ruleMatches
        && namespaceMatches(objects, webhook.path("namespaceSelector"), request)
        && objectMatches(webhook.path("objectSelector"), request);
  }

  static boolean ruleMatches(JsonNode rule, AdmissionRequest request) {
    ResourceType type = request.type();
    if (!listed(rule.path("operations"), request.operation().name())
        || !listed(rule.path("apiGroups"), type.group())
        || !listed(rule.path("apiVersions"), type.version())) {
      return false;
    }
    String scope = rule.path("scope").asText("*");
    if (scope.equals("Cluster") && type.namespaced()
        || scope.equals("Namespaced") && !type.namespaced()) {
      return false;
    }
    String resource =
        request.subresource().isEmpty()
            ? type.plural()
            : type.plural() + "/" + request.subresource();
    for (JsonNode listedResource : rule.path("resources")) {
      String r = listedResource.asText("");
      int slash = r.indexOf('/');
      if (r.equals("*/*") || r.equals(resource)) {
        return true;
      }
      if (slash < 0 && r.equals("*") && request.subresource().isEmpty()) {
        return true;
      }
      if (slash >= 0) {
        String main = r.substring(0, slash);
        String sub = r.substring(slash + 1);
        if ((main.equals("*") || main.equals(type.plural()))
            && (sub.equals("*")
                ? !request.subresource().isEmpty()
                : sub.equals(request.subresource()))) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean listed(JsonNode values, String value) {
    for (JsonNode v : values) {
      if (v.asText("").equals("*") || v.asText("").equals(value)) {
        return true;
      }
    }
    return false;
  }

  static boolean namespaceMatches(
      ClusterObjects objects, JsonNode selector, AdmissionRequest request) {
    if (!selector.isObject() || selector.isEmpty()) {
      return true;
    }
    Map<String, String> labels;
    if (request.type().group().isEmpty() && request.type().plural().equals("namespaces")) {
      labels =
          Selectors.labelsOf(request.object() != null ? request.object() : request.oldObject());
    } else if (!request.type().namespaced()) {
      // A cluster-scoped object is not in any namespace: the selector does not apply.
      return true;
    } else {
      labels =
          objects
              .getFresh("", "namespaces", null, request.namespace())
              .map(Selectors::labelsOf)
              .orElse(Map.of());
    }
    return Selectors.fromLabelSelector(selector).matches(labels);
  }

  static boolean objectMatches(JsonNode selector, AdmissionRequest request) {
    if (!selector.isObject() || selector.isEmpty()) {
      return true;
    }
    Selectors.LabelSelector labels = Selectors.fromLabelSelector(selector);
    return (request.object() != null && labels.matches(Selectors.labelsOf(request.object())))
        || (request.oldObject() != null && labels.matches(Selectors.labelsOf(request.oldObject())));
  }

  // ---------------------------------------------------------------- calling

  private void call(JsonNode webhook, AdmissionRequest request) {
    String name = webhook.path("name").asText("");
    boolean ignoreFailures = webhook.path("failurePolicy").asText("Fail").equals("Ignore");
    if (request.dryRun()) {
      String sideEffects = webhook.path("sideEffects").asText("");
      if (!sideEffects.equals("None") && !sideEffects.equals("NoneOnDryRun")) {
        throw new ApiException(
            Statuses.badRequest("admission webhook \"" + name + "\" does not support dry run"));
      }
    }
    String uid = UUID.randomUUID().toString();
    JsonNode response;
    try {
      response = send(webhook, review(uid, request), uid);
    } catch (CallFailure e) {
      if (ignoreFailures) {
        return;
      }
      throw new ApiException(
          Statuses.internalError("failed calling webhook \"" + name + "\": " + e.getMessage()));
    }
    if (!response.path("allowed").asBoolean(false)) {
      throw new ApiException(denied(name, response.path("status")));
    }
    if (mutatingPlugin && response.hasNonNull("patch") && request.object() != null) {
      applyPatch(name, response, request, ignoreFailures);
    }
  }

  private static void applyPatch(
      String name, JsonNode response, AdmissionRequest request, boolean ignoreFailures) {
    String patchType = response.path("patchType").asText("");
    try {
      if (!patchType.equals("JSONPatch")) {
        throw new IllegalArgumentException("unsupported patch type \"" + patchType + "\"");
      }
      JsonNode patch = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText("")));
      JsonNode patched = JsonPatch.apply(request.object().deepCopy(), patch);
      if (!(patched instanceof ObjectNode object)) {
        throw new IllegalArgumentException("the patched object is not an object");
      }
      ObjectNode target = request.object();
      target.removeAll();
      target.setAll(object);
    } catch (IOException | IllegalArgumentException | PatchException e) {
      if (ignoreFailures) {
        return;
      }
      throw new ApiException(
          Statuses.internalError("failed calling webhook \"" + name + "\": " + e.getMessage()));
    }
  }

  /** kube-apiserver's webhookerrors.ToStatusErr. */
  static ObjectNode denied(String name, JsonNode result) {
    String deniedBy = "admission webhook \"" + name + "\" denied the request";
    int code = Math.max(400, result.path("code").asInt(0));
    String message = result.path("message").asText("");
    String reason = result.path("reason").asText("");
    String text;
    if (!message.isEmpty()) {
      text = deniedBy + ": " + message;
    } else if (!reason.isEmpty()) {
      text = deniedBy + ": " + reason;
    } else {
      text = deniedBy + " without explanation";
    }
    ObjectNode status =
        Statuses.failure(
            code,
            reason,
            text,
            result.path("details") instanceof ObjectNode d ? d.deepCopy() : null);
    if (reason.isEmpty()) {
      status.remove("reason");
    }
    return status;
  }

  private ObjectNode review(String uid, AdmissionRequest request) {
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    review.set("request", requestJson(uid, request));
    return review;
  }

  /**
   * The write as admission.k8s.io/v1's {@code AdmissionRequest}: what a webhook is sent, and what
   * an admission policy's expressions see as {@code request} ({@code uid} left out when null).
   */
  static ObjectNode requestJson(String uid, AdmissionRequest request) {
    ObjectNode r = JSON.createObjectNode();
    ResourceType type = request.type();
    if (uid != null) {
      r.put("uid", uid);
    }
    ObjectNode kind = r.putObject("kind");
    kind.put("group", type.group()).put("version", type.version()).put("kind", type.kind());
    ObjectNode resource = r.putObject("resource");
    resource
        .put("group", type.group())
        .put("version", type.version())
        .put("resource", type.plural());
    if (!request.subresource().isEmpty()) {
      r.put("subResource", request.subresource());
    }
    r.set("requestKind", kind.deepCopy());
    r.set("requestResource", resource.deepCopy());
    if (!request.subresource().isEmpty()) {
      r.put("requestSubResource", request.subresource());
    }
    if (request.name() != null && !request.name().isEmpty()) {
      r.put("name", request.name());
    }
    if (request.namespace() != null && type.namespaced()) {
      r.put("namespace", request.namespace());
    }
    r.put("operation", request.operation().name());
    r.set("userInfo", userInfo(request.user()));
    r.set("object", request.object() == null ? null : request.object().deepCopy());
    r.set("oldObject", request.oldObject() == null ? null : request.oldObject().deepCopy());
    r.put("dryRun", request.dryRun());
    ObjectNode options = r.putObject("options").put("apiVersion", "meta.k8s.io/v1");
    options.put(
        "kind",
        switch (request.operation()) {
          case CREATE -> "CreateOptions";
          case UPDATE -> "UpdateOptions";
          case DELETE -> "DeleteOptions";
          case CONNECT -> "ConnectOptions";
        });
    return r;
  }

  private static ObjectNode userInfo(UserInfo user) {
    ObjectNode info = JSON.createObjectNode();
    if (user == null) {
      return info;
    }
    info.put("username", user.getUsername());
    if (user.getGroups() != null && !user.getGroups().isEmpty()) {
      ArrayNode groups = info.putArray("groups");
      user.getGroups().forEach(g -> groups.add(g.toString()));
    }
    return info;
  }

  /** Sends the review; the response part of a well-formed answer for this uid, or a failure. */
  private JsonNode send(JsonNode webhook, ObjectNode review, String uid) throws CallFailure {
    int timeout = webhook.path("timeoutSeconds").asInt(DEFAULT_TIMEOUT_SECONDS);
    JsonNode response = client.post(webhook.path("clientConfig"), timeout, review).path("response");
    if (!response.isObject()) {
      throw new CallFailure("webhook response was absent");
    }
    if (!uid.equals(response.path("uid").asText(""))) {
      throw new CallFailure(
          "expected response.uid=\"" + uid + "\", got \"" + response.path("uid").asText("") + "\"");
    }
    return response;
  }
}
