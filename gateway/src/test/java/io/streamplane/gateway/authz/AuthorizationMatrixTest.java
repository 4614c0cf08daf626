package io.streamplane.gateway.authz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster's authorizers (system:masters, Node, RBAC, in kube-apiserver's order) over
 * Kubernetes' default policy and a few bindings, checked against what Kubernetes answers: users
 * bound to view, edit and admin in one namespace, a user bound to view in every namespace, a
 * service account, a group with a custom role, anonymous and authenticated users without bindings,
 * and two nodes touching their own and each other's objects. The expectations of the bootstrap
 * roles are the roles' documented content (what view, edit and admin grant), written out here, not
 * derived from the code under test.
 */
class AuthorizationMatrixTest {

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final List<String> VERBS =
      List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");
  private static final Set<String> READ = Set.of("get", "list", "watch");
  private static final Set<String> WRITE =
      Set.of("create", "update", "patch", "delete", "deletecollection");

  /** A resource as the matrix uses it: API group, resource, subresource. */
  private record Res(String group, String resource, String subresource) {
    @Override
    public String toString() {
      return (group.isEmpty() ? "" : group + "/")
          + resource
          + (subresource.isEmpty() ? "" : "/" + subresource);
    }
  }

  private static final Res PODS = new Res("", "pods", "");
  private static final Res POD_LOG = new Res("", "pods", "log");
  private static final Res POD_STATUS = new Res("", "pods", "status");
  private static final Res SECRETS = new Res("", "secrets", "");
  private static final Res CONFIGMAPS = new Res("", "configmaps", "");
  private static final Res DEPLOYMENTS = new Res("apps", "deployments", "");
  private static final Res DEPLOYMENT_SCALE = new Res("apps", "deployments", "scale");
  private static final Res ROLES = new Res("rbac.authorization.k8s.io", "roles", "");
  private static final Res ROLE_BINDINGS = new Res("rbac.authorization.k8s.io", "rolebindings", "");
  private static final Res LEASES = new Res("coordination.k8s.io", "leases", "");
  private static final Res CRONTABS = new Res("stable.example.com", "crontabs", "");
  private static final List<Res> NAMESPACED =
      List.of(
          PODS,
          POD_LOG,
          POD_STATUS,
          SECRETS,
          CONFIGMAPS,
          DEPLOYMENTS,
          DEPLOYMENT_SCALE,
          ROLES,
          ROLE_BINDINGS,
          LEASES,
          CRONTABS);

  /** The namespaces asked about; "" is a request across all namespaces (cluster scope). */
  private static final List<String> NAMESPACES = List.of("team-a", "team-b", "");

  private static final UserInfo ADMIN = user("kubernetes-admin", "system:masters");
  private static final UserInfo ALICE = user("alice");
  private static final UserInfo BOB = user("bob");
  private static final UserInfo CAROL = user("carol");
  private static final UserInfo DAVE = user("dave", "devs");
  private static final UserInfo EVE = user("eve");
  private static final UserInfo FRANK = user("frank");
  private static final UserInfo BUILDER =
      user(
          "system:serviceaccount:team-a:builder",
          "system:serviceaccounts",
          "system:serviceaccounts:team-a");
  private static final UserInfo OTHER_SA =
      user(
          "system:serviceaccount:team-b:builder",
          "system:serviceaccounts",
          "system:serviceaccounts:team-b");
  private static final UserInfo ANONYMOUS =
      UserInfo.newBuilder()
          .setUsername("system:anonymous")
          .setGroups(List.of("system:unauthenticated"))
          .build();
  private static final UserInfo NODE_1 = user("system:node:node-1", "system:nodes");
  private static final UserInfo NODE_2 = user("system:node:node-2", "system:nodes");
  private static final UserInfo FAKE_NODE = user("system:node:node-1");

  private AuthorizationIndex index;
  private Authorization authorization;
  private final List<String> mismatches = new ArrayList<>();
  private int cases;

