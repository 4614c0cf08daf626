package io.streamplane.gateway.authz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The authorization.k8s.io/v1 reviews, answered and never stored, as kube-apiserver's {@code
 * pkg/registry/authorization}: SelfSubjectAccessReview ({@code kubectl auth can-i}) asks for the
 * requesting user, SubjectAccessReview and LocalSubjectAccessReview (namespaced) for the user and
 * groups of their spec, SelfSubjectRulesReview ({@code kubectl auth can-i --list}) lists what the
 * requesting user may do in a namespace. The answer is the request with its {@code status}: {@code
 * allowed}, {@code denied} (an authorizer said no), {@code reason}; or for the rules review {@code
 * resourceRules}, {@code nonResourceRules}, {@code incomplete} and {@code evaluationError}.
 */
public final class AccessReviews {

  public static final String GROUP = "authorization.k8s.io";

  /** The review resources and their kinds. */
  public static final Set<String> RESOURCES =
      Set.of(
          "selfsubjectaccessreviews",
          "selfsubjectrulesreviews",
          "subjectaccessreviews",
          "localsubjectaccessreviews");

  private final Authorization authorization;

  public AccessReviews(Authorization authorization) {
    this.authorization = authorization;
  }

  public static boolean isReview(String group, String resource) {
    return GROUP.equals(group) && RESOURCES.contains(resource);
  }

