package io.streamplane.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Services carry traffic and names resolve, on {@code ./streamplane up --nodes 2 --runtime
 * process}, with the real kubectl and dig: the two-tier example's front end calls its back end by
 * name and hears all three, a back end that fails readiness gets no more calls, a scaled back end
 * gets calls, a NodePort answers on the host, and the cluster DNS answers Services, headless
 * Services and SRV records.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.TWO_PROCESS_NODES)
class NetworkingE2E {

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Pattern HELLO = Pattern.compile("hello from (backend-[a-z0-9-]+)");

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;
  private String dns;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    home = Files.createTempDirectory("networking-e2e");
    cluster = shared;
    kubectl = cluster.kubectl;
    await("two Ready nodes")
        .atMost(WAIT)
        .until(
            () ->
                kubectl
                        .run("get", "nodes", "--no-headers")
                        .out()
                        .lines()
                        .filter(l -> l.contains(" Ready "))
                        .count()
                    == 2);
    // The tenth address of the cluster's service range, which a test run may choose.
    dns =
        kubectl
            .run("get", "svc", "-n", "kube-system", "kube-dns", "-o", "jsonpath={.spec.clusterIP}")
            .expectSuccess()
            .out();
  }

  @AfterAll
  void cleanUp() throws Exception {
    kubectl
        .run("delete", "namespace", "shop", "dns", "--ignore-not-found", "--wait=false")
        .expectSuccess();
    try (var files = Files.walk(home)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void theFrontEndCallsItsBackEndByNameAndOnlyReadyBackEndsAnswer() throws Exception {
    kubectl.run("create", "namespace", "shop").expectSuccess();
    Path example = Launcher.repositoryRoot().resolve("examples").resolve("two-tier.yaml");
    kubectl.run("apply", "-n", "shop", "-f", example.toString()).expectSuccess();
    kubectl
        .run("rollout", "status", "-n", "shop", "deploy/backend", "--timeout=120s")
        .expectSuccess();
    Set<String> backends = podNames("shop", "app=backend");
    assertEquals(3, backends.size());

    // The front end resolves "backend" through the cluster DNS and hears every back end.
    await("the front end hears all three back ends")
        .atMost(WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                heard(kubectl.run("logs", "-n", "shop", "deploy/frontend").out())
                    .containsAll(backends));

    // The host reaches the cluster IP too, spread over the three.
    String clusterIP = jsonpath("shop", "svc/backend", "{.spec.clusterIP}");
    assertEquals(backends, callsFromHost("http://" + clusterIP + "/", 12));

    // kubectl shows the Service with its endpoints, and port-forwards to it.
    assertTrue(
        kubectl.run("get", "all", "-n", "shop").expectSuccess().out().contains("service/backend"));
    String described =
        kubectl.run("describe", "svc", "backend", "-n", "shop").expectSuccess().out();
    assertTrue(
        described.lines().anyMatch(l -> l.startsWith("IP:") && l.trim().endsWith(clusterIP)),
        described);
    assertTrue(
        described.lines().anyMatch(l -> l.startsWith("Endpoints:") && l.contains(":80")),
        described);
    int local = Launcher.freePort();
    Process forward =
        kubectl.start(
            home.resolve("port-forward.out"),
            "port-forward",
            "-n",
            "shop",
            "svc/backend",
            local + ":80");
    try {
      await("port-forward svc/backend answers")
          .atMost(WAIT)
          .ignoreExceptions()
          .until(() -> HELLO.matcher(get("http://127.0.0.1:" + local + "/").body()).find());
    } finally {
      forward.destroy();
    }

    // A back end failing readiness leaves the endpoints and gets no calls.
    String failing = backends.iterator().next();
    kubectl
        .run("exec", "-n", "shop", failing, "-c", "web", "--", "rm", "/usr/share/nginx/html/ready")
        .expectSuccess();
    await("the failing back end is not ready in the endpoints")
        .atMost(WAIT)
        .until(
            () ->
                jsonpath(
                        "shop",
                        "endpoints/backend",
                        "{.subsets[*].notReadyAddresses[*].targetRef.name}")
                    .contains(failing));
    Set<String> answered = callsFromHost("http://" + clusterIP + "/", 8);
    assertFalse(answered.contains(failing), () -> failing + " answered: " + answered);

    // Scaled up: the new back ends get calls.
    kubectl.run("scale", "-n", "shop", "deploy/backend", "--replicas=5").expectSuccess();
    await("five back ends, four of them ready, all answering")
        .atMost(WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              Set<String> now = podNames("shop", "app=backend");
              now.remove(failing);
              return now.size() == 4 && callsFromHost("http://" + clusterIP + "/", 8).equals(now);
            });
  }

  @Test
  void aNodePortAnswersOnTheHostAndTheClusterDnsAnswersServicesHeadlessAndSrv() throws Exception {
    kubectl.run("create", "namespace", "dns").expectSuccess();
    kubectl
        .run(
            "create",
            "deployment",
            "web",
            "-n",
            "dns",
            "--image=nginx",
            "--replicas=2",
            "--port=80")
        .expectSuccess();
    kubectl
        .run(
            "expose",
            "deployment",
            "web",
            "-n",
            "dns",
            "--port=8080",
            "--target-port=80",
            "--type=NodePort")
        .expectSuccess();
    kubectl
        .runWithInput(
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: Service",
                "metadata: {name: web-pods, namespace: dns}",
                "spec:",
                "  clusterIP: None",
                "  selector: {app: web}",
                "  ports: [{name: http, port: 80}]"),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    kubectl.run("rollout", "status", "-n", "dns", "deploy/web", "--timeout=120s").expectSuccess();

    String nodePort = jsonpath("dns", "svc/web", "{.spec.ports[0].nodePort}");
    await("the node port answers")
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> get("http://127.0.0.1:" + nodePort + "/").statusCode() == 200);

    String clusterIP = jsonpath("dns", "svc/web", "{.spec.clusterIP}");
    assertEquals(List.of(clusterIP), dig("web.dns.svc.cluster.local"));
    assertEquals(
        List.of("0 100 8080 web.dns.svc.cluster.local."),
        dig("-t", "SRV", "web.dns.svc.cluster.local"));
    Set<String> podIPs =
        new TreeSet<>(
            Arrays.asList(jsonpath("dns", "pods", "{.items[*].status.podIP}").split(" ")));
    await("the headless Service answers its ready pods")
        .atMost(WAIT)
        .until(() -> new TreeSet<>(dig("web-pods.dns.svc.cluster.local")).equals(podIPs));
    List<String> srv = dig("-t", "SRV", "_http._tcp.web-pods.dns.svc.cluster.local");
    assertEquals(2, srv.size(), srv::toString);
    for (String record : srv) {
      assertTrue(
          record.startsWith("0 50 80 ") && record.endsWith(".web-pods.dns.svc.cluster.local."),
          record);
    }
    assertEquals(List.of(), dig("nothing-here.dns.svc.cluster.local"));
  }

  private List<String> dig(String... query) throws IOException, InterruptedException {
    List<String> command =
        new java.util.ArrayList<>(List.of("dig", "+short", "+time=2", "+tries=2", "@" + dns));
    command.addAll(List.of(query));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes());
    assertTrue(process.waitFor(20, TimeUnit.SECONDS));
    assertEquals(0, process.exitValue(), () -> String.join(" ", command) + ": " + out);
    return out.lines().filter(l -> !l.isBlank()).toList();
  }

  private Set<String> callsFromHost(String url, int calls) throws Exception {
    Set<String> answered = new HashSet<>();
    for (int i = 0; i < calls; i++) {
      Matcher m = HELLO.matcher(get(url).body());
      if (m.find()) {
        answered.add(m.group(1));
      }
    }
    return answered;
  }

  /** One GET on a new connection: the proxy balances connections, not requests. */
  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Set<String> heard(String log) {
    Set<String> names = new HashSet<>();
    Matcher m = HELLO.matcher(log);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  private Set<String> podNames(String namespace, String selector) throws Exception {
    String names =
        kubectl
            .run(
                "get",
                "pods",
                "-n",
                namespace,
                "-l",
                selector,
                "-o",
                "jsonpath={.items[*].metadata.name}")
            .expectSuccess()
            .out()
            .trim();
    return names.isEmpty() ? new HashSet<>() : new HashSet<>(Arrays.asList(names.split(" ")));
  }

  private String jsonpath(String namespace, String object, String path) throws Exception {
    return kubectl
        .run("get", "-n", namespace, object, "-o", "jsonpath=" + path)
        .expectSuccess()
        .out()
        .trim();
  }
}