  @BeforeEach
  void cluster() throws Exception {
    index = new AuthorizationIndex();
    for (BootstrapPolicy.Item item : BootstrapPolicy.kubernetes().items()) {
      index.put(item.resource(), item.object());
    }
    put(
        "rolebindings",
        """
        metadata: {name: alice-view, namespace: team-a}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
        """);
    put(
        "rolebindings",
        """
        metadata: {name: bob-edit, namespace: team-a}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
        """);
    put(
        "rolebindings",
        """
        metadata: {name: carol-admin, namespace: team-a}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}]
        """);
    // A ServiceAccount subject without a namespace is the binding's namespace's.
    put(
        "rolebindings",
        """
        metadata: {name: builder-edit, namespace: team-a}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
        subjects: [{kind: ServiceAccount, name: builder}]
        """);
    put(
        "clusterrolebindings",
        """
        metadata: {name: frank-view}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: frank}]
        """);
    put(
        "roles",
        """
        metadata: {name: config-reader, namespace: team-b}
        rules:
        - {apiGroups: [""], resources: [configmaps], resourceNames: [app-config], verbs: [get]}
        - {apiGroups: [""], resources: [pods, pods/log], verbs: [get, list]}
        - {apiGroups: ["*"], resources: ["*/scale"], verbs: [get]}
        """);
    put(
        "rolebindings",
        """
        metadata: {name: devs-config, namespace: team-b}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: config-reader}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}]
        """);
    put(
        "clusterroles",
        """
        metadata: {name: log-reader}
        rules:
        - {nonResourceURLs: [/metrics, /logs/*], verbs: [get]}
        """);
    put(
        "clusterrolebindings",
        """
        metadata: {name: devs-logs}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: log-reader}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}]
        """);
    // Aggregated into view, hence into edit and admin too.
    put(
        "clusterroles",
        """
        metadata:
          name: crontab-viewer
          labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
        rules:
        - {apiGroups: [stable.example.com], resources: [crontabs], verbs: [get, list, watch]}
        """);
    put(
        "clusterroles",
        """
        metadata:
          name: crontab-editor
          labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}
        rules:
        - {apiGroups: [stable.example.com], resources: [crontabs], verbs: [create, update, patch, delete, deletecollection]}
        """);
    put(
        "pods",
        """
        metadata: {name: web-1, namespace: team-a}
        spec:
          nodeName: node-1
          serviceAccountName: builder
          containers:
          - name: web
            env:
            - name: PASSWORD
              valueFrom: {secretKeyRef: {name: db-pass, key: password}}
            envFrom: [{configMapRef: {name: app-config}}]
          volumes:
          - {name: data, persistentVolumeClaim: {claimName: data}}
          - {name: tls, projected: {sources: [{secret: {name: web-tls}}]}}
        """);
    put(
        "pods",
        """
        metadata: {name: api-1, namespace: team-b}
        spec:
          nodeName: node-2
          containers: [{name: api}]
          volumes: [{name: key, secret: {secretName: api-key}}]
        """);
    // Not bound yet: no node may read what it references.
    put(
        "pods",
        """
        metadata: {name: pending-1, namespace: team-a}
        spec:
          containers: [{name: app}]
          volumes: [{name: key, secret: {secretName: pending-key}}]
        """);
    authorization =
        new Authorization(
            List.of(
                new PrivilegedGroups(),
                new NodeAuthorizer(
                    index, BootstrapPolicy.kubernetes().clusterRoleRules("system:node")),
                new Rbac(index)));
  }

  @Test
  void everyCaseOfTheMatrixIsDecidedAsKubernetesDecidesIt() {
    for (String namespace : NAMESPACES) {
      boolean teamA = namespace.equals("team-a");
      for (Res res : NAMESPACED) {
        for (String verb : VERBS) {
          expect(ADMIN, verb, res, namespace, true);
          expect(ALICE, verb, res, namespace, teamA && view(res, verb));
          expect(FRANK, verb, res, namespace, view(res, verb));
          expect(BOB, verb, res, namespace, teamA && edit(res, verb));
          expect(BUILDER, verb, res, namespace, teamA && edit(res, verb));
          expect(OTHER_SA, verb, res, namespace, false);
          expect(CAROL, verb, res, namespace, teamA && admin(res, verb));
          expect(EVE, verb, res, namespace, false);
          expect(ANONYMOUS, verb, res, namespace, false);
        }
      }
    }
    customRoleWithNamesAndSubresourceWildcards();
    clusterScopedResources();
    nonResourceUrls();
    reviews();
    nodes();
    assertThat(cases).isGreaterThanOrEqualTo(200);
    assertThat(mismatches).as("%d cases", cases).isEmpty();
  }

