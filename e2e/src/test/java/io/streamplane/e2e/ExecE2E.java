package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code kubectl exec}, {@code cp} and {@code attach} with the real kubectl 1.32 against {@code
 * ./streamplane up --runtime process}: nginx runs as a real process on node-0, and a second node
 * process with the simulated runtime ({@code sim-0}) holds a pod that runs nothing. Exec, attach
 * and port-forward pass the gateway's filters as every request does: authorized as a create of
 * their subresource, impersonable, and audited ({@code streamplane audit}); bob is bound to the
 * view ClusterRole only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.ONE_PROCESS_NODE)
class ExecE2E {

  private String auditedStreamsQuietly() {
    try {
      return auditedStreams().toString();
    } catch (Exception e) {
      return e.toString();
    }
  }

  private static final Duration RUNNING = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  private Path home;
  private LocalCluster cluster;
  private Launcher simulatedNode;
  private Kubectl kubectl;
  private PythonClient python;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    home = Files.createTempDirectory("exec-e2e");
    cluster = shared;
    kubectl = cluster.kubectl;
    python = new PythonClient(home, cluster.home.resolve("kubeconfig"));
    simulatedNode =
        Launcher.startLabelled(
            "sim-0",
            "node",
            "--name",
            "sim-0",
            "--runtime",
            "simulated",
            "--pod-cidr",
            "10.250.0.0/24",
            "--api-server",
            cluster.apiUrl(),
            "--pki-dir",
            cluster.pkiDir().toString(),
            "--bootstrap-server",
            cluster.kafkaBootstrap());
    simulatedNode.awaitLine("Ctrl-C to stop", RUNNING);
    await("node-0 and sim-0 Ready")
        .atMost(RUNNING)
        .until(
            () ->
                kubectl
                        .run("get", "nodes", "node-0", "sim-0", "--no-headers")
                        .out()
                        .lines()
                        .filter(l -> l.contains(" Ready "))
                        .count()
                    == 2);
    kubectl
        .run("create", "clusterrolebinding", "bob-view", "--clusterrole=view", "--user=bob")
        .expectSuccess();
    runOn("web", "nginx", "node-0");
    runOn("sim", "nginx", "sim-0");
    for (String pod : List.of("web", "sim")) {
      kubectl.run("wait", "--for=condition=Ready", "pod/" + pod, "--timeout=120s").expectSuccess();
    }
  }

  private void runOn(String pod, String image, String node) throws Exception {
    kubectl
        .run(
            "run",
            pod,
            "--image=" + image,
            "--overrides={\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\""
                + node
                + "\"}}}")
        .expectSuccess();
  }

  @AfterAll
  void cleanUp() throws Exception {
    if (simulatedNode != null) {
      simulatedNode.close();
      kubectl.run("delete", "node", "sim-0").expectSuccess();
    }
    kubectl
        .run("delete", "pod", "web", "sim", "--ignore-not-found", "--wait=false")
        .expectSuccess();
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void execPrintsTheCommandsOutputAndRunsInTheContainersEnvironment() throws Exception {
    Kubectl.Result result =
        kubectl.run("exec", "web", "--", "sh", "-c", "echo hi; echo oops >&2; echo $HOSTNAME");

    result.expectSuccess();
    assertThat(result.out()).isEqualTo("hi\nweb\n");
    assertThat(result.err()).isEqualTo("oops\n");
  }

  @Test
  void aCommandsExitCodeIsKubectlsExitCode() throws Exception {
    Kubectl.Result result = kubectl.run("exec", "web", "--", "sh", "-c", "exit 3");

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.err()).contains("command terminated with exit code 3");
  }

  @Test
  void stdinReachesTheCommandAndItsEndEndsTheCommand() throws Exception {
    Kubectl.Result result =
        kubectl.runWithInput("one\ntwo\n", "exec", "-i", "web", "--", "wc", "-l");

    result.expectSuccess();
    assertThat(result.out().trim()).isEqualTo("2");
  }

  @Test
  void withATerminalTheCommandSeesATtyAndItsExitCodeIsKubectlsExitCode() throws Exception {
    // script gives kubectl a terminal of its own, as a user's shell would.
    String line =
        kubectl.command("exec", "-it", "web", "--", "sh", "-c", "echo hi; tty; exit 3").stream()
            .map(word -> "'" + word.replace("'", "'\\''") + "'")
            .collect(Collectors.joining(" "));
    Process process =
        new ProcessBuilder("script", "--quiet", "--return", "--command", line, "/dev/null")
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().close();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(process.exitValue()).as(out).isEqualTo(3);
    // A terminal ends lines with \r\n, and tty names a pseudo-terminal.
    assertThat(out).contains("hi\r\n").containsPattern("/dev/pts/\\d+\r\n");
  }

  @Test
  void cpCopiesAFileIntoThePodAndBackByteForByte() throws Exception {
    byte[] content = new byte[300_000];
    new Random(42).nextBytes(content);
    Path local = Files.write(home.resolve("blob.bin"), content);
    Path back = home.resolve("back.bin");

    kubectl.run("cp", local.toString(), "web:/tmp/blob.bin").expectSuccess();
    kubectl.run("cp", "web:/tmp/blob.bin", back.toString()).expectSuccess();

    assertThat(Files.readAllBytes(back)).isEqualTo(content);
    // the pod's /tmp is its own, not the host's
    assertThat(Path.of("/tmp/blob.bin")).doesNotExist();
  }

  @Test
  void execInAPodOfTheSimulatedRuntimeIsRefusedWithItsReason() throws Exception {
    Kubectl.Result result = kubectl.run("exec", "sim", "--", "sh", "-c", "echo hi");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).contains("the simulated runtime runs no processes, so it cannot exec");
  }

  @Test
  void execOfAnUnknownContainerIsABadRequest() throws Exception {
    Kubectl.Result result = kubectl.run("exec", "web", "-c", "nope", "--", "true");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err()).contains("container nope is not valid for pod web");
  }

  @Test
  void portForwardServesNginxsPageOnTheLocalPort() throws Exception {
    int port = Launcher.freePort();
    Path out = home.resolve("port-forward.out");
    Process forward = kubectl.start(out, "port-forward", "pod/web", port + ":80");
    try {
      await("kubectl to listen on " + port)
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(out).contains("Forwarding from 127.0.0.1:" + port));
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("Welcome to nginx!");
      }
    } finally {
      forward.destroy();
      forward.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void thePythonClientWritesAStrToAnExecsStdinAndPortForwardsOverWebSocket() throws Exception {
    assertThat(python.run("exec", "default", "web", "hello").expectSuccess().out())
        .isEqualTo("got hello\n");
    assertThat(python.run("forward", "default", "web", "80").expectSuccess().out())
        .startsWith("HTTP/1.1 200")
        .contains("Welcome to nginx!");
  }

  @Test
  void runItRmAttachesToTheContainersOwnStdinAndRemovesThePodAfterwards() throws Exception {
    Kubectl.Result run =
        kubectl.runWithInput(
            "hello\n",
            "run",
            "-it",
            "--rm",
            "attached",
            "--image=busybox",
            "--overrides={\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"node-0\"}}}",
            "--",
            "sh",
            "-c",
            "read x; echo got $x");

    run.expectSuccess();
    assertThat(run.out()).contains("got hello").contains("pod \"attached\" deleted");
    assertThat(kubectl.run("get", "pod", "attached").err()).contains("not found");
  }

  @Test
  void debugStartsAnEphemeralContainerInTheRunningPodAndAttachesToIt() throws Exception {
    Kubectl.Result debug =
        kubectl.runWithInput(
            "echo inside-$HOSTNAME; exit\n",
            "debug",
            "pod/web",
            "-it",
            "--image=busybox",
            "--container=debugger");

    debug.expectSuccess();
    assertThat(debug.out()).contains("inside-web");
    assertThat(
            kubectl
                .run(
                    "get",
                    "pod",
                    "web",
                    "-o",
                    "jsonpath={.spec.ephemeralContainers[0].name}"
                        + " {.status.ephemeralContainerStatuses[0].name}")
                .expectSuccess()
                .out())
        .isEqualTo("debugger debugger");
    await("the debugger to end")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl
                    .run(
                        "get",
                        "pod",
                        "web",
                        "-o",
                        "jsonpath={.status.ephemeralContainerStatuses[0].state.terminated.exitCode}")
                    .out()
                    .equals("0"));
  }

  @Test
  void theNodesPodsAndServicesProxyReachTheNodesSummaryAndThePodsServer() throws Exception {
    JsonNode summary =
        JSON.readTree(
            kubectl
                .run("get", "--raw", "/api/v1/nodes/node-0/proxy/stats/summary")
                .expectSuccess()
                .out());
    assertThat(summary.at("/node/nodeName").asText()).isEqualTo("node-0");
    assertThat(summary.at("/node/memory/availableBytes").asLong()).isPositive();
    JsonNode web = null;
    for (JsonNode pod : summary.path("pods")) {
      if (pod.at("/podRef/name").asText().equals("web")) {
        web = pod;
      }
    }
    assertThat(web).as("the web pod in %s", summary).isNotNull();
    assertThat(web.at("/containers/0/name").asText()).isEqualTo("web");
    assertThat(web.at("/containers/0/cpu/usageCoreNanoSeconds").asLong()).isPositive();
    assertThat(web.at("/containers/0/memory/workingSetBytes").asLong()).isPositive();

    JsonNode configz =
        JSON.readTree(
            kubectl
                .run("get", "--raw", "/api/v1/nodes/node-0/proxy/configz")
                .expectSuccess()
                .out());
    assertThat(configz.at("/kubeletconfig/maxPods").asInt()).isPositive();
    assertThat(
            kubectl.run("get", "--raw", "/api/v1/nodes/node-0/proxy/metrics").expectSuccess().out())
        .contains("kubelet_pod_start_duration_seconds");
    assertThat(
            kubectl
                .run("get", "--raw", "/api/v1/namespaces/default/pods/web/proxy/")
                .expectSuccess()
                .out())
        .contains("Welcome to nginx!");
    kubectl
        .run("expose", "pod", "web", "--port=8080", "--target-port=80", "--name=websvc")
        .expectSuccess();
    assertThat(
            kubectl
                .run("get", "--raw", "/api/v1/namespaces/default/services/websvc:8080/proxy/")
                .expectSuccess()
                .out())
        .contains("Welcome to nginx!");
    String podIP = kubectl.run("get", "pod", "web", "-o", "jsonpath={.status.podIP}").out();
    await("the endpoints of websvc")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl
                    .run(
                        "get",
                        "endpoints",
                        "websvc",
                        "-o",
                        "jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}")
                    .out()
                    .equals(podIP + ":80"));
    assertThat(kubectl.run("get", "endpoints", "websvc").expectSuccess().out())
        .contains(podIP + ":80");
    await("the EndpointSlice of websvc")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl
                    .run(
                        "get",
                        "endpointslices",
                        "-l",
                        "kubernetes.io/service-name=websvc",
                        "-o",
                        "jsonpath={.items[0].endpoints[0].addresses[0]}:{.items[0].ports[0].port}")
                    .out()
                    .equals(podIP + ":80"));
    assertThat(
            kubectl
                .run("get", "endpointslices", "-l", "kubernetes.io/service-name=websvc")
                .expectSuccess()
                .out())
        .containsPattern("websvc-[a-z0-9]{5}\\s+IPv4\\s+80\\s+" + podIP.replace(".", "\\."));
    String[] sliceVersion = {"", ""};
    await("the converged EndpointSlice of websvc to stay as it is")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              sliceVersion[1] = sliceVersion[0];
              sliceVersion[0] =
                  kubectl
                      .run(
                          "get",
                          "endpointslices",
                          "-l",
                          "kubernetes.io/service-name=websvc",
                          "-o",
                          "jsonpath={.items[*].metadata.resourceVersion}")
                      .out();
              return sliceVersion[1].isEmpty() || sliceVersion[0].equals(sliceVersion[1]);
            });
  }

  @Test
  void portForwardToAPortNothingListensOnReportsKubeletsError() throws Exception {
    int port = Launcher.freePort();
    Path out = home.resolve("port-forward-closed.out");
    Process forward = kubectl.start(out, "port-forward", "pod/web", port + ":81");
    try {
      await("kubectl to listen on " + port)
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(out).contains("Forwarding from 127.0.0.1:" + port));
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      try {
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (java.io.IOException expected) {
        // kubectl closes the local connection: nothing answered on the pod's port
      }
      await("kubectl to report the error")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  Files.readString(out)
                          .contains("error forwarding port 81 to pod web: dial tcp 127.")
                      && Files.readString(out).contains(":81: connect: connection refused"));
    } finally {
      forward.destroy();
      forward.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void portForwardToAPodOfTheSimulatedRuntimeFails() throws Exception {
    int port = Launcher.freePort();
    Path out = home.resolve("port-forward-sim.out");
    Process forward = kubectl.start(out, "port-forward", "pod/sim", port + ":80");
    try {
      boolean ended = forward.waitFor(30, TimeUnit.SECONDS);
      if (!ended) {
        // kubectl listened: the first connection fails, and ends it
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
          socket.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.UTF_8));
          socket.getInputStream().readAllBytes();
        } catch (java.io.IOException e) {
          // closed: what a failed forward does
        }
        assertThat(forward.waitFor(30, TimeUnit.SECONDS)).as(Files.readString(out)).isTrue();
      }
      assertThat(forward.exitValue()).as(Files.readString(out)).isNotZero();
    } finally {
      forward.destroyForcibly();
    }
  }

  @Test
  void execAsAUserBoundOnlyToTheViewRoleIsForbiddenInKubeApiserversWords() throws Exception {
    awaitBobReadsPods();

    Kubectl.Result result = kubectl.run("exec", "--as=bob", "web", "--", "true");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err())
        .contains(
            "pods \"web\" is forbidden: User \"bob\" cannot create resource \"pods/exec\" in"
                + " API group \"\" in the namespace \"default\"");
  }

  @Test
  void execAttachAndPortForwardAreInTheAuditLogWithTheirUserAndImpersonatedUser() throws Exception {
    String admin =
        kubectl.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").out().trim();
    awaitBobReadsPods();
    kubectl.run("exec", "web", "--", "sh", "-c", "sleep 1").expectSuccess();
    assertThat(kubectl.run("exec", "--as=bob", "web", "--", "true").exitCode()).isNotZero();
    assertThat(kubectl.run("attach", "--as=bob", "web").exitCode()).isNotZero();
    int port = Launcher.freePort();
    Path out = home.resolve("port-forward-audited.out");
    Process forward = kubectl.start(out, "port-forward", "pod/web", port + ":80");
    try {
      await("kubectl to listen on " + port)
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(out).contains("Forwarding from 127.0.0.1:" + port));
    } finally {
      forward.destroy();
      forward.waitFor(10, TimeUnit.SECONDS);
    }

    // streamplane audit reads sp.audit as an operator would; the events are written as each
    // request completes, so it is asked again until all four are there.
    await("the audit events of exec, attach and port-forward")
        .conditionEvaluationListener(
            condition -> {
              if (condition.getRemainingTimeInMS() < 3000) {
                System.out.println("[ExecE2E] audited streams: " + auditedStreamsQuietly());
              }
            })
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> {
              List<JsonNode> events = auditedStreams();
              return events.stream()
                      .anyMatch(e -> e.path("requestURI").asText().contains("command=sleep+1"))
                  && find(events, "exec", admin, "bob").isPresent()
                  && find(events, "attach", admin, "bob").isPresent()
                  && find(events, "portforward", admin, null).isPresent();
            });
    List<JsonNode> events = auditedStreams();
    JsonNode exec =
        events.stream()
            .filter(e -> e.path("requestURI").asText().contains("command=sleep+1"))
            .findFirst()
            .orElseThrow();
    assertThat(exec.at("/user/username").asText()).isEqualTo(admin);
    assertThat(exec.has("impersonatedUser")).isFalse();
    assertThat(exec.at("/responseStatus/code").asInt()).as("the upgrade").isEqualTo(101);
    assertThat(
            Duration.between(
                Instant.parse(exec.path("requestReceivedTimestamp").asText()),
                Instant.parse(exec.path("stageTimestamp").asText())))
        .as("ResponseComplete is written when the stream ends")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    JsonNode forbidden = find(events, "exec", admin, "bob").orElseThrow();
    assertThat(forbidden.at("/responseStatus/code").asInt()).isEqualTo(403);
    assertThat(forbidden.at("/annotations/authorization.k8s.io~1decision").asText())
        .isEqualTo("forbid");
    assertThat(find(events, "portforward", admin, null).orElseThrow().path("verb").asText())
        .isEqualTo("create");
  }

  /**
   * bob, bound to the view ClusterRole, reads pods: the gateway's RBAC cache has the binding.
   * kubectl exec reads the pod before it connects, so only a user who may read it reaches
   * pods/exec.
   */
  private void awaitBobReadsPods() {
    await("bob to read pods through the view role")
        .atMost(Duration.ofSeconds(30))
        .until(() -> kubectl.run("get", "pod", "web", "--as=bob").exitCode() == 0);
  }

  /**
   * The ResponseComplete events of pods' subresources, as {@code streamplane audit} prints them.
   */
  private List<JsonNode> auditedStreams() throws Exception {
    Launcher audit =
        Launcher.start(
            "audit",
            "--bootstrap-server",
            cluster.kafkaBootstrap(),
            "--resource",
            "pods",
            "--verb",
            "create",
            "--stage",
            "ResponseComplete",
            "-o",
            "json");
    assertThat(audit.awaitExit(Duration.ofSeconds(60))).isZero();
    List<JsonNode> events = new ArrayList<>();
    for (String line : audit.lines()) {
      if (line.startsWith("{")) {
        events.add(JSON.readTree(line));
      }
    }
    return events;
  }

  /**
   * The event of {@code subresource} of default/web by {@code user}, acting as {@code impersonated}
   * (or not).
   */
  private static Optional<JsonNode> find(
      List<JsonNode> events, String subresource, String user, String impersonated) {
    return events.stream()
        .filter(e -> e.at("/objectRef/subresource").asText().equals(subresource))
        .filter(e -> e.at("/objectRef/namespace").asText().equals("default"))
        .filter(e -> e.at("/objectRef/name").asText().equals("web"))
        .filter(e -> e.at("/user/username").asText().equals(user))
        .filter(
            e ->
                impersonated == null
                    ? !e.has("impersonatedUser")
                    : e.at("/impersonatedUser/username").asText().equals(impersonated))
        .findFirst();
  }
}
