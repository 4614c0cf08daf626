package io.streamplane.gateway.authz;

import io.streamplane.gateway.authz.AuthorizationIndex.BindingDef;
import io.streamplane.gateway.authz.AuthorizationIndex.RoleDef;
import io.streamplane.gateway.authz.AuthorizationIndex.Subject;
import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The RBAC authorizer, as kube-apiserver's {@code plugin/pkg/auth/authorizer/rbac}: a request is
 * allowed when a rule of a role bound to the user allows it, first through the ClusterRoleBindings,
 * then through the RoleBindings of the request's namespace. The reason names the grant as RBAC does
 * ({@code RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"}). Otherwise it
 * has no opinion, with the errors met on the way (a binding to a missing role) as reason.
 *
 * <p>Aggregated ClusterRoles ({@code aggregationRule}) are resolved when read: their rules are
 * those of every ClusterRole their selectors match, recursively, as kube-controller-manager's
 * clusterrole-aggregation controller would have written them. Bindings are found through the {@link
 * AuthorizationIndex}'s subject index, so a request reads only the bindings that name its user, its
 * groups or its service account.
 */
public final class Rbac implements Authorizer, RuleResolver {

  private final AuthorizationIndex index;

  /** Aggregated ClusterRoles' rules, valid while the ClusterRoles stay at {@code version}. */
  private record Aggregated(long version, Map<String, List<PolicyRule>> rules) {}

  private volatile Aggregated aggregated = new Aggregated(-1, Map.of());

  public Rbac(AuthorizationIndex index) {
    this.index = index;
  }

  @Override
  public Decision authorize(Attributes request) {
    List<String> errors = new ArrayList<>();
    UserInfo user = request.user();
    for (BindingDef binding : index.clusterRoleBindingsFor(user)) {
      Optional<String> allowed = allowedBy(binding, request, errors);
      if (allowed.isPresent()) {
        return Decision.allow(allowed.get());
      }
    }
    if (!request.namespace().isEmpty()) {
      for (BindingDef binding : index.roleBindingsFor(user, request.namespace())) {
        Optional<String> allowed = allowedBy(binding, request, errors);
        if (allowed.isPresent()) {
          return Decision.allow(allowed.get());
        }
      }
    }
    return Decision.noOpinion(errors.isEmpty() ? "" : "RBAC: " + aggregate(errors));
  }

  private Optional<String> allowedBy(BindingDef binding, Attributes request, List<String> errors) {
    Optional<Subject> subject = appliesTo(request.user(), binding);
    if (subject.isEmpty()) {
      return Optional.empty();
    }
    Optional<List<PolicyRule>> rules = rules(binding, errors);
    if (rules.isEmpty()) {
      return Optional.empty();
    }
    for (PolicyRule rule : rules.get()) {
      if (rule.allows(request)) {
        return Optional.of("RBAC: allowed by " + describe(binding, subject.get()));
      }
    }
    return Optional.empty();
  }

  @Override
  public Rules rulesFor(UserInfo user, String namespace) {
    List<String> errors = new ArrayList<>();
    Set<PolicyRule> resourceRules = new LinkedHashSet<>();
    Set<PolicyRule> nonResourceRules = new LinkedHashSet<>();
    List<BindingDef> bindings = new ArrayList<>(index.clusterRoleBindingsFor(user));
    if (namespace != null && !namespace.isEmpty()) {
      bindings.addAll(index.roleBindingsFor(user, namespace));
    }
    for (BindingDef binding : bindings) {
      if (appliesTo(user, binding).isEmpty()) {
        continue;
      }
      for (PolicyRule rule : rules(binding, errors).orElse(List.of())) {
        if (!rule.resources().isEmpty()) {
          resourceRules.add(
              new PolicyRule(
                  rule.verbs(),
                  rule.apiGroups(),
                  rule.resources(),
                  rule.resourceNames(),
                  List.of()));
        }
        if (!rule.nonResourceURLs().isEmpty()) {
          nonResourceRules.add(
              new PolicyRule(
                  rule.verbs(), List.of(), List.of(), List.of(), rule.nonResourceURLs()));
        }
      }
    }
    return new Rules(
        List.copyOf(resourceRules), List.copyOf(nonResourceRules), false, List.copyOf(errors));
  }

  /** The rules of the role a binding refers to; empty (with an error) when it does not exist. */
  private Optional<List<PolicyRule>> rules(BindingDef binding, List<String> errors) {
    if (binding.roleKind().equals("ClusterRole")) {
      Optional<RoleDef> role = index.clusterRole(binding.roleName());
      if (role.isEmpty()) {
        errors.add(
            "clusterrole.rbac.authorization.k8s.io \"" + binding.roleName() + "\" not found");
        return Optional.empty();
      }
      return Optional.of(cachedClusterRoleRules(role.get()));
    }
    if (binding.roleKind().equals("Role") && !binding.cluster()) {
      Optional<RoleDef> role = index.role(binding.namespace(), binding.roleName());
      if (role.isEmpty()) {
        errors.add("role.rbac.authorization.k8s.io \"" + binding.roleName() + "\" not found");
        return Optional.empty();
      }
      return Optional.of(role.get().rules());
    }
    errors.add("unsupported role reference kind: \"" + binding.roleKind() + "\"");
    return Optional.empty();
  }

  private List<PolicyRule> cachedClusterRoleRules(RoleDef role) {
    if (role.aggregation().isEmpty()) {
      return role.rules();
    }
    long version = index.clusterRolesVersion();
    Aggregated current = aggregated;
    if (current.version() != version) {
      current = new Aggregated(version, new ConcurrentHashMap<>());
      aggregated = current;
    }
    return current
        .rules()
        .computeIfAbsent(role.name(), n -> clusterRoleRules(role, new HashSet<>()));
  }

  /**
   * A ClusterRole's rules; an aggregated one's are the union of the rules of the ClusterRoles its
   * selectors match (never itself, and each role once: cycles end).
   */
  List<PolicyRule> clusterRoleRules(RoleDef role, Set<String> visiting) {
    if (role.aggregation().isEmpty()) {
      return role.rules();
    }
    if (!visiting.add(role.name())) {
      return List.of();
    }
    List<RoleDef> selected = new ArrayList<>();
    for (RoleDef candidate : index.clusterRoles()) {
      if (candidate.name().equals(role.name())) {
        continue;
      }
      for (LabelSelector selector : role.aggregation()) {
        if (selector.matches(candidate.labels())) {
          selected.add(candidate);
          break;
        }
      }
    }
    selected.sort((a, b) -> a.name().compareTo(b.name()));
    Set<PolicyRule> rules = new LinkedHashSet<>();
    for (RoleDef candidate : selected) {
      rules.addAll(clusterRoleRules(candidate, visiting));
    }
    visiting.remove(role.name());
    return List.copyOf(rules);
  }

  /** The aggregated rules of the ClusterRole {@code name}, as the aggregation controller writes. */
  public Optional<List<PolicyRule>> aggregatedRules(String name) {
    return index
        .clusterRole(name)
        .filter(role -> !role.aggregation().isEmpty())
        .map(role -> clusterRoleRules(role, new HashSet<>()));
  }

  /** The first subject of the binding naming {@code user}, as RBAC's {@code appliesTo}. */
  static Optional<Subject> appliesTo(UserInfo user, BindingDef binding) {
    for (Subject subject : binding.subjects()) {
      boolean applies =
          switch (subject.kind()) {
            case "User" -> user.getUsername().equals(subject.name());
            case "Group" ->
                user.getGroups().stream().anyMatch(g -> g.toString().equals(subject.name()));
            case "ServiceAccount" -> {
              String namespace =
                  subject.namespace().isEmpty() ? binding.namespace() : subject.namespace();
              yield !namespace.isEmpty()
                  && user.getUsername().equals(ServiceAccounts.username(namespace, subject.name()));
            }
            default -> false;
          };
      if (applies) {
        return Optional.of(subject);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code ClusterRoleBinding "x" of ClusterRole "y" to User "z"}, as RBAC's describers word it.
   */
  static String describe(BindingDef binding, Subject subject) {
    String bindingName =
        binding.cluster()
            ? "ClusterRoleBinding " + quote(binding.name())
            : "RoleBinding " + quote(binding.name() + "/" + binding.namespace());
    String who;
    if (subject.kind().equals("ServiceAccount")) {
      String namespace = subject.namespace().isEmpty() ? binding.namespace() : subject.namespace();
      who = "ServiceAccount " + quote(subject.name() + "/" + namespace);
    } else {
      who = subject.kind() + " " + quote(subject.name());
    }
    return bindingName
        + " of "
        + binding.roleKind()
        + " "
        + quote(binding.roleName())
        + " to "
        + who;
  }

  private static String quote(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** utilerrors.NewAggregate's wording: one error alone, several as {@code [a, b]}. */
  private static String aggregate(List<String> errors) {
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(errors));
    return distinct.size() == 1 ? distinct.get(0) : "[" + String.join(", ", distinct) + "]";
  }
}