  private void customRoleWithNamesAndSubresourceWildcards() {
    expect(DAVE, "get", CONFIGMAPS, "team-b", "app-config", true);
    expect(DAVE, "get", CONFIGMAPS, "team-b", "other-config", false);
    expect(DAVE, "list", CONFIGMAPS, "team-b", "", false);
    expect(DAVE, "update", CONFIGMAPS, "team-b", "app-config", false);
    expect(DAVE, "get", CONFIGMAPS, "team-a", "app-config", false);
    expect(DAVE, "get", PODS, "team-b", "api-1", true);
    expect(DAVE, "list", PODS, "team-b", "", true);
    expect(DAVE, "watch", PODS, "team-b", "", false);
    expect(DAVE, "get", POD_LOG, "team-b", "api-1", true);
    expect(DAVE, "get", POD_STATUS, "team-b", "api-1", false);
    expect(DAVE, "get", DEPLOYMENT_SCALE, "team-b", "web", true);
    expect(DAVE, "get", new Res("apps", "replicasets", "scale"), "team-b", "web", true);
    expect(DAVE, "update", DEPLOYMENT_SCALE, "team-b", "web", false);
    expect(DAVE, "get", DEPLOYMENTS, "team-b", "web", false);
    expect(DAVE, "list", PODS, "", "", false);
  }

  private void clusterScopedResources() {
    Res namespaces = new Res("", "namespaces", "");
    Res nodes = new Res("", "nodes", "");
    Res clusterRoles = new Res("rbac.authorization.k8s.io", "clusterroles", "");
    // A RoleBinding in a namespace grants reading that namespace (its name is its namespace).
    expect(ALICE, "get", namespaces, "team-a", "team-a", true);
    expect(ALICE, "get", namespaces, "team-b", "team-b", false);
    expect(ALICE, "list", namespaces, "", "", false);
    expect(ALICE, "delete", namespaces, "team-a", "team-a", false);
    expect(CAROL, "delete", namespaces, "team-a", "team-a", false);
    expect(FRANK, "list", namespaces, "", "", true);
    expect(FRANK, "list", nodes, "", "", false);
    expect(FRANK, "list", clusterRoles, "", "", false);
    expect(BOB, "list", nodes, "", "", false);
    expect(ADMIN, "delete", nodes, "", "node-1", true);
    expect(EVE, "get", nodes, "", "node-1", false);
  }

  private void nonResourceUrls() {
    for (String path : List.of("/healthz", "/livez", "/readyz", "/version", "/version/")) {
      expectPath(ANONYMOUS, "get", path, true);
      expectPath(EVE, "get", path, true);
    }
    for (String path : List.of("/api", "/api/v1", "/apis", "/apis/apps/v1", "/openapi/v2")) {
      expectPath(ANONYMOUS, "get", path, false);
      expectPath(EVE, "get", path, true);
      expectPath(EVE, "post", path, false);
    }
    expectPath(ANONYMOUS, "get", "/metrics", false);
    expectPath(EVE, "get", "/metrics", false);
    expectPath(EVE, "get", "/healthz/etcd", false);
    expectPath(DAVE, "get", "/metrics", true);
    expectPath(DAVE, "post", "/metrics", false);
    expectPath(DAVE, "get", "/logs/kube-apiserver.log", true);
    expectPath(DAVE, "get", "/logs", false);
    expectPath(ADMIN, "delete", "/anything", true);
    expectPath(user("prometheus", "system:monitoring"), "get", "/metrics", true);
    expectPath(user("prometheus", "system:monitoring"), "get", "/readyz/ping", true);
  }

  private void reviews() {
    Res ssar = new Res("authorization.k8s.io", "selfsubjectaccessreviews", "");
    Res ssrr = new Res("authorization.k8s.io", "selfsubjectrulesreviews", "");
    Res sar = new Res("authorization.k8s.io", "subjectaccessreviews", "");
    Res lsar = new Res("authorization.k8s.io", "localsubjectaccessreviews", "");
    expect(EVE, "create", ssar, "", "", true);
    expect(EVE, "create", ssrr, "", "", true);
    expect(ANONYMOUS, "create", ssar, "", "", false);
    expect(EVE, "create", sar, "", "", false);
    expect(CAROL, "create", lsar, "team-a", "", true);
    expect(BOB, "create", lsar, "team-a", "", false);
    expect(NODE_1, "create", sar, "", "", true);
  }

