package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * kube-apiserver's ValidatingAdmissionPolicy plugin ({@code policy/validating}): every
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy whose {@code matchConstraints} match
 * the write, through each ValidatingAdmissionPolicyBinding naming it whose {@code matchResources}
 * (when set) match too, is evaluated ({@link PolicyEvaluation}) once per param, and what it denies
 * is acted on as the binding's {@code validationActions} say:
 *
 * <ul>
 *   <li>{@code Deny}: the first denial refuses the write, {@code deployments.apps "web" is
 *       forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied
 *       request: <message>}, with the validation's reason (Invalid, 422, by default; Forbidden 403,
 *       Unauthorized 401, RequestEntityTooLarge 413) and the message as the one cause;
 *   <li>{@code Warn}: a warning {@code Validation failed for ValidatingAdmissionPolicy 'p' with
 *       binding 'b': <message>};
 *   <li>{@code Audit}: the audit annotation {@code validation.policy.admission.k8s.io/
 *       validation_failure}, a JSON list of {@code {message, policy, binding, expressionIndex,
 *       validationActions}}.
 * </ul>
 *
 * <p>Each policy's {@code auditAnnotations} are published as {@code <policy>/<key>}. Matching is
 * the webhooks' (operations, groups, versions, resources and subresources, scope, the namespace's
 * and the object's labels) plus {@code resourceNames} and {@code excludeResourceRules}. Params: the
 * binding's {@code paramRef} names one object of the policy's {@code paramKind} or selects several
 * by label, in its {@code namespace}, else the request's when the kind is namespaced; none found is
 * a denial under {@code parameterNotFoundAction: Deny}, nothing under Allow. A policy or binding
 * that cannot be applied (an unknown paramKind, a binding without paramRef) is ignored under {@code
 * failurePolicy: Ignore}, else denies with {@code failed to configure binding: ...}. The policies
 * and bindings are never themselves checked, as in kube-apiserver, so a broken policy can always be
 * fixed.
 *
 * <p>Limits: {@code matchPolicy: Equivalent} matches the request's own group-version only (no
 * conversion to another version a rule names); param kinds are the built-in kinds; warnings are
 * found apart from the denials, by evaluating again the bindings that warn.
 */
public final class ValidatingAdmissionPolicies implements ValidatingAdmission {

  private static final String GROUP = "admissionregistration.k8s.io";
  private static final String POLICIES = "validatingadmissionpolicies";
  private static final String BINDINGS = "validatingadmissionpolicybindings";
  static final String VALIDATION_FAILURE = "validation.policy.admission.k8s.io/validation_failure";
  private static final int MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ClusterObjects objects;
  private final ResourceRegistry registry;

  public ValidatingAdmissionPolicies(ClusterObjects objects, ResourceRegistry registry) {
    this.objects = objects;
    this.registry = registry;
  }

