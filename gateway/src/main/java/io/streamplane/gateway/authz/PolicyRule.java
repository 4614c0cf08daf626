package io.streamplane.gateway.authz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One rule of a Role or ClusterRole ({@code rbac.authorization.k8s.io/v1 PolicyRule}) and how it
 * matches a request, as Kubernetes' {@code rbac.RuleAllows}: verbs, API groups and resources accept
 * {@code *}; a resource is {@code pods} or {@code pods/log}, and {@code * /log} (without the space)
 * matches the log subresource of every resource; an empty {@code resourceNames} matches any name; a
 * non-resource URL ending in {@code *} matches every path it prefixes.
 */
public record PolicyRule(
    List<String> verbs,
    List<String> apiGroups,
    List<String> resources,
    List<String> resourceNames,
    List<String> nonResourceURLs) {

  static final String ALL = "*";

  public PolicyRule {
    verbs = List.copyOf(verbs);
    apiGroups = List.copyOf(apiGroups);
    resources = List.copyOf(resources);
    resourceNames = List.copyOf(resourceNames);
    nonResourceURLs = List.copyOf(nonResourceURLs);
  }

  public static PolicyRule parse(JsonNode rule) {
    return new PolicyRule(
        strings(rule.path("verbs")),
        strings(rule.path("apiGroups")),
        strings(rule.path("resources")),
        strings(rule.path("resourceNames")),
        strings(rule.path("nonResourceURLs")));
  }

  public static List<PolicyRule> parseAll(JsonNode rules) {
    List<PolicyRule> parsed = new ArrayList<>();
    if (rules != null && rules.isArray()) {
      rules.forEach(rule -> parsed.add(parse(rule)));
    }
    return List.copyOf(parsed);
  }

  /** Whether this rule allows what {@code request} asks. */
  public boolean allows(Attributes request) {
    if (request.resourceRequest()) {
      String combined =
          request.subresource().isEmpty()
              ? request.resource()
              : request.resource() + "/" + request.subresource();
      return verbMatches(request.verb())
          && apiGroupMatches(request.group())
          && resourceMatches(combined, request.subresource())
          && resourceNameMatches(request.name());
    }
    return verbMatches(request.verb()) && nonResourceUrlMatches(request.path());
  }

  boolean verbMatches(String verb) {
    return verbs.contains(ALL) || verbs.contains(verb);
  }

  boolean apiGroupMatches(String group) {
    return apiGroups.contains(ALL) || apiGroups.contains(group);
  }

  boolean resourceMatches(String combined, String subresource) {
    for (String resource : resources) {
      if (resource.equals(ALL) || resource.equals(combined)) {
        return true;
      }
      if (!subresource.isEmpty() && resource.equals("*/" + subresource)) {
        return true;
      }
    }
    return false;
  }

  boolean resourceNameMatches(String name) {
    return resourceNames.isEmpty() || resourceNames.contains(name);
  }

  boolean nonResourceUrlMatches(String path) {
    for (String url : nonResourceURLs) {
      if (url.equals(ALL) || url.equals(path)) {
        return true;
      }
      if (url.endsWith(ALL) && path.startsWith(url.substring(0, url.length() - 1))) {
        return true;
      }
    }
    return false;
  }

  /** The rule as Kubernetes JSON, with the fields Kubernetes omits when empty left out. */
  public ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.set("verbs", array(verbs));
    if (!apiGroups.isEmpty()) {
      json.set("apiGroups", array(apiGroups));
    }
    if (!resources.isEmpty()) {
      json.set("resources", array(resources));
    }
    if (!resourceNames.isEmpty()) {
      json.set("resourceNames", array(resourceNames));
    }
    if (!nonResourceURLs.isEmpty()) {
      json.set("nonResourceURLs", array(nonResourceURLs));
    }
    return json;
  }

  static com.fasterxml.jackson.databind.node.ArrayNode array(List<String> values) {
    com.fasterxml.jackson.databind.node.ArrayNode array = JsonNodeFactory.instance.arrayNode();
    values.forEach(array::add);
    return array;
  }

  static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    if (array != null && array.isArray()) {
      array.forEach(value -> values.add(value.asText()));
    }
    return values;
  }
}