  private void nodes() {
    Res nodes = new Res("", "nodes", "");
    Res nodeStatus = new Res("", "nodes", "status");
    Res pvcs = new Res("", "persistentvolumeclaims", "");
    Res token = new Res("", "serviceaccounts", "token");
    Res serviceAccounts = new Res("", "serviceaccounts", "");
    Res events = new Res("", "events", "");
    Res services = new Res("", "services", "");
    // Its own Node, and only it.
    expect(NODE_1, "get", nodes, "", "node-1", true);
    expect(NODE_1, "watch", nodes, "", "node-1", true);
    expect(NODE_1, "get", nodes, "", "node-2", false);
    expect(NODE_1, "list", nodes, "", "", false);
    expect(NODE_1, "delete", nodes, "", "node-1", false);
    // Writes of Node objects are the NodeRestriction admission plugin's to limit, as in Kubernetes.
    expect(NODE_1, "create", nodes, "", "", true);
    expect(NODE_1, "update", nodeStatus, "", "node-1", true);
    expect(NODE_1, "patch", nodeStatus, "", "node-2", true);
    expect(NODE_1, "get", nodeStatus, "", "node-1", false);
    // Its own Lease in kube-node-lease.
    expect(NODE_1, "get", LEASES, "kube-node-lease", "node-1", true);
    expect(NODE_1, "update", LEASES, "kube-node-lease", "node-1", true);
    expect(NODE_1, "create", LEASES, "kube-node-lease", "", true);
    expect(NODE_1, "update", LEASES, "kube-node-lease", "node-2", false);
    expect(NODE_1, "get", LEASES, "kube-node-lease", "node-2", false);
    expect(NODE_1, "list", LEASES, "kube-node-lease", "", false);
    expect(NODE_1, "get", LEASES, "kube-system", "node-1", false);
    expect(NODE_2, "delete", LEASES, "kube-node-lease", "node-2", true);
    // The pods bound to it.
    expect(NODE_1, "get", PODS, "team-a", "web-1", true);
    expect(NODE_1, "get", PODS, "team-b", "api-1", false);
    expect(NODE_2, "get", PODS, "team-b", "api-1", true);
    expect(NODE_2, "get", PODS, "team-a", "web-1", false);
    expect(NODE_1, "get", PODS, "team-a", "pending-1", false);
    expect(NODE_1, "list", PODS, "", "", false);
    expect(NODE_1, "watch", PODS, "team-a", "", false);
    expect(NODE_1, "update", POD_STATUS, "team-a", "web-1", true);
    expect(NODE_1, "delete", PODS, "team-a", "web-1", true);
    expect(NODE_1, "update", PODS, "team-a", "web-1", false);
    expect(NODE_1, "get", POD_LOG, "team-a", "web-1", false);
    // What those pods reference, and nothing else.
    expect(NODE_1, "get", SECRETS, "team-a", "db-pass", true);
    expect(NODE_1, "get", SECRETS, "team-a", "web-tls", true);
    expect(NODE_1, "watch", SECRETS, "team-a", "db-pass", true);
    expect(NODE_1, "get", SECRETS, "team-b", "api-key", false);
    expect(NODE_2, "get", SECRETS, "team-b", "api-key", true);
    expect(NODE_2, "get", SECRETS, "team-a", "db-pass", false);
    expect(NODE_1, "get", SECRETS, "team-a", "pending-key", false);
    expect(NODE_2, "get", SECRETS, "team-a", "pending-key", false);
    expect(NODE_1, "list", SECRETS, "team-a", "", false);
    expect(NODE_1, "update", SECRETS, "team-a", "db-pass", false);
    expect(NODE_1, "delete", SECRETS, "team-a", "db-pass", false);
    expect(NODE_1, "get", CONFIGMAPS, "team-a", "app-config", true);
    expect(NODE_2, "get", CONFIGMAPS, "team-a", "app-config", false);
    expect(NODE_1, "get", CONFIGMAPS, "team-a", "other", false);
    expect(NODE_1, "get", pvcs, "team-a", "data", true);
    expect(NODE_2, "get", pvcs, "team-a", "data", false);
    expect(NODE_1, "list", pvcs, "team-a", "", false);
    expect(NODE_1, "create", token, "team-a", "builder", true);
    expect(NODE_2, "create", token, "team-a", "builder", false);
    expect(NODE_1, "create", token, "team-a", "default", false);
    expect(NODE_1, "get", serviceAccounts, "team-a", "builder", false);
    // The rest as the system:node role says.
    expect(NODE_1, "create", events, "team-a", "", true);
    expect(NODE_1, "patch", events, "team-b", "e", true);
    expect(NODE_1, "delete", events, "team-a", "e", false);
    expect(NODE_1, "list", services, "", "", true);
    expect(NODE_1, "get", DEPLOYMENTS, "team-a", "web", false);
    expect(NODE_1, "list", ROLES, "team-a", "", false);
    // A node's name without the system:nodes group is not a node.
    expect(FAKE_NODE, "get", nodes, "", "node-1", false);
    expect(FAKE_NODE, "get", SECRETS, "team-a", "db-pass", false);
    expect(FAKE_NODE, "get", PODS, "team-a", "web-1", false);
  }

