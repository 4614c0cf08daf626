package io.streamplane.gateway.authz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.cache.WatchEvent;
import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the authorizers read, indexed for a request to touch only what concerns it: roles and
 * cluster roles by name, role bindings and cluster role bindings by subject (user, group, service
 * account), and pods by the node they are bound to and by the secrets, config maps, claims and
 * service accounts they reference (the Node authorizer's graph, reduced to the edges Streamplane's
 * kinds have). {@link #follow} keeps it current from the gateway's {@link WatchCache}; a test feeds
 * it with {@link #put} and {@link #remove}.
 *
 * <p>Contract: one writer at a time (the cache's thread); readers never block and see each object
 * either before or after a change.
 */
public final class AuthorizationIndex {

  /** The resources (plural names) the index keeps, with their API group. */
  public static final Map<String, String> RESOURCES =
      Map.of(
          "clusterroles", "rbac.authorization.k8s.io",
          "clusterrolebindings", "rbac.authorization.k8s.io",
          "roles", "rbac.authorization.k8s.io",
          "rolebindings", "rbac.authorization.k8s.io",
          "pods", "");

  /** A Role or ClusterRole: its rules and, for an aggregated ClusterRole, its selectors. */
  public record RoleDef(
      String namespace,
      String name,
      Map<String, String> labels,
      List<PolicyRule> rules,
      List<LabelSelector> aggregation) {}

  /** A RoleBinding or ClusterRoleBinding; {@code namespace} is empty for a cluster binding. */
  public record BindingDef(
      String namespace, String name, String roleKind, String roleName, List<Subject> subjects) {

    public boolean cluster() {
      return namespace.isEmpty();
    }
  }

  /** A subject of a binding: User, Group or ServiceAccount (with its namespace). */
  public record Subject(String kind, String name, String namespace) {}

  /** What the Node authorizer needs of a pod: where it runs and what it references. */
  record PodRefs(String namespace, String name, String node, Set<String> references) {}

  private final Map<String, RoleDef> clusterRoles = new ConcurrentHashMap<>();
  private final AtomicLong clusterRolesVersion = new AtomicLong();
  private final Map<String, RoleDef> roles = new ConcurrentHashMap<>();
  private final Map<String, BindingDef> clusterRoleBindings = new ConcurrentHashMap<>();
  private final Map<String, BindingDef> roleBindings = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> clusterBindingsBySubject = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> roleBindingsBySubject = new ConcurrentHashMap<>();
  private final Map<String, PodRefs> pods = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> podsByReference = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> podsByNode = new ConcurrentHashMap<>();

  /** Follows the cache's objects of {@link #RESOURCES} from now on, starting with all of them. */
  public List<WatchCache.Registration> follow(WatchCache cache) {
    List<WatchCache.Registration> registrations = new ArrayList<>();
    RESOURCES.forEach(
        (resource, group) ->
            registrations.add(
                cache.watch(
                    group, resource, null, event -> true, event -> apply(resource, event))));
    return registrations;
  }

  private void apply(String resource, WatchEvent event) {
    if (event.type().equals("DELETED")) {
      remove(resource, event.object());
    } else if (!event.type().equals(WatchEvent.ERROR)) {
      put(resource, event.object());
    }
  }

  /** Adds or replaces an object of {@code resource} (plural name, e.g. "rolebindings"). */
  public synchronized void put(String resource, ObjectNode object) {
    String namespace = object.path("metadata").path("namespace").asText("");
    String name = object.path("metadata").path("name").asText("");
    switch (resource) {
      case "clusterroles" -> {
        clusterRoles.put(name, role("", object));
        clusterRolesVersion.incrementAndGet();
      }
      case "roles" -> roles.put(key(namespace, name), role(namespace, object));
      case "clusterrolebindings" -> {
        remove(resource, object);
        BindingDef binding = binding("", object);
        clusterRoleBindings.put(name, binding);
        for (Subject subject : binding.subjects()) {
          subjectKey(subject, "").ifPresent(k -> index(clusterBindingsBySubject, k, name));
        }
      }
      case "rolebindings" -> {
        remove(resource, object);
        BindingDef binding = binding(namespace, object);
        roleBindings.put(key(namespace, name), binding);
        for (Subject subject : binding.subjects()) {
          subjectKey(subject, namespace)
              .ifPresent(
                  k -> index(roleBindingsBySubject, namespace + "\n" + k, key(namespace, name)));
        }
      }
      case "pods" -> {
        remove(resource, object);
        PodRefs pod = podRefs(namespace, name, object);
        if (pod.node().isEmpty()) {
          return;
        }
        String podKey = key(namespace, name);
        pods.put(podKey, pod);
        index(podsByNode, pod.node(), podKey);
        pod.references().forEach(reference -> index(podsByReference, reference, podKey));
      }
      default -> throw new IllegalArgumentException("not an authorization resource: " + resource);
    }
  }

  /** Forgets an object of {@code resource}. */
  public synchronized void remove(String resource, ObjectNode object) {
    String namespace = object.path("metadata").path("namespace").asText("");
    String name = object.path("metadata").path("name").asText("");
    switch (resource) {
      case "clusterroles" -> {
        clusterRoles.remove(name);
        clusterRolesVersion.incrementAndGet();
      }
      case "roles" -> roles.remove(key(namespace, name));
      case "clusterrolebindings" -> {
        BindingDef old = clusterRoleBindings.remove(name);
        if (old != null) {
          for (Subject subject : old.subjects()) {
            subjectKey(subject, "").ifPresent(k -> unindex(clusterBindingsBySubject, k, name));
          }
        }
      }
      case "rolebindings" -> {
        BindingDef old = roleBindings.remove(key(namespace, name));
        if (old != null) {
          for (Subject subject : old.subjects()) {
            subjectKey(subject, namespace)
                .ifPresent(
                    k ->
                        unindex(roleBindingsBySubject, namespace + "\n" + k, key(namespace, name)));
          }
        }
      }
      case "pods" -> {
        String podKey = key(namespace, name);
        PodRefs old = pods.remove(podKey);
        if (old != null) {
          unindex(podsByNode, old.node(), podKey);
          old.references().forEach(reference -> unindex(podsByReference, reference, podKey));
        }
      }
      default -> throw new IllegalArgumentException("not an authorization resource: " + resource);
    }
  }

  public Optional<RoleDef> clusterRole(String name) {
    return Optional.ofNullable(clusterRoles.get(name));
  }

  public Optional<RoleDef> role(String namespace, String name) {
    return Optional.ofNullable(roles.get(key(namespace, name)));
  }

  /** Changes with every change of a ClusterRole: what aggregated rules are cached against. */
  public long clusterRolesVersion() {
    return clusterRolesVersion.get();
  }

  public Collection<RoleDef> clusterRoles() {
    return clusterRoles.values();
  }

  /** The cluster role bindings naming {@code user}, its groups or its service account. */
  public List<BindingDef> clusterRoleBindingsFor(UserInfo user) {
    Map<String, BindingDef> found = new LinkedHashMap<>();
    for (String key : userKeys(user)) {
      for (String name : clusterBindingsBySubject.getOrDefault(key, Set.of())) {
        BindingDef binding = clusterRoleBindings.get(name);
        if (binding != null) {
          found.putIfAbsent(name, binding);
        }
      }
    }
    return sorted(found);
  }

  /** The role bindings of {@code namespace} naming {@code user}, its groups or service account. */
  public List<BindingDef> roleBindingsFor(UserInfo user, String namespace) {
    Map<String, BindingDef> found = new LinkedHashMap<>();
    for (String key : userKeys(user)) {
      for (String name : roleBindingsBySubject.getOrDefault(namespace + "\n" + key, Set.of())) {
        BindingDef binding = roleBindings.get(name);
        if (binding != null) {
          found.putIfAbsent(name, binding);
        }
      }
    }
    return sorted(found);
  }

  /** Whether a pod bound to {@code node} exists under this name. */
  public boolean podOnNode(String node, String namespace, String name) {
    PodRefs pod = pods.get(key(namespace, name));
    return pod != null && pod.node().equals(node);
  }

  /**
   * Whether a pod bound to {@code node} references the object of {@code resource} ("secrets",
   * "configmaps", "persistentvolumeclaims", "serviceaccounts") named {@code namespace/name}.
   */
  public boolean referencedFromNode(String node, String resource, String namespace, String name) {
    for (String podKey :
        podsByReference.getOrDefault(reference(resource, namespace, name), Set.of())) {
      PodRefs pod = pods.get(podKey);
      if (pod != null && pod.node().equals(node)) {
        return true;
      }
    }
    return false;
  }

  /** Whether any pod is bound to {@code node}: the Node authorizer's graph knows the node. */
  public boolean knowsNode(String node) {
    return !podsByNode.getOrDefault(node, Set.of()).isEmpty();
  }

  // ---------------------------------------------------------------- parsing

  private static RoleDef role(String namespace, ObjectNode object) {
    List<LabelSelector> aggregation = new ArrayList<>();
    JsonNode selectors = object.path("aggregationRule").path("clusterRoleSelectors");
    if (selectors.isArray()) {
      selectors.forEach(selector -> aggregation.add(LabelSelector.parse(selector)));
    }
    return new RoleDef(
        namespace,
        object.path("metadata").path("name").asText(""),
        labels(object),
        PolicyRule.parseAll(object.path("rules")),
        List.copyOf(aggregation));
  }

  static Map<String, String> labels(JsonNode object) {
    Map<String, String> labels = new HashMap<>();
    object
        .path("metadata")
        .path("labels")
        .fields()
        .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
    return Map.copyOf(labels);
  }

  private static BindingDef binding(String namespace, ObjectNode object) {
    List<Subject> subjects = new ArrayList<>();
    object
        .path("subjects")
        .forEach(
            s ->
                subjects.add(
                    new Subject(
                        s.path("kind").asText(""),
                        s.path("name").asText(""),
                        s.path("namespace").asText(""))));
    JsonNode roleRef = object.path("roleRef");
    return new BindingDef(
        namespace,
        object.path("metadata").path("name").asText(""),
        roleRef.path("kind").asText(""),
        roleRef.path("name").asText(""),
        List.copyOf(subjects));
  }

  private static PodRefs podRefs(String namespace, String name, ObjectNode pod) {
    JsonNode spec = pod.path("spec");
    Set<String> references = new HashSet<>();
    String serviceAccount = spec.path("serviceAccountName").asText("");
    if (!serviceAccount.isEmpty()) {
      references.add(reference("serviceaccounts", namespace, serviceAccount));
    }
    spec.path("imagePullSecrets")
        .forEach(s -> references.add(reference("secrets", namespace, s.path("name").asText())));
    for (JsonNode volume : spec.path("volumes")) {
      addVolume(references, namespace, volume);
    }
    for (String containers : List.of("initContainers", "containers", "ephemeralContainers")) {
      for (JsonNode container : spec.path(containers)) {
        for (JsonNode env : container.path("env")) {
          JsonNode from = env.path("valueFrom");
          addNamed(references, "secrets", namespace, from.path("secretKeyRef"));
          addNamed(references, "configmaps", namespace, from.path("configMapKeyRef"));
        }
        for (JsonNode envFrom : container.path("envFrom")) {
          addNamed(references, "secrets", namespace, envFrom.path("secretRef"));
          addNamed(references, "configmaps", namespace, envFrom.path("configMapRef"));
        }
      }
    }
    return new PodRefs(namespace, name, spec.path("nodeName").asText(""), Set.copyOf(references));
  }

  private static void addVolume(Set<String> references, String namespace, JsonNode volume) {
    String secret = volume.path("secret").path("secretName").asText("");
    if (!secret.isEmpty()) {
      references.add(reference("secrets", namespace, secret));
    }
    addNamed(references, "configmaps", namespace, volume.path("configMap"));
    String claim = volume.path("persistentVolumeClaim").path("claimName").asText("");
    if (!claim.isEmpty()) {
      references.add(reference("persistentvolumeclaims", namespace, claim));
    }
    for (JsonNode source : volume.path("projected").path("sources")) {
      addNamed(references, "secrets", namespace, source.path("secret"));
      addNamed(references, "configmaps", namespace, source.path("configMap"));
    }
    for (String plugin : List.of("azureFile", "cephfs", "cinder", "flexVolume", "iscsi", "rbd")) {
      JsonNode ref = volume.path(plugin).path("secretRef");
      addNamed(references, "secrets", namespace, ref);
    }
    String azure = volume.path("azureFile").path("secretName").asText("");
    if (!azure.isEmpty()) {
      references.add(reference("secrets", namespace, azure));
    }
  }

  private static void addNamed(
      Set<String> references, String resource, String namespace, JsonNode ref) {
    String name = ref.path("name").asText("");
    if (!name.isEmpty()) {
      references.add(reference(resource, namespace, name));
    }
  }

  // ---------------------------------------------------------------- keys

  private static String reference(String resource, String namespace, String name) {
    return resource + "/" + namespace + "/" + name;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  /**
   * The index key of a subject; a ServiceAccount without a namespace is the binding's namespace's
   * (none for a cluster binding, where it names nobody), as RBAC's {@code appliesToUser}.
   */
  static Optional<String> subjectKey(Subject subject, String bindingNamespace) {
    return switch (subject.kind()) {
      case "User" -> Optional.of("User:" + subject.name());
      case "Group" -> Optional.of("Group:" + subject.name());
      case "ServiceAccount" -> {
        String namespace = subject.namespace().isEmpty() ? bindingNamespace : subject.namespace();
        yield namespace.isEmpty()
            ? Optional.empty()
            : Optional.of("User:" + ServiceAccounts.username(namespace, subject.name()));
      }
      default -> Optional.empty();
    };
  }

  private static List<String> userKeys(UserInfo user) {
    List<String> keys = new ArrayList<>();
    keys.add("User:" + user.getUsername());
    for (CharSequence group : user.getGroups()) {
      keys.add("Group:" + group);
    }
    return keys;
  }

  private static void index(Map<String, Set<String>> index, String key, String value) {
    index.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
  }

  private static void unindex(Map<String, Set<String>> index, String key, String value) {
    index.computeIfPresent(
        key,
        (k, values) -> {
          values.remove(value);
          return values.isEmpty() ? null : values;
        });
  }

  private static List<BindingDef> sorted(Map<String, BindingDef> found) {
    List<BindingDef> bindings = new ArrayList<>(found.values());
    bindings.sort((a, b) -> a.name().compareTo(b.name()));
    return bindings;
  }
}