  @Override
  public void validate(AdmissionRequest request) {
    ObjectNode denied = null;
    boolean audited = false;
    for (Evaluated e : evaluate(request, false)) {
      if (e.actions().contains("Deny") && denied == null) {
        denied = deniedStatus(request, e);
      }
      // An audit annotation is written once: the first failure audited is the one kept.
      if (e.actions().contains("Audit") && !audited) {
        request.audit().accept(VALIDATION_FAILURE, validationFailure(e));
        audited = true;
      }
      for (PolicyEvaluation.AuditAnnotation a : e.annotations()) {
        String value = a.value();
        if (value.length() > MAX_AUDIT_ANNOTATION_VALUE_LENGTH) {
          value = value.substring(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
        }
        request.audit().accept(e.policy() + "/" + a.key(), value);
      }
    }
    if (denied != null) {
      throw new ApiException(denied);
    }
  }

  @Override
  public List<String> warnings(AdmissionRequest request) {
    List<String> warnings = new ArrayList<>();
    for (Evaluated e : evaluate(request, true)) {
      if (e.actions().contains("Warn")) {
        warnings.add(
            "Validation failed for ValidatingAdmissionPolicy '"
                + e.policy()
                + "' with binding '"
                + e.binding()
                + "': "
                + e.decision().message());
      }
    }
    return warnings;
  }

  /** A denial of one policy through one binding, with what the binding does about it. */
  record Evaluated(
      String policy,
      String binding,
      List<String> actions,
      PolicyEvaluation.Decision decision,
      List<PolicyEvaluation.AuditAnnotation> annotations) {}

  /**
   * The denials of every matching policy and binding (with the annotations of each evaluation in
   * the first entry it gives, or an entry without decision); only the bindings that warn when
   * {@code warnOnly}.
   */
  private List<Evaluated> evaluate(AdmissionRequest request, boolean warnOnly) {
    List<Evaluated> out = new ArrayList<>();
    if (request.type().group().equals(GROUP)
        && (request.type().plural().equals(POLICIES) || request.type().plural().equals(BINDINGS))) {
      return out;
    }
    List<ObjectNode> bindings = objects.list(GROUP, BINDINGS, null);
    if (bindings.isEmpty()) {
      return out;
    }
    for (ObjectNode policy : objects.list(GROUP, POLICIES, null)) {
      String policyName = policy.path("metadata").path("name").asText("");
      JsonNode spec = policy.path("spec");
      if (!matches(spec.path("matchConstraints"), request)) {
        continue;
      }
      boolean fail = !spec.path("failurePolicy").asText("Fail").equals("Ignore");
      for (ObjectNode binding : bindings) {
        JsonNode bindingSpec = binding.path("spec");
        if (!bindingSpec.path("policyName").asText("").equals(policyName)) {
          continue;
        }
        JsonNode matchResources = bindingSpec.path("matchResources");
        if (matchResources.isObject() && !matches(matchResources, request)) {
          continue;
        }
        String bindingName = binding.path("metadata").path("name").asText("");
        List<String> actions = new ArrayList<>();
        bindingSpec.path("validationActions").forEach(a -> actions.add(a.asText()));
        if (warnOnly && !actions.contains("Warn")) {
          continue;
        }
        List<JsonNode> params;
        try {
          params = params(spec.path("paramKind"), bindingSpec.path("paramRef"), request);
        } catch (ConfigurationError e) {
          if (fail) {
            out.add(
                new Evaluated(
                    policyName,
                    bindingName,
                    actions,
                    new PolicyEvaluation.Decision(
                        true, true, "failed to configure binding: " + e.getMessage(), null, 0),
                    List.of()));
          }
          continue;
        }
        PolicyEvaluation.Inputs base = inputs(request);
        for (JsonNode param : params) {
          PolicyEvaluation.Result result =
              PolicyEvaluation.evaluate(
                  policy,
                  new PolicyEvaluation.Inputs(
                      base.object(),
                      base.oldObject(),
                      base.request(),
                      param,
                      base.namespaceObject()));
          List<PolicyEvaluation.AuditAnnotation> annotations = result.auditAnnotations();
          for (PolicyEvaluation.Decision decision : result.decisions()) {
            if (decision.deny()) {
              out.add(new Evaluated(policyName, bindingName, actions, decision, annotations));
              annotations = List.of();
            }
          }
          if (!annotations.isEmpty()) {
            out.add(new Evaluated(policyName, bindingName, List.of(), null, annotations));
          }
        }
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- matching

  /** kube-apiserver's {@code matching.Matcher}: selectors, then exclusions, then rules. */
  boolean matches(JsonNode match, AdmissionRequest request) {
    if (!Webhooks.namespaceMatches(objects, match.path("namespaceSelector"), request)
        || !Webhooks.objectMatches(match.path("objectSelector"), request)) {
      return false;
    }
    // No resourceRules (a binding's matchResources may have none) constrains nothing.
    return !rulesMatch(match.path("excludeResourceRules"), request)
        && (match.path("resourceRules").isEmpty()
            || rulesMatch(match.path("resourceRules"), request));
  }

  private static boolean rulesMatch(JsonNode rules, AdmissionRequest request) {
    for (JsonNode rule : rules) {
      if (!Webhooks.ruleMatches(rule, request)) {
        continue;
      }
      JsonNode names = rule.path("resourceNames");
      if (names.isEmpty()) {
        return true;
      }
      for (JsonNode name : names) {
        if (name.asText("").equals(request.name())) {
          return true;
        }
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- params

  /** Why a binding cannot be applied, as kube-apiserver's dispatcher words it. */
  static final class ConfigurationError extends Exception {
    ConfigurationError(String message) {
      super(message);
    }
  }

  /**
   * kube-apiserver's {@code CollectParams}: one null param for a policy without paramKind, else the
   * objects the paramRef names or selects.
   */
  List<JsonNode> params(JsonNode paramKind, JsonNode paramRef, AdmissionRequest request)
      throws ConfigurationError {
    List<JsonNode> none = new ArrayList<>();
    if (!paramKind.isObject()) {
      none.add(null);
      return none;
    }
    String kindString =
        "&ParamKind{APIVersion:"
            + paramKind.path("apiVersion").asText("")
            + ",Kind:"
            + paramKind.path("kind").asText("")
            + ",}";
    if (!paramRef.isObject()) {
      throw new ConfigurationError(
          "paramKind kind `" + kindString + "` is defined but paramRef is not set in binding");
    }
    Optional<ResourceType> type =
        registry.byApiVersionKind(
            paramKind.path("apiVersion").asText(""), paramKind.path("kind").asText(""));
    if (type.isEmpty()) {
      throw new ConfigurationError("paramKind kind `" + kindString + "` not known");
    }
    String namespace = null;
    if (type.get().namespaced()) {
      namespace = paramRef.path("namespace").asText("");
      if (namespace.isEmpty()) {
        namespace = request.type().namespaced() ? request.namespace() : "";
      }
      if (namespace == null || namespace.isEmpty()) {
        throw new ConfigurationError(
            "cannot use namespaced paramRef in policy binding that matches cluster-scoped"
                + " resources");
      }
    }
    List<JsonNode> params = new ArrayList<>();
    String name = paramRef.path("name").asText("");
    if (!name.isEmpty()) {
      objects.get(type.get().group(), type.get().plural(), namespace, name).ifPresent(params::add);
    } else if (paramRef.path("selector").isObject()) {
      Selectors.LabelSelector selector = Selectors.fromLabelSelector(paramRef.path("selector"));
      for (ObjectNode candidate :
          objects.list(type.get().group(), type.get().plural(), namespace)) {
        if (selector.matches(Selectors.labelsOf(candidate))) {
          params.add(candidate);
        }
      }
    }
    if (params.isEmpty() && paramRef.path("parameterNotFoundAction").asText("").equals("Deny")) {
      throw new ConfigurationError(
          "no params found for policy binding with `Deny` parameterNotFoundAction");
    }
    return params;
  }

  // ---------------------------------------------------------------- inputs and answers

  /** The CEL inputs of the write, without params. */
  PolicyEvaluation.Inputs inputs(AdmissionRequest request) {
    JsonNode namespaceObject = null;
    if (request.type().namespaced() && request.namespace() != null) {
      namespaceObject =
          objects
              .get("", "namespaces", null, request.namespace())
              .map(
                  ns -> {
                    ObjectNode copy = ns.deepCopy();
                    copy.with("metadata").remove("managedFields");
                    return (JsonNode) copy;
                  })
              .orElse(null);
    }
    return new PolicyEvaluation.Inputs(
        request.object(),
        request.oldObject(),
        Webhooks.requestJson(null, request),
        null,
        namespaceObject);
  }

  /** kube-apiserver's answer to the first denial. */
  static ObjectNode deniedStatus(AdmissionRequest request, Evaluated e) {
    String message =
        "ValidatingAdmissionPolicy '"
            + e.policy()
            + "' with binding '"
            + e.binding()
            + "' denied request: "
            + e.decision().message();
    String name = request.name() == null ? "" : request.name();
    ObjectNode status =
        Statuses.forbidden(request.type().group(), request.type().plural(), name, message);
    String reason = e.decision().reason() == null ? "Invalid" : e.decision().reason();
    status.put("reason", reason);
    status.put(
        "code",
        switch (reason) {
          case "Forbidden" -> 403;
          case "Unauthorized" -> 401;
          case "RequestEntityTooLarge" -> 413;
          default -> 422;
        });
    ArrayNode causes = status.with("details").putArray("causes");
    causes.addObject().put("message", message);
    return status;
  }

  /** The value of the validation-failure audit annotation for one denial. */
  static String validationFailure(Evaluated e) {
    ArrayNode list = JSON.createArrayNode();
    ObjectNode failure = list.addObject();
    failure.put("message", e.decision().message());
    failure.put("policy", e.policy());
    failure.put("binding", e.binding());
    failure.put("expressionIndex", e.decision().index());
    ArrayNode actions = failure.putArray("validationActions");
    e.actions().forEach(actions::add);
    return list.toString();
  }
}
