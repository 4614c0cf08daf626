package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The node workers of {@code ./streamplane up} running pods as real processes, judged with kubectl:
 * the documentation's nginx Deployment served on its pod IPs, logs, CrashLoopBackOff, Job-like
 * pods, probes, and graceful deletion.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodesE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration RUNNING = Duration.ofSeconds(90);

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster() throws Exception {
    home = Files.createTempDirectory("nodes-e2e");
    cluster =
        new LocalCluster(
                home, "--nodes", "3", "--runtime", "process", "--crash-loop-back-off", "PT2S")
            .start();
    kubectl = cluster.kubectl;
    await("three Ready nodes")
        .atMost(RUNNING)
        .until(
            () ->
                kubectl
                        .run("get", "nodes", "--no-headers")
                        .out()
                        .lines()
                        .filter(l -> l.contains(" Ready "))
                        .count()
                    == 3);
  }

  @AfterAll
  void stopCluster() throws Exception {
    cluster.stop();
    cluster.close();
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void theDocumentationsNginxDeploymentServesHttpOnEachPodIpAndLogsTheRequests() throws Exception {
    Path manifest = Launcher.repositoryRoot().resolve("examples/nginx-deployment.yaml");
    kubectl.run("apply", "-f", manifest.toString()).expectSuccess();
    assertThat(
            kubectl
                .run("rollout", "status", "deploy/nginx-deployment", "--timeout=120s")
                .expectSuccess()
                .out())
        .contains("successfully rolled out");

    JsonNode pods = json("get", "pods", "-l", "app=nginx", "-o", "json").path("items");
    assertThat(pods).hasSize(2);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (JsonNode pod : pods) {
      String name = pod.path("metadata").path("name").asText();
      assertThat(pod.path("status").path("phase").asText()).isEqualTo("Running");
      assertThat(pod.path("status").path("containerStatuses").get(0).path("ready").asBoolean())
          .isTrue();
      String ip = pod.path("status").path("podIP").asText();
      assertThat(ip).startsWith("127.");
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create("http://" + ip + ":80/index.html"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as("GET / on %s at %s", name, ip).isEqualTo(200);

      await("the request in the logs of " + name)
          .atMost(Duration.ofSeconds(30))
          .until(() -> kubectl.run("logs", name).out().contains("GET /index.html"));
      String last = kubectl.run("logs", name, "--tail=1", "--timestamps").expectSuccess().out();
      assertThat(last.lines().toList()).hasSize(1);
      assertThat(last)
          .matches("(?s)\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+Z .*GET /index.html.*");
    }
    assertThat(kubectl.run("logs", "deploy/nginx-deployment").expectSuccess().out())
        .contains("GET /index.html");
    assertThat(kubectl.run("get", "pods", "-l", "app=nginx", "--no-headers").out().lines())
        .allSatisfy(line -> assertThat(line).contains("1/1").contains("Running"));
  }

  @Test
  void aCrashingContainerIsRestartedWithBackOffAndShowsCrashLoopBackOff() throws Exception {
    kubectl
        .run("run", "crash", "--image=busybox", "--", "/bin/sh", "-c", "echo boom; exit 1")
        .expectSuccess();
    await("crash to be in CrashLoopBackOff after two restarts")
        .atMost(RUNNING)
        .until(
            () -> {
              String line = kubectl.run("get", "pod", "crash", "--no-headers").out();
              return line.contains("CrashLoopBackOff") && restarts("crash") >= 2;
            });
    int seen = restarts("crash");
    await("RESTARTS to keep growing").atMost(RUNNING).until(() -> restarts("crash") > seen);
    JsonNode status = json("get", "pod", "crash", "-o", "json").path("status");
    assertThat(status.path("phase").asText()).isEqualTo("Running");
    JsonNode last = status.path("containerStatuses").get(0).path("lastState").path("terminated");
    assertThat(last.path("exitCode").asInt()).isEqualTo(1);
    assertThat(last.path("reason").asText()).isEqualTo("Error");
    assertThat(kubectl.run("logs", "crash", "--previous").expectSuccess().out()).contains("boom");
    await("the kubelet's events in kubectl describe")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              String described = kubectl.run("describe", "pod", "crash").out();
              return described.contains("Started container crash")
                  && described.contains("Back-off restarting failed container crash");
            });
    // Each restart starts the container again: the kubelet counts the same Event, it does not
    // write a new one each time.
    await("the restarts' Started events counted on one Event")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              List<JsonNode> started = new ArrayList<>();
              json("get", "events", "-o", "json")
                  .path("items")
                  .forEach(
                      e -> {
                        if (e.path("involvedObject").path("name").asText().equals("crash")
                            && e.path("reason").asText().equals("Started")) {
                          started.add(e);
                        }
                      });
              return started.size() == 1 && started.get(0).path("count").asInt() >= 2;
            });
    kubectl.run("delete", "pod", "crash", "--wait=false").expectSuccess();
  }

  @Test
  void podsWithRestartPolicyNeverEndSucceededOrFailed() throws Exception {
    kubectl
        .run("run", "done", "--image=busybox", "--restart=Never", "--", "/bin/sh", "-c", "exit 0")
        .expectSuccess();
    kubectl
        .run("run", "broken", "--image=busybox", "--restart=Never", "--", "/bin/sh", "-c", "exit 4")
        .expectSuccess();
    await("done to succeed").atMost(RUNNING).until(() -> phase("done").equals("Succeeded"));
    await("broken to fail").atMost(RUNNING).until(() -> phase("broken").equals("Failed"));
    assertThat(kubectl.run("get", "pod", "done", "--no-headers").out()).contains("Completed");
    assertThat(kubectl.run("get", "pod", "broken", "--no-headers").out()).contains("Error");
    JsonNode broken = json("get", "pod", "broken", "-o", "json").path("status");
    assertThat(
            broken
                .path("containerStatuses")
                .get(0)
                .path("state")
                .path("terminated")
                .path("exitCode")
                .asInt())
        .isEqualTo(4);
    assertThat(broken.path("containerStatuses").get(0).path("restartCount").asInt()).isZero();
  }

  @Test
  void aReadinessProbeGatesReadyAndAFailingLivenessProbeRestartsTheContainer() throws Exception {
    // Pods see only their own root and volumes: the flag is shared through a hostPath volume.
    Path shared = Files.createDirectories(home.resolve("probe-flags"));
    Path flag = shared.resolve("ready-flag");
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: probed
            spec:
              containers:
              - name: app
                image: busybox
                command: ["/bin/sh", "-c", "sleep 3600"]
                volumeMounts:
                - name: flags
                  mountPath: %s
                readinessProbe:
                  exec:
                    command: ["test", "-f", "%s"]
                  periodSeconds: 1
                livenessProbe:
                  exec:
                    command: ["test", "!", "-f", "%s.dead"]
                  periodSeconds: 1
                  failureThreshold: 2
              volumes:
              - name: flags
                hostPath:
                  path: %s
            """
                .formatted(shared, flag, flag, shared),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    await("probed to run, not ready")
        .atMost(RUNNING)
        .until(() -> phase("probed").equals("Running"));
    assertThat(ready("probed")).as("ready before the readiness probe passed").isFalse();
    await("the failed readiness probe in kubectl describe")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl.run("describe", "pod", "probed").out().contains("Readiness probe failed"));
    Files.createFile(flag);
    await("probed to become ready once its readiness probe passes")
        .atMost(RUNNING)
        .until(() -> ready("probed"));
    assertThat(restarts("probed")).isZero();

    Files.createFile(Path.of(flag + ".dead"));
    await("the liveness probe to restart the container")
        .atMost(RUNNING)
        .until(() -> restarts("probed") >= 1);
    Files.delete(Path.of(flag + ".dead"));
    kubectl.run("delete", "pod", "probed", "--wait=false").expectSuccess();
  }

  @Test
  void deletingAPodStopsItsProcessWithinTheGracePeriod() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: stubborn
            spec:
              terminationGracePeriodSeconds: 3
              containers:
              - name: app
                image: busybox
                command: ["/bin/sh", "-c", "trap '' TERM; while true; do sleep 1; done"]
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    await("stubborn to run").atMost(RUNNING).until(() -> phase("stubborn").equals("Running"));
    long pid = pid("stubborn");
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);

    kubectl.run("delete", "pod", "stubborn", "--timeout=60s").expectSuccess();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        .as("the container process, SIGKILLed after ignoring SIGTERM for its grace period")
        .isFalse();
    assertThat(kubectl.run("get", "pod", "stubborn").exitCode()).isNotZero();
  }

  @Test
  void aConfigMapMountedIntoNginxIsServedAndAMissingOneHoldsThePodUntilItExists() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: site
            spec:
              containers:
              - name: nginx
                image: nginx:1.14.2
                ports:
                - containerPort: 80
                env:
                - name: TITLE
                  valueFrom:
                    configMapKeyRef: {name: site-content, key: title}
                volumeMounts:
                - name: html
                  mountPath: /usr/share/nginx/html
                  readOnly: true
              volumes:
              - name: html
                configMap:
                  name: site-content
                  items:
                  - {key: page, path: index.html}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    await("site to wait for its ConfigMap")
        .atMost(RUNNING)
        .until(
            () ->
                kubectl
                    .run("get", "pod", "site", "--no-headers")
                    .out()
                    .contains("CreateContainerConfigError"));
    assertThat(
            kubectl
                .run(
                    "get",
                    "pod",
                    "site",
                    "-o",
                    "jsonpath={.status.containerStatuses[0].state.waiting.message}")
                .out())
        .isEqualTo("configmap \"site-content\" not found");

    kubectl
        .run(
            "create",
            "configmap",
            "site-content",
            "--from-literal=title=streamplane",
            "--from-literal=page=<h1>served from a ConfigMap</h1>")
        .expectSuccess();
    await("site to run once its ConfigMap exists").atMost(RUNNING).until(() -> ready("site"));
    String ip = kubectl.run("get", "pod", "site", "-o", "jsonpath={.status.podIP}").out();
    HttpResponse<String> page =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + ip + "/"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).isEqualTo("<h1>served from a ConfigMap</h1>");
    kubectl.run("delete", "pod", "site", "--wait=false").expectSuccess();
  }

  @Test
  void initContainersRunInOrderAndAFailingOneHoldsThePodInInit() throws Exception {
    // Pods see only their own root and volumes: the marker is shared through a hostPath volume.
    Path shared = Files.createDirectories(home.resolve("init-markers"));
    Path marker = shared.resolve("init-order");
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: inits
            spec:
              volumes:
              - name: markers
                hostPath:
                  path: %s
              initContainers:
              - name: first
                image: busybox
                command: ["/bin/sh", "-c", "echo first >> %s"]
                volumeMounts:
                - name: markers
                  mountPath: %s
              - name: second
                image: busybox
                command: ["/bin/sh", "-c", "echo second >> %s"]
                volumeMounts:
                - name: markers
                  mountPath: %s
              containers:
              - name: app
                image: busybox
                command: ["/bin/sh", "-c", "cat %s; sleep 3600"]
                volumeMounts:
                - name: markers
                  mountPath: %s
            ---
            apiVersion: v1
            kind: Pod
            metadata:
              name: init-slow
            spec:
              initContainers:
              - name: wait
                image: busybox
                command: ["sleep", "8"]
              containers:
              - name: app
                image: busybox
                command: ["sleep", "3600"]
            ---
            apiVersion: v1
            kind: Pod
            metadata:
              name: init-fails
            spec:
              restartPolicy: Never
              initContainers:
              - name: check
                image: busybox
                command: ["/bin/sh", "-c", "exit 3"]
              containers:
              - name: app
                image: busybox
                command: ["sleep", "3600"]
            ---
            apiVersion: v1
            kind: Pod
            metadata:
              name: init-loops
            spec:
              initContainers:
              - name: check
                image: busybox
                command: ["/bin/sh", "-c", "exit 1"]
              containers:
              - name: app
                image: busybox
                command: ["sleep", "3600"]
            """
                .formatted(shared, marker, shared, marker, shared, marker, shared),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    await("inits to run").atMost(RUNNING).until(() -> phase("inits").equals("Running"));
    assertThat(Files.readString(marker)).isEqualTo("first\nsecond\n");
    JsonNode inits = json("get", "pod", "inits", "-o", "json").path("status");
    assertThat(inits.path("initContainerStatuses")).hasSize(2);
    assertThat(
            inits
                .path("initContainerStatuses")
                .get(1)
                .path("state")
                .path("terminated")
                .path("reason")
                .asText())
        .isEqualTo("Completed");

    await("init-slow to show its init container running")
        .atMost(RUNNING)
        .until(
            () ->
                kubectl.run("get", "pod", "init-slow", "--no-headers").out().contains("Init:0/1"));
    await("init-slow to run once its init container completed")
        .atMost(RUNNING)
        .until(() -> phase("init-slow").equals("Running"));

    await("init-fails to fail in its init container")
        .atMost(RUNNING)
        .until(() -> phase("init-fails").equals("Failed"));
    assertThat(kubectl.run("get", "pod", "init-fails", "--no-headers").out())
        .contains("Init:Error");

    await("init-loops to back off in its init container")
        .atMost(RUNNING)
        .until(
            () ->
                kubectl
                    .run("get", "pod", "init-loops", "--no-headers")
                    .out()
                    .contains("Init:CrashLoopBackOff"));
    assertThat(phase("init-loops")).isEqualTo("Pending");
    kubectl
        .run("delete", "pod", "inits", "init-fails", "init-loops", "--wait=false")
        .expectSuccess();
  }

  @Test
  void aPodDeletedAndCreatedAgainUnderTheSameNameRunsOnlyTheNewOne() throws Exception {
    String manifest =
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: again
        spec:
          terminationGracePeriodSeconds: 1
          nodeName: node-1
          containers:
          - name: app
            image: busybox
            command: ["sleep", "3600"]
        """;
    kubectl.runWithInput(manifest, "apply", "-f", "-").expectSuccess();
    await("again to run").atMost(RUNNING).until(() -> phase("again").equals("Running"));
    long first = pid("again");
    String firstUid = kubectl.run("get", "pod", "again", "-o", "jsonpath={.metadata.uid}").out();

    kubectl.run("delete", "pod", "again", "--wait=true", "--timeout=60s").expectSuccess();
    kubectl.runWithInput(manifest, "apply", "-f", "-").expectSuccess();
    await("the new again to run")
        .atMost(RUNNING)
        .until(
            () ->
                phase("again").equals("Running")
                    && !kubectl
                        .run("get", "pod", "again", "-o", "jsonpath={.metadata.uid}")
                        .out()
                        .equals(firstUid));
    long second = pid("again");
    assertThat(second).isNotEqualTo(first);
    assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(ProcessHandle.of(second).map(ProcessHandle::isAlive)).contains(true);
    kubectl.run("delete", "pod", "again", "--wait=false").expectSuccess();
  }

  private JsonNode json(String... args) throws Exception {
    return JSON.readTree(kubectl.run(args).expectSuccess().out());
  }

  private String phase(String pod) throws Exception {
    return kubectl.run("get", "pod", pod, "-o", "jsonpath={.status.phase}").out();
  }

  private int restarts(String pod) throws Exception {
    String count =
        kubectl
            .run("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].restartCount}")
            .out()
            .trim();
    return count.isEmpty() ? 0 : Integer.parseInt(count);
  }

  private long pid(String pod) throws Exception {
    String id =
        kubectl
            .run("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].containerID}")
            .expectSuccess()
            .out();
    assertThat(id).startsWith("process://");
    return Long.parseLong(id.substring("process://".length()));
  }

  private boolean ready(String pod) throws Exception {
    return kubectl
        .run("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].ready}")
        .out()
        .equals("true");
  }
}
