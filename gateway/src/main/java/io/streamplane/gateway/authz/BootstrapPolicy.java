package io.streamplane.gateway.authz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Kubernetes 1.32's default roles and bindings (cluster-admin, admin, edit, view,
 * system:basic-user, system:discovery, system:public-info-viewer, system:node,
 * system:kube-scheduler, the system:controller:* roles, ...), read from {@code
 * bootstrap-policy.yaml}, a transcription of {@code bootstrappolicy}'s policy.go,
 * controller_policy.go and namespace_policy.go. As there, every object is labelled {@code
 * kubernetes.io/bootstrapping=rbac-defaults} and annotated {@code
 * rbac.authorization.kubernetes.io/autoupdate=true}, and each {@code system:controller:NAME}
 * ClusterRole is bound to the ServiceAccount {@code kube-system/NAME}.
 *
 * <p>{@link #reconcile} is kube-apiserver's start-up reconciliation ({@code
 * reconciliation.ReconcileRoleOptions} without removing extra permissions): a missing object is
 * created; an existing one whose autoupdate annotation is not {@code false} gets back the rules,
 * aggregation selectors, subjects, labels and annotations it lost, and keeps what was added to it.
 */
public final class BootstrapPolicy {

  public static final String AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate";
  public static final String BOOTSTRAPPING = "kubernetes.io/bootstrapping";
  static final String RBAC_GROUP = "rbac.authorization.k8s.io";
  private static final String CONTROLLER_PREFIX = "system:controller:";

  /** One default object and its resource (plural name). */
  public record Item(String resource, ObjectNode object) {

    public String namespace() {
      return object.path("metadata").path("namespace").asText("");
    }

    public String name() {
      return object.path("metadata").path("name").asText();
    }
  }

  private final List<Item> items;

  private BootstrapPolicy(List<Item> items) {
    this.items = List.copyOf(items);
  }

