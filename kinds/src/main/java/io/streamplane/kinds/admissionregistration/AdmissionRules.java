package io.streamplane.kinds.admissionregistration;

import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.MatchResources;
import io.streamplane.api.NamedRuleWithOperations;
import io.streamplane.kinds.policy.PodDisruptionBudgetStrategy;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the admission policies and their bindings share of kube-apiserver's admissionregistration
 * validation and defaulting: {@code MatchResources} (matchPolicy, the two selectors, resource rules
 * with their operations, groups, versions, resources, scope and resource names).
 */
final class AdmissionRules {

  static final List<String> OPERATIONS = List.of("*", "CONNECT", "CREATE", "DELETE", "UPDATE");
  static final List<String> SCOPES = List.of("*", "Cluster", "Namespaced");
  static final List<String> MATCH_POLICIES = List.of("Equivalent", "Exact");

  private AdmissionRules() {}

  /** {@code SetDefaults_MatchResources} and {@code SetDefaults_Rule} of each rule. */
  static void defaultMatchResources(JsonNode match) {
    if (!(match instanceof ObjectNode m)) {
      return;
    }
    if (!m.hasNonNull("matchPolicy")) {
      m.put("matchPolicy", "Equivalent");
    }
    if (!m.hasNonNull("namespaceSelector")) {
      m.putObject("namespaceSelector");
    }
    if (!m.hasNonNull("objectSelector")) {
      m.putObject("objectSelector");
    }
    for (String rules : List.of("resourceRules", "excludeResourceRules")) {
      for (JsonNode rule : m.path(rules)) {
        if (rule instanceof ObjectNode r && !r.hasNonNull("scope")) {
          r.put("scope", "*");
        }
      }
    }
  }

  /** {@code validateMatchResources}. */
  static void validateMatchResources(MatchResources match, String at, List<StatusCause> causes) {
    if (match == null) {
      return;
    }
    if (match.getMatchPolicy() == null) {
      causes.add(required(at + ".matchPolicy"));
    } else if (!MATCH_POLICIES.contains(match.getMatchPolicy())) {
      causes.add(notSupported(at + ".matchPolicy", match.getMatchPolicy(), MATCH_POLICIES));
    }
    if (match.getNamespaceSelector() == null) {
      causes.add(required(at + ".namespaceSelector"));
    } else {
      PodDisruptionBudgetStrategy.selector(
          match.getNamespaceSelector(), at + ".namespaceSelector", causes);
    }
    if (match.getObjectSelector() == null) {
      causes.add(required(at + ".objectSelector"));
    } else {
      PodDisruptionBudgetStrategy.selector(
          match.getObjectSelector(), at + ".objectSelector", causes);
    }
    rules(match.getResourceRules(), at + ".resourceRules", causes);
    rules(match.getExcludeResourceRules(), at + ".excludeResourceRules", causes);
  }

  private static void rules(
      List<NamedRuleWithOperations> rules, String at, List<StatusCause> causes) {
    for (int i = 0; rules != null && i < rules.size(); i++) {
      rule(rules.get(i), at + "[" + i + "]", causes);
    }
  }

  /** {@code validateNamedRuleWithOperations} with its {@code validateRule}. */
  private static void rule(NamedRuleWithOperations rule, String at, List<StatusCause> causes) {
    List<String> names = orEmpty(rule.getResourceNames());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      causes.addAll(Names.pathSegmentName(at + ".resourceNames[" + i + "]", name));
      if (!seen.add(name)) {
        causes.add(duplicate(at + ".resourceNames[" + i + "]", name));
      }
    }
    List<String> operations = orEmpty(rule.getOperations());
    if (operations.isEmpty()) {
      causes.add(required(at + ".operations"));
    }
    if (operations.size() > 1 && operations.contains("*")) {
      causes.add(
          invalid(
              at + ".operations",
              goList(operations),
              "if '*' is present, must not specify other operations"));
    }
    for (int i = 0; i < operations.size(); i++) {
      if (!OPERATIONS.contains(operations.get(i))) {
        causes.add(notSupported(at + ".operations[" + i + "]", operations.get(i), OPERATIONS));
      }
    }
    List<String> groups = orEmpty(rule.getApiGroups());
    if (groups.isEmpty()) {
      causes.add(required(at + ".apiGroups"));
    }
    if (groups.size() > 1 && groups.contains("*")) {
      causes.add(
          invalid(
              at + ".apiGroups",
              goList(groups),
              "if '*' is present, must not specify other API groups"));
    }
    List<String> versions = orEmpty(rule.getApiVersions());
    if (versions.isEmpty()) {
      causes.add(required(at + ".apiVersions"));
    }
    if (versions.size() > 1 && versions.contains("*")) {
      causes.add(
          invalid(
              at + ".apiVersions",
              goList(versions),
              "if '*' is present, must not specify other API versions"));
    }
    for (int i = 0; i < versions.size(); i++) {
      if (versions.get(i).isEmpty()) {
        causes.add(required(at + ".apiVersions[" + i + "]"));
      }
    }
    List<String> resources = orEmpty(rule.getResources());
    if (resources.isEmpty()) {
      causes.add(required(at + ".resources"));
    }
    for (int i = 0; i < resources.size(); i++) {
      if (resources.get(i).isEmpty()) {
        causes.add(required(at + ".resources[" + i + "]"));
      }
    }
    if (rule.getScope() != null && !SCOPES.contains(rule.getScope())) {
      causes.add(notSupported(at + ".scope", rule.getScope(), SCOPES));
    }
  }

  static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  /** A list of strings as Go's {@code %#v} prints a string slice in a field error. */
  static String goList(List<String> values) {
    StringBuilder out = new StringBuilder("[]string{");
    for (int i = 0; i < values.size(); i++) {
      out.append(i == 0 ? "" : ", ").append(FieldErrors.quote(values.get(i)));
    }
    return out.append('}').toString();
  }
}