  @Test
  void reasonsNameTheGrantAsRbacDoes() {
    assertThat(decide(ALICE, "list", PODS, "team-a", "").reason())
        .isEqualTo(
            "RBAC: allowed by RoleBinding \"alice-view/team-a\" of ClusterRole \"view\" to User"
                + " \"alice\"");
    assertThat(decide(FRANK, "get", PODS, "team-b", "x").reason())
        .isEqualTo(
            "RBAC: allowed by ClusterRoleBinding \"frank-view\" of ClusterRole \"view\" to User"
                + " \"frank\"");
    assertThat(decide(BUILDER, "create", PODS, "team-a", "").reason())
        .isEqualTo(
            "RBAC: allowed by RoleBinding \"builder-edit/team-a\" of ClusterRole \"edit\" to"
                + " ServiceAccount \"builder/team-a\"");
    assertThat(decide(DAVE, "get", CONFIGMAPS, "team-b", "app-config").reason())
        .isEqualTo(
            "RBAC: allowed by RoleBinding \"devs-config/team-b\" of Role \"config-reader\" to"
                + " Group \"devs\"");
    Decision node = decide(NODE_1, "get", SECRETS, "team-b", "api-key");
    assertThat(node.allowed()).isFalse();
    assertThat(node.reason())
        .isEqualTo("no relationship found between node 'node-1' and this object");
  }

  @Test
  void aBindingToAMissingRoleGrantsNothingAndSaysWhy() throws Exception {
    put(
        "clusterrolebindings",
        """
        metadata: {name: ghost}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: does-not-exist}
        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ghost}]
        """);
    Decision decision = decide(user("ghost"), "get", PODS, "team-a", "x");
    assertThat(decision.allowed()).isFalse();
    assertThat(decision.reason())
        .isEqualTo("RBAC: clusterrole.rbac.authorization.k8s.io \"does-not-exist\" not found");
  }

  @Test
  void removingABindingOrAnAggregatedRoleTakesTheGrantAway() throws Exception {
    assertThat(decide(ALICE, "list", CRONTABS, "team-a", "").allowed()).isTrue();
    index.remove("clusterroles", object("metadata: {name: crontab-viewer}"));
    assertThat(decide(ALICE, "list", CRONTABS, "team-a", "").allowed()).isFalse();
    assertThat(decide(CAROL, "list", CRONTABS, "team-a", "").allowed()).isFalse();
    assertThat(decide(CAROL, "delete", CRONTABS, "team-a", "x").allowed()).isTrue();
    index.remove("rolebindings", object("metadata: {name: carol-admin, namespace: team-a}"));
    assertThat(decide(CAROL, "delete", CRONTABS, "team-a", "x").allowed()).isFalse();
    index.remove("pods", object("metadata: {name: web-1, namespace: team-a}"));
    assertThat(decide(NODE_1, "get", SECRETS, "team-a", "db-pass").allowed()).isFalse();
  }

  @Test
  void aDecisionReadsOnlyTheBindingsOfItsUserHoweverManyOthersExist() throws Exception {
    for (int i = 0; i < 20_000; i++) {
      put(
          i % 2 == 0 ? "rolebindings" : "clusterrolebindings",
          "metadata: {name: other-"
              + i
              + ", namespace: team-a}\n"
              + "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}\n"
              + "subjects: [{kind: User, name: user-"
              + i
              + "}]\n");
    }
    assertThat(index.roleBindingsFor(ALICE, "team-a")).hasSize(1);
    assertThat(index.clusterRoleBindingsFor(ALICE)).hasSize(3);
    int decisions = 200_000;
    long start = System.nanoTime();
    int allowed = 0;
    for (int i = 0; i < decisions; i++) {
      allowed +=
          decide(ALICE, i % 2 == 0 ? "list" : "create", PODS, "team-a", "").allowed() ? 1 : 0;
    }
    long nanos = System.nanoTime() - start;
    assertThat(allowed).isEqualTo(decisions / 2);
    System.out.printf(
        "%d RBAC decisions among 20,000 other bindings: %.2f µs each%n",
        decisions, nanos / 1000.0 / decisions);
  }