  /** The defaults of Kubernetes 1.32. */
  public static BootstrapPolicy kubernetes() {
    try (InputStream in = BootstrapPolicy.class.getResourceAsStream("bootstrap-policy.yaml")) {
      if (in == null) {
        throw new IllegalStateException("bootstrap-policy.yaml is missing from the gateway jar");
      }
      return parse(new YAMLMapper().readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static BootstrapPolicy parse(JsonNode policy) {
    List<Item> items = new ArrayList<>();
    List<String> controllers = new ArrayList<>();
    for (JsonNode role : policy.path("clusterRoles")) {
      String name = role.path("metadata").path("name").asText();
      items.add(item("clusterroles", "ClusterRole", role));
      if (name.startsWith(CONTROLLER_PREFIX)) {
        controllers.add(name.substring(CONTROLLER_PREFIX.length()));
      }
    }
    for (JsonNode binding : policy.path("clusterRoleBindings")) {
      items.add(item("clusterrolebindings", "ClusterRoleBinding", binding));
    }
    // controller_policy.go's ControllerRoleBindings: system:controller:NAME to kube-system/NAME.
    for (String controller : controllers) {
      ObjectNode binding = JsonNodeFactory.instance.objectNode();
      binding.putObject("metadata").put("name", CONTROLLER_PREFIX + controller);
      binding
          .putObject("roleRef")
          .put("apiGroup", RBAC_GROUP)
          .put("kind", "ClusterRole")
          .put("name", CONTROLLER_PREFIX + controller);
      binding
          .putArray("subjects")
          .addObject()
          .put("kind", "ServiceAccount")
          .put("name", controller)
          .put("namespace", "kube-system");
      items.add(item("clusterrolebindings", "ClusterRoleBinding", binding));
    }
    for (JsonNode role : policy.path("roles")) {
      items.add(item("roles", "Role", role));
    }
    for (JsonNode binding : policy.path("roleBindings")) {
      items.add(item("rolebindings", "RoleBinding", binding));
    }
    return new BootstrapPolicy(items);
  }

  /**
   * The default object as the store keeps it: defaulted by its kind's strategy (a Group subject's
   * {@code apiGroup}), so that reconciling compares like with like and a converged object is not
   * written again.
   */
  private static Item item(String resource, String kind, JsonNode source) {
    ObjectNode object = object(kind, source);
    io.streamplane.kinds.ResourceRegistry.kubernetes()
        .byResource(RBAC_GROUP, resource)
        .orElseThrow()
        .strategy()
        .applyDefaults(object, true);
    return new Item(resource, object);
  }

  private static ObjectNode object(String kind, JsonNode source) {
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object.put("apiVersion", RBAC_GROUP + "/v1");
    object.put("kind", kind);
    ObjectNode metadata = ((ObjectNode) source.path("metadata")).deepCopy();
    metadata.withObject("/labels").put(BOOTSTRAPPING, "rbac-defaults");
    metadata.withObject("/annotations").put(AUTOUPDATE, "true");
    object.set("metadata", metadata);
    source
        .fields()
        .forEachRemaining(
            field -> {
              if (!field.getKey().equals("metadata")) {
                object.set(field.getKey(), field.getValue().deepCopy());
              }
            });
    return object;
  }

  public List<Item> items() {
    return items;
  }

  /**
   * The rules of the default ClusterRole {@code name}, e.g. system:node for the Node authorizer.
   */
  public List<PolicyRule> clusterRoleRules(String name) {
    return items.stream()
        .filter(i -> i.resource().equals("clusterroles") && i.name().equals(name))
        .findFirst()
        .map(i -> PolicyRule.parseAll(i.object().path("rules")))
        .orElseThrow(() -> new IllegalArgumentException("no default ClusterRole " + name));
  }

  /**
   * What to write so that {@code existing} (null when missing) holds the default {@code desired}:
   * the object to create or update, or empty when nothing is missing or the object opted out of
   * updates ({@code rbac.authorization.kubernetes.io/autoupdate: "false"}).
   */
  public static Optional<ObjectNode> reconcile(ObjectNode desired, ObjectNode existing) {
    if (existing == null) {
      return Optional.of(desired.deepCopy());
    }
    if ("false".equals(existing.path("metadata").path("annotations").path(AUTOUPDATE).asText())) {
      return Optional.empty();
    }
    ObjectNode wanted = existing.deepCopy();
    boolean changed = false;
    for (String map : List.of("labels", "annotations")) {
      ObjectNode have = wanted.withObject("/metadata").withObject("/" + map);
      var fields = desired.path("metadata").path(map).fields();
      while (fields.hasNext()) {
        var field = fields.next();
        if (!have.has(field.getKey())) {
          have.set(field.getKey(), field.getValue().deepCopy());
          changed = true;
        }
      }
    }
    if (desired.has("aggregationRule")) {
      changed |=
          addMissing(
              wanted.withObject("/aggregationRule").withArray("clusterRoleSelectors"),
              desired.path("aggregationRule").path("clusterRoleSelectors"));
    } else if (desired.has("rules")) {
      changed |= addMissingRules(wanted.withArray("rules"), desired.path("rules"));
    }
    if (desired.has("subjects")) {
      changed |= addMissing(wanted.withArray("subjects"), desired.path("subjects"));
    }
    return changed ? Optional.of(wanted) : Optional.empty();
  }

  /** Adds the rules of {@code desired} that no rule of {@code have} equals (as parsed rules). */
  private static boolean addMissingRules(ArrayNode have, JsonNode desired) {
    Set<PolicyRule> present = new LinkedHashSet<>(PolicyRule.parseAll(have));
    boolean changed = false;
    for (JsonNode rule : desired) {
      if (!present.contains(PolicyRule.parse(rule))) {
        have.add(rule.deepCopy());
        changed = true;
      }
    }
    return changed;
  }

  private static boolean addMissing(ArrayNode have, JsonNode desired) {
    boolean changed = false;
    for (JsonNode element : desired) {
      boolean found = false;
      for (JsonNode present : have) {
        if (withoutEmpty(present).equals(withoutEmpty(element))) {
          found = true;
          break;
        }
      }
      if (!found) {
        have.add(element.deepCopy());
        changed = true;
      }
    }
    return changed;
  }

  private static JsonNode withoutEmpty(JsonNode node) {
    if (!node.isObject()) {
      return node;
    }
    ObjectNode copy = JsonNodeFactory.instance.objectNode();
    node.fields()
        .forEachRemaining(
            f -> {
              if (!(f.getValue().isTextual() && f.getValue().asText().isEmpty())
                  && !f.getValue().isNull()) {
                copy.set(f.getKey(), f.getValue());
              }
            });
    return copy;
  }

  /**
   * kube-controller-manager's clusterrole-aggregation controller for one ClusterRole: the rules an
   * aggregated ClusterRole must hold, the union (without duplicates) of the rules of every other
   * ClusterRole its selectors match, in name order; empty when {@code role} is not aggregated or
   * already holds exactly those rules.
   */
  public static Optional<ArrayNode> aggregatedRules(
      ObjectNode role, List<ObjectNode> clusterRoles) {
    JsonNode selectors = role.path("aggregationRule").path("clusterRoleSelectors");
    if (!selectors.isArray() || selectors.isEmpty()) {
      return Optional.empty();
    }
    List<LabelSelector> parsed = new ArrayList<>();
    selectors.forEach(s -> parsed.add(LabelSelector.parse(s)));
    String name = role.path("metadata").path("name").asText();
    List<ObjectNode> selected = new ArrayList<>();
    for (ObjectNode candidate : clusterRoles) {
      if (candidate.path("metadata").path("name").asText().equals(name)) {
        continue;
      }
      var labels = AuthorizationIndex.labels(candidate);
      if (parsed.stream().anyMatch(s -> s.matches(labels))) {
        selected.add(candidate);
      }
    }
    selected.sort(
        (a, b) ->
            a.path("metadata")
                .path("name")
                .asText()
                .compareTo(b.path("metadata").path("name").asText()));
    Set<PolicyRule> rules = new LinkedHashSet<>();
    for (ObjectNode candidate : selected) {
      rules.addAll(PolicyRule.parseAll(candidate.path("rules")));
    }
    List<PolicyRule> current = PolicyRule.parseAll(role.path("rules"));
    if (current.equals(List.copyOf(rules))) {
      return Optional.empty();
    }
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    rules.forEach(rule -> array.add(rule.toJson()));
    return Optional.of(array);
  }
}
