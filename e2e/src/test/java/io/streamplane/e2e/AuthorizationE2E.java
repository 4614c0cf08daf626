package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * RBAC through the real kubectl 1.32 against {@code ./streamplane up}: the admin ({@code
 * system:masters}) binds users to the default roles, and {@code kubectl auth can-i --as} (which
 * impersonates the user and posts a SelfSubjectAccessReview as them) and {@code kubectl auth can-i
 * --list} (a SelfSubjectRulesReview) answer as against kube-apiserver; a request the user may not
 * make is refused with kube-apiserver's 403.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationE2E {

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster() throws Exception {
    assertThat(Kubectl.BINARY).as("kubectl 1.32 must be installed at /usr/bin/kubectl").exists();
    home = Files.createTempDirectory("authorization-e2e");
    cluster = new LocalCluster(home, 22093, 22094).start();
    kubectl = cluster.kubectl;
    // Ready means ready: right after up says so, the default policy is in place and authorizes.
    assertThat(
            kubectl
                .run("auth", "can-i", "create", "selfsubjectaccessreviews", "--as", "nobody")
                .out()
                .trim())
        .isEqualTo("yes");
    kubectl.run("create", "namespace", "team-a").expectSuccess();
    kubectl.run("create", "namespace", "team-b").expectSuccess();
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.stop();
      cluster.close();
    }
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void readyzAndLivezListTheirChecksAsKubeApiserverDoes() throws Exception {
    assertThat(kubectl.run("get", "--raw", "/readyz").expectSuccess().out()).isEqualTo("ok");
    assertThat(kubectl.run("get", "--raw", "/readyz?verbose").expectSuccess().out())
        .contains(
            "[+]ping ok",
            "[+]log ok",
            "[+]poststarthook/start-system-namespaces-controller ok",
            "[+]poststarthook/rbac/bootstrap-roles ok",
            "[+]poststarthook/scheduling/bootstrap-system-priority-classes ok",
            "[+]poststarthook/bootstrap-controller ok",
            "[+]shutdown ok")
        .endsWith("readyz check passed\n");
    assertThat(kubectl.run("get", "--raw", "/livez?verbose").expectSuccess().out())
        .contains("[+]poststarthook/rbac/bootstrap-roles ok")
        .doesNotContain("shutdown")
        .endsWith("livez check passed\n");
    assertThat(
            kubectl.run("get", "--raw", "/readyz?verbose&exclude=shutdown").expectSuccess().out())
        .doesNotContain("shutdown");
    assertThat(
            kubectl
                .run("get", "--raw", "/readyz/poststarthook/rbac/bootstrap-roles")
                .expectSuccess()
                .out())
        .isEqualTo("ok");
    assertThat(kubectl.run("get", "--raw", "/readyz/no-such-check").exitCode()).isNotZero();
  }

  @Test
  void aUserBoundToViewInANamespaceMayReadThereAndNothingElse() throws Exception {
    kubectl
        .run(
            "create",
            "rolebinding",
            "alice-view",
            "-n",
            "team-a",
            "--clusterrole=view",
            "--user=alice")
        .expectSuccess();
    await("alice may list pods in team-a")
        .atMost(Duration.ofSeconds(30))
        .until(() -> canI("list", "pods", "-n", "team-a").equals("yes"));
    assertThat(canI("get", "deployments.apps", "-n", "team-a")).isEqualTo("yes");
    assertThat(canI("create", "pods", "-n", "team-a")).isEqualTo("no");
    assertThat(canI("get", "secrets", "-n", "team-a")).isEqualTo("no");
    assertThat(canI("list", "pods", "-n", "team-b")).isEqualTo("no");
    assertThat(canI("list", "pods", "--all-namespaces")).isEqualTo("no");
    assertThat(canI("get", "/version")).isEqualTo("yes");
    assertThat(canI("get", "/metrics")).isEqualTo("no");

    Kubectl.Result forbidden = kubectl.run("--as", "alice", "get", "pods", "-n", "team-b");
    assertThat(forbidden.exitCode()).isNotZero();
    assertThat(forbidden.err())
        .contains(
            "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in"
                + " the namespace \"team-b\"");
    assertThat(kubectl.run("--as", "alice", "get", "pods", "-n", "team-a").exitCode()).isZero();
    Kubectl.Result create =
        kubectl.run("--as", "alice", "create", "configmap", "c1", "-n", "team-a");
    assertThat(create.err())
        .contains(
            "configmaps is forbidden: User \"alice\" cannot create resource \"configmaps\" in API"
                + " group \"\" in the namespace \"team-a\"");
  }

  @Test
  void canIListShowsTheRulesOfTheUsersBindings() throws Exception {
    kubectl
        .run("create", "clusterrolebinding", "bob-edit", "--clusterrole=edit", "--user=bob")
        .expectSuccess();
    await("bob may create deployments everywhere")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl
                    .run(
                        "auth",
                        "can-i",
                        "create",
                        "deployments.apps",
                        "--as",
                        "bob",
                        "-n",
                        "team-b")
                    .out()
                    .trim()
                    .equals("yes"));
    String list = kubectl.run("auth", "can-i", "--list", "--as", "bob", "-n", "team-b").out();
    assertThat(list).contains("Resources", "Non-Resource URLs", "Verbs");
    assertThat(list).containsPattern("deployments\\.apps\\s+\\[\\]\\s+\\[\\]\\s+\\[[^\\]]*create");
    assertThat(list).containsPattern("selfsubjectaccessreviews\\.authorization\\.k8s\\.io");
    assertThat(list).contains("/version");
    String nobody = kubectl.run("auth", "can-i", "--list", "--as", "nobody", "-n", "team-b").out();
    assertThat(nobody).doesNotContain("deployments.apps");
    assertThat(nobody).contains("selfsubjectrulesreviews.authorization.k8s.io");
  }

  @Test
  void aServiceAccountBoundInItsNamespaceMayWriteThere() throws Exception {
    kubectl
        .run(
            "create",
            "rolebinding",
            "builder-edit",
            "-n",
            "team-a",
            "--clusterrole=edit",
            "--serviceaccount=team-a:builder")
        .expectSuccess();
    String sa = "system:serviceaccount:team-a:builder";
    await("the builder may create pods in team-a")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl
                    .run("auth", "can-i", "create", "pods", "--as", sa, "-n", "team-a")
                    .out()
                    .trim()
                    .equals("yes"));
    assertThat(
            kubectl.run("auth", "can-i", "create", "pods", "--as", sa, "-n", "team-b").out().trim())
        .isEqualTo("no");
  }

  private String canI(String verb, String resource, String... flags) throws Exception {
    String[] args = new String[5 + flags.length];
    args[0] = "auth";
    args[1] = "can-i";
    args[2] = verb;
    args[3] = resource;
    args[4] = "--as=alice";
    System.arraycopy(flags, 0, args, 5, flags.length);
    return kubectl.run(args).out().trim();
  }
}