  @Test
  void rulesReviewListsTheRulesOfEveryBindingOfTheUser() {
    RuleResolver.Rules alice = authorization.rulesFor(ALICE, "team-a");
    assertThat(alice.incomplete()).isFalse();
    assertThat(alice.resourceRules())
        .anyMatch(
            r ->
                r.resources().contains("pods")
                    && r.verbs().containsAll(List.of("get", "list", "watch")));
    assertThat(alice.resourceRules())
        .anyMatch(r -> r.resources().contains("selfsubjectaccessreviews"));
    assertThat(alice.nonResourceRules()).anyMatch(r -> r.nonResourceURLs().contains("/api/*"));
    assertThat(alice.resourceRules()).noneMatch(r -> r.resources().contains("secrets"));
    assertThat(authorization.rulesFor(ALICE, "team-b").resourceRules())
        .noneMatch(r -> r.resources().contains("pods"));
    assertThat(authorization.rulesFor(NODE_1, "team-a").incomplete()).isTrue();
  }

  // ---------------------------------------------------------------- what the roles grant

  /** view: reads of the namespaced workload objects, never secrets nor RBAC objects. */
  private static boolean view(Res res, String verb) {
    Set<Res> readable =
        Set.of(PODS, POD_LOG, POD_STATUS, CONFIGMAPS, DEPLOYMENTS, DEPLOYMENT_SCALE, CRONTABS);
    return READ.contains(verb) && readable.contains(res);
  }

  /** edit: view, reading secrets, writing workloads, config maps and secrets, and leases. */
  private static boolean edit(Res res, String verb) {
    if (view(res, verb) || res.equals(LEASES)) {
      return true;
    }
    if (res.equals(SECRETS)) {
      return true;
    }
    Set<Res> writable = Set.of(PODS, CONFIGMAPS, DEPLOYMENTS, DEPLOYMENT_SCALE, CRONTABS);
    return WRITE.contains(verb) && writable.contains(res);
  }

  /** admin: edit, and the namespace's Roles and RoleBindings. */
  private static boolean admin(Res res, String verb) {
    return edit(res, verb) || res.equals(ROLES) || res.equals(ROLE_BINDINGS);
  }

  // ---------------------------------------------------------------- plumbing

  private void expect(UserInfo user, String verb, Res res, String namespace, boolean allowed) {
    String name = Set.of("get", "update", "patch", "delete").contains(verb) ? "x" : "";
    expect(user, verb, res, namespace, name, allowed);
  }

  private void expect(
      UserInfo user, String verb, Res res, String namespace, String name, boolean allowed) {
    cases++;
    Decision decision = decide(user, verb, res, namespace, name);
    if (decision.allowed() != allowed) {
      mismatches.add(
          user.getUsername()
              + " "
              + verb
              + " "
              + res
              + " "
              + namespace
              + "/"
              + name
              + ": expected "
              + (allowed ? "allowed" : "denied")
              + ", got "
              + decision);
    }
  }

  private void expectPath(UserInfo user, String verb, String path, boolean allowed) {
    cases++;
    Decision decision =
        authorization.authorize(new Attributes(user, verb, false, "", "", "", "", "", path));
    if (decision.allowed() != allowed) {
      mismatches.add(
          user.getUsername()
              + " "
              + verb
              + " "
              + path
              + ": expected "
              + (allowed ? "allowed" : "denied")
              + ", got "
              + decision);
    }
  }

  private Decision decide(UserInfo user, String verb, Res res, String namespace, String name) {
    return authorization.authorize(
        new Attributes(
            user, verb, true, res.group(), res.resource(), res.subresource(), namespace, name, ""));
  }

  private static UserInfo user(String name, String... groups) {
    List<String> all = new ArrayList<>(List.of(groups));
    if (!name.equals("system:anonymous")) {
      all.add("system:authenticated");
    }
    return UserInfo.newBuilder().setUsername(name).setGroups(all).build();
  }

  private void put(String resource, String yaml) throws Exception {
    index.put(resource, object(yaml));
  }

  private static ObjectNode object(String yaml) throws Exception {
    JsonNode node = YAML.readTree(yaml);
    return (ObjectNode) new ObjectMapper().readTree(node.toString());
  }
}