  /** The answer to a review {@code body} posted to {@code resource} by {@code requester}. */
  public ObjectNode review(String resource, String namespace, JsonNode body, UserInfo requester) {
    String kind = kind(resource);
    if (!(body instanceof ObjectNode object)) {
      throw new ApiException(Statuses.badRequest("the request body is not an object"));
    }
    String bodyKind = object.path("kind").asText("");
    if (!bodyKind.isEmpty() && !bodyKind.equals(kind)) {
      throw new ApiException(
          Statuses.badRequest(
              "the object provided is unrecognized (must be of type " + kind + "): " + bodyKind));
    }
    ObjectNode answer = object.deepCopy();
    answer.put("apiVersion", GROUP + "/v1");
    answer.put("kind", kind);
    ObjectNode metadata = answer.withObject("/metadata");
    if (!metadata.has("creationTimestamp")) {
      metadata.putNull("creationTimestamp");
    }
    ObjectNode spec = answer.withObject("/spec");
    if (resource.equals("selfsubjectrulesreviews")) {
      String reviewNamespace = spec.path("namespace").asText("");
      if (reviewNamespace.isEmpty()) {
        throw new ApiException(Statuses.badRequest("no namespace on request"));
      }
      answer.set("status", rulesStatus(authorization.rulesFor(requester, reviewNamespace)));
      return answer;
    }
    List<FieldError> errors = new ArrayList<>();
    JsonNode resourceAttributes = spec.get("resourceAttributes");
    JsonNode nonResourceAttributes = spec.get("nonResourceAttributes");
    boolean hasResource = resourceAttributes != null && !resourceAttributes.isNull();
    boolean hasNonResource = nonResourceAttributes != null && !nonResourceAttributes.isNull();
    if (hasResource && hasNonResource) {
      errors.add(
          new FieldError(
              FieldError.Type.INVALID,
              "spec.nonResourceAttributes",
              nonResourceAttributes.toString(),
              "cannot be specified in combination with resourceAttributes"));
    }
    if (!hasResource && !hasNonResource) {
      errors.add(
          new FieldError(
              FieldError.Type.INVALID,
              "spec.resourceAttributes",
              "null",
              "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
    }
    UserInfo subject = requester;
    if (resource.equals("subjectaccessreviews") || resource.equals("localsubjectaccessreviews")) {
      String user = spec.path("user").asText("");
      List<String> groups = PolicyRule.strings(spec.path("groups"));
      if (user.isEmpty() && groups.isEmpty()) {
        errors.add(
            new FieldError(
                FieldError.Type.INVALID,
                "spec.user",
                user,
                "at least one of user or group must be specified"));
      }
      subject = UserInfo.newBuilder().setUsername(user).setGroups(new ArrayList<>(groups)).build();
    }
    if (resource.equals("localsubjectaccessreviews")) {
      String metadataNamespace = metadata.path("namespace").asText("");
      if (metadataNamespace.isEmpty()) {
        metadata.put("namespace", namespace);
      } else if (!metadataNamespace.equals(namespace)) {
        throw new ApiException(
            Statuses.badRequest(
                "the namespace of the provided object does not match the namespace sent on the"
                    + " request"));
      }
      if (hasResource && !resourceAttributes.path("namespace").asText("").equals(namespace)) {
        errors.add(
            new FieldError(
                FieldError.Type.INVALID,
                "spec.resourceAttributes.namespace",
                resourceAttributes.path("namespace").asText(""),
                "must match metadata.namespace"));
      }
      if (hasNonResource) {
        errors.add(
            new FieldError(
                FieldError.Type.INVALID,
                "spec.nonResourceAttributes",
                nonResourceAttributes.toString(),
                "disallowed on this kind of request"));
      }
    }
    if (!errors.isEmpty()) {
      throw new ApiException(
          Statuses.invalid(GROUP, kind, metadata.path("name").asText(""), errors));
    }
    Attributes attributes =
        hasResource
            ? new Attributes(
                subject,
                text(resourceAttributes, "verb"),
                true,
                text(resourceAttributes, "group"),
                text(resourceAttributes, "resource"),
                text(resourceAttributes, "subresource"),
                text(resourceAttributes, "namespace"),
                text(resourceAttributes, "name"),
                "")
            : new Attributes(
                subject,
                text(nonResourceAttributes, "verb"),
                false,
                "",
                "",
                "",
                "",
                "",
                text(nonResourceAttributes, "path"));
    Decision decision = authorization.authorize(attributes);
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("allowed", decision.allowed());
    if (decision.verdict() == Decision.Verdict.DENY) {
      status.put("denied", true);
    }
    if (decision.reason() != null && !decision.reason().isEmpty()) {
      status.put("reason", decision.reason());
    }
    answer.set("status", status);
    return answer;
  }

  private static ObjectNode rulesStatus(RuleResolver.Rules rules) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    ArrayNode resourceRules = status.putArray("resourceRules");
    for (PolicyRule rule : rules.resourceRules()) {
      ObjectNode json = resourceRules.addObject();
      json.set("verbs", PolicyRule.array(rule.verbs()));
      if (!rule.apiGroups().isEmpty()) {
        json.set("apiGroups", PolicyRule.array(rule.apiGroups()));
      }
      if (!rule.resources().isEmpty()) {
        json.set("resources", PolicyRule.array(rule.resources()));
      }
      if (!rule.resourceNames().isEmpty()) {
        json.set("resourceNames", PolicyRule.array(rule.resourceNames()));
      }
    }
    ArrayNode nonResourceRules = status.putArray("nonResourceRules");
    for (PolicyRule rule : rules.nonResourceRules()) {
      ObjectNode json = nonResourceRules.addObject();
      json.set("verbs", PolicyRule.array(rule.verbs()));
      json.set("nonResourceURLs", PolicyRule.array(rule.nonResourceURLs()));
    }
    status.put("incomplete", rules.incomplete());
    if (!rules.errors().isEmpty()) {
      status.put("evaluationError", String.join(", ", rules.errors()));
    }
    return status;
  }

  private static String text(JsonNode node, String field) {
    return node.path(field).asText("");
  }

  private static String kind(String resource) {
    return switch (resource) {
      case "selfsubjectaccessreviews" -> "SelfSubjectAccessReview";
      case "selfsubjectrulesreviews" -> "SelfSubjectRulesReview";
      case "subjectaccessreviews" -> "SubjectAccessReview";
      case "localsubjectaccessreviews" -> "LocalSubjectAccessReview";
      default -> throw new IllegalArgumentException("not a review: " + resource);
    };
  }
}
