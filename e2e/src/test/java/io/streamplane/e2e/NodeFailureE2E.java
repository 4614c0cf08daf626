package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Node workers as OS processes of their own ({@code ./streamplane node --runtime process}, three of
 * them, each with its own root dir) against a cluster whose node lifecycle controller has a short
 * grace period and default toleration, killed with {@code kill -9} while a busybox Deployment runs
 * on them. A node restarted on the same root dir runs exactly the pods bound to it and not deleted,
 * and kills what its first incarnation left running; a node killed for good goes NotReady, is
 * tainted unreachable, and its pods are recreated on the other nodes.
 *
 * <p>The tests share the cluster and run in order: the first restarts a node, the second kills
 * another for good.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeFailureE2E {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Seconds a node may go unheard before it is marked Unknown: longer than the node's 10 s Lease
   * period (a shorter one would condemn live nodes), and longer than the first test keeps its node
   * down, so that node's pods are not evicted meanwhile.
   */
  private static final int GRACE_PERIOD_SECONDS = 30;

  private static final int TOLERATION_SECONDS = 5;
  private static final List<String> NODES = List.of("node-a", "node-b", "node-c");
  private static final int REPLICAS = 6;
  private static final Duration LONG = Duration.ofMinutes(3);
  private static final Duration POLL = Duration.ofMillis(500);

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;
  private final Map<String, Launcher> nodes = new ConcurrentHashMap<>();

  /** Every container process seen, so that none outlives the class, whatever happens. */
  private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();

  @BeforeAll
  void startClusterAndNodes() throws Exception {
    home = Files.createTempDirectory("node-failure-e2e");
    cluster =
        new LocalCluster(
                home,
                "--nodes",
                "0",
                "--node-monitor-grace-period",
                Integer.toString(GRACE_PERIOD_SECONDS),
                "--default-toleration-seconds",
                Integer.toString(TOLERATION_SECONDS))
            .start();
    kubectl = cluster.kubectl;
    for (String name : NODES) {
      nodes.put(name, cluster.startProcessNode(name, rootDir(name)));
    }
    await("the three node workers to register Ready")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(() -> assertThat(readyNodes()).containsExactlyInAnyOrderElementsOf(NODES));
    kubectl.runWithInput(deployment(), "apply", "-f", "-").expectSuccess();
    awaitRolledOut();
  }

  @AfterAll
  void stopEverything() throws Exception {
    try {
      for (Launcher node : nodes.values()) {
        node.close(); // the node process and the containers it still has as children
      }
      for (String name : NODES) {
        recordedProcesses(name).forEach(ProcessHandle::destroyForcibly); // orphans
      }
      seen.forEach(ProcessHandle::destroyForcibly);
      if (cluster != null) {
        try {
          cluster.stop();
        } finally {
          cluster.close();
        }
      }
    } finally {
      try (Stream<Path> files = Files.walk(home)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  @Order(1)
  void aNodeKilledAndRestartedRunsExactlyThePodsBoundToItAndKillsItsOrphans() throws Exception {
    awaitRolledOut();
    Map<String, List<String>> byNode = activeWebPodsByNode();
    String victim =
        byNode.entrySet().stream()
            .max(Comparator.comparingInt(e -> e.getValue().size()))
            .orElseThrow()
            .getKey();
    List<String> itsPods = byNode.get(victim);
    assertThat(itsPods)
        .as("the node with the most of %d pods on %d nodes", REPLICAS, NODES.size())
        .hasSizeGreaterThanOrEqualTo(2);
    Map<String, Set<ProcessHandle>> first = liveRecordedProcesses(victim);
    assertThat(pids(first))
        .as("what %s's pid files name is what its pods' statuses say it runs", victim)
        .isEqualTo(expectedContainerPids(victim));
    Set<ProcessHandle> orphans =
        first.values().stream().flatMap(Set::stream).collect(Collectors.toSet());
    seen.addAll(orphans);
    assertThat(orphans).hasSameSizeAs(itsPods);

    say("killing %s, which runs %s as %s", victim, itsPods, pids(first));
    nodes.get(victim).kill();
    assertThat(orphans)
        .as("containers outlive the kill -9 of their node process")
        .allMatch(NodeFailureE2E::running);

    String deleted = itsPods.get(0);
    kubectl.run("delete", "pod", deleted, "--wait=false").expectSuccess();
    kubectl.run("scale", "deploy/web", "--replicas=" + (REPLICAS - 1)).expectSuccess();
    await("the ReplicaSet to replace the deleted pod and scale down, every pod bound")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(
            () -> {
              List<JsonNode> active =
                  pods("-l", "app=web").stream().filter(p -> !terminating(p)).toList();
              assertThat(active).hasSize(REPLICAS - 1);
              assertThat(active).allMatch(p -> !nodeName(p).isEmpty());
            });
    JsonNode stuck = pod(deleted).orElseThrow(() -> new AssertionError(deleted + " is gone"));
    assertThat(terminating(stuck))
        .as("%s stays Terminating while its node is down", deleted)
        .isTrue();
    assertThat(orphans).as("nobody killed the orphans yet").allMatch(NodeFailureE2E::running);

    say("%s deleted, web scaled to %d; restarting %s", deleted, REPLICAS - 1, victim);
    nodes.put(victim, cluster.startProcessNode(victim, rootDir(victim)));

    await("the pod deleted while its node was down to be gone from the API")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(() -> assertThat(pod(deleted)).isEmpty());
    await("the restarted " + victim + " to run exactly the pods bound to it and not deleted")
        .atMost(LONG)
        .pollInterval(POLL)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Map<String, Set<Long>> expected = expectedContainerPids(victim);
              assertThat(expected)
                  .as("%s keeps pods of its own after the deletion and the scale-down", victim)
                  .isNotEmpty();
              Map<String, Set<ProcessHandle>> live = liveRecordedProcesses(victim);
              live.values().forEach(seen::addAll);
              assertThat(pids(live))
                  .as("pod uid -> live processes named by %s's pid files", victim)
                  .isEqualTo(expected);
              // Each container is the PID 1 of a sandbox, the child of an unshare the node runs.
              Set<Long> children =
                  nodes
                      .get(victim)
                      .handle()
                      .children()
                      .filter(NodeFailureE2E::running)
                      .flatMap(ProcessHandle::children)
                      .filter(NodeFailureE2E::running)
                      .map(ProcessHandle::pid)
                      .collect(Collectors.toSet());
              assertThat(children)
                  .as("the sandboxes' PID 1s the restarted %s runs", victim)
                  .isEqualTo(
                      expected.values().stream().flatMap(Set::stream).collect(Collectors.toSet()));
              assertThat(orphans)
                  .as("the containers of the first incarnation")
                  .noneMatch(NodeFailureE2E::running);
              assertThat(pods("--all-namespaces"))
                  .as("pods on %s still Terminating", victim)
                  .noneMatch(p -> victim.equals(nodeName(p)) && terminating(p));
            });
    say("the restarted %s runs %s", victim, expectedContainerPids(victim));
    awaitRolledOut();
  }

  @Test
  @Order(2)
  void aNodeKilledForGoodIsTaintedUnreachableAndItsPodsAreRecreatedElsewhere() throws Exception {
    awaitRolledOut();
    Map<String, List<String>> byNode = activeWebPodsByNode();
    String dead =
        byNode.entrySet().stream()
            .max(Comparator.comparingInt(e -> e.getValue().size()))
            .orElseThrow()
            .getKey();
    List<String> itsPods = byNode.get(dead);
    Set<ProcessHandle> containers =
        liveRecordedProcesses(dead).values().stream()
            .flatMap(Set::stream)
            .collect(Collectors.toSet());
    seen.addAll(containers);
    assertThat(containers).hasSameSizeAs(itsPods);

    say("killing %s and its containers %s, which run %s", dead, containers, itsPods);
    long killed = System.nanoTime();
    nodes.get(dead).kill();
    containers.forEach(ProcessHandle::destroyForcibly); // a dead machine takes its containers along
    await("the containers of " + dead + " to die with it")
        .atMost(LONG)
        .pollInterval(POLL)
        .until(() -> containers.stream().noneMatch(NodeFailureE2E::running));

    await(dead + " to be NotReady (Ready Unknown) and tainted unreachable")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(
            () -> {
              JsonNode node = JSON.readTree(kubectl.run("get", "node", dead, "-o", "json").out());
              assertThat(condition(node, "Ready")).isEqualTo("Unknown");
              List<String> taints = new ArrayList<>();
              node.path("spec")
                  .path("taints")
                  .forEach(
                      t -> taints.add(t.path("key").asText() + ":" + t.path("effect").asText()));
              assertThat(taints)
                  .contains(
                      "node.kubernetes.io/unreachable:NoExecute",
                      "node.kubernetes.io/unreachable:NoSchedule");
            });
    say("%s NotReady and tainted %d s after the kill", dead, seconds(killed));
    assertThat(kubectl.run("get", "nodes", "--no-headers").expectSuccess().out().lines())
        .as("kubectl get nodes")
        .anyMatch(l -> l.startsWith(dead + " ") && l.contains(" NotReady "))
        .filteredOn(l -> !l.startsWith(dead + " "))
        .allMatch(l -> l.contains(" Ready "));

    int replicas =
        Integer.parseInt(
            kubectl
                .run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
                .expectSuccess()
                .out()
                .trim());
    await("the pods of " + dead + " to be evicted and running again on the other nodes")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(
            () -> {
              List<JsonNode> web = pods("-l", "app=web");
              for (String name : itsPods) {
                assertThat(web)
                    .as("%s: evicted (Terminating, as its node never finishes it) or gone", name)
                    .noneMatch(p -> name(p).equals(name) && !terminating(p));
              }
              List<JsonNode> active = web.stream().filter(p -> !terminating(p)).toList();
              assertThat(active).hasSize(replicas);
              for (JsonNode pod : active) {
                assertThat(nodeName(pod)).as(name(pod)).isNotEqualTo(dead).isNotEmpty();
                assertThat(pod.path("status").path("phase").asText())
                    .as(name(pod))
                    .isEqualTo("Running");
                assertThat(containerPids(pod))
                    .as("%s's containers are live processes", name(pod))
                    .isNotEmpty()
                    .allMatch(
                        pid -> ProcessHandle.of(pid).map(NodeFailureE2E::running).orElse(false));
              }
            });
    say("the pods of %s running elsewhere %d s after the kill", dead, seconds(killed));
    await("deploy/web to be Available with all its replicas")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(
            () -> {
              kubectl
                  .run("wait", "--for=condition=Available", "deploy/web", "--timeout=30s")
                  .expectSuccess();
              assertThat(
                      kubectl
                          .run("get", "deploy", "web", "-o", "jsonpath={.status.availableReplicas}")
                          .expectSuccess()
                          .out())
                  .isEqualTo(Integer.toString(replicas));
            });
    awaitRolledOut();
  }

  // ------------------------------------------------------------------ helpers

  private static void say(String format, Object... args) {
    System.out.println("[NodeFailureE2E] " + String.format(format, args));
  }

  private static long seconds(long sinceNanos) {
    return Duration.ofNanos(System.nanoTime() - sinceNanos).toSeconds();
  }

  private Path rootDir(String node) {
    return home.resolve("nodes").resolve(node);
  }

  private static String deployment() {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          replicas: %d
          selector:
            matchLabels:
              app: web
          template:
            metadata:
              labels:
                app: web
            spec:
              terminationGracePeriodSeconds: 2
              containers:
              - name: main
                image: busybox
                command: ["sleep", "3600"]
        """
        .formatted(REPLICAS);
  }

  private void awaitRolledOut() {
    await("deploy/web to be rolled out")
        .atMost(LONG)
        .pollInterval(POLL)
        .untilAsserted(
            () ->
                assertThat(
                        kubectl
                            .run("rollout", "status", "deploy/web", "--timeout=30s")
                            .expectSuccess()
                            .out())
                    .contains("successfully rolled out"));
  }

  private List<String> readyNodes() throws Exception {
    List<String> ready = new ArrayList<>();
    for (JsonNode node : items(kubectl.run("get", "nodes", "-o", "json").expectSuccess().out())) {
      if ("True".equals(condition(node, "Ready"))) {
        ready.add(node.path("metadata").path("name").asText());
      }
    }
    return ready;
  }

  private static String condition(JsonNode object, String type) {
    for (JsonNode c : object.path("status").path("conditions")) {
      if (type.equals(c.path("type").asText())) {
        return c.path("status").asText();
      }
    }
    return null;
  }

  private List<JsonNode> pods(String... selection) throws Exception {
    List<String> args = new ArrayList<>(List.of("get", "pods", "-o", "json"));
    args.addAll(List.of(selection));
    return items(kubectl.run(args.toArray(String[]::new)).expectSuccess().out());
  }

  private Optional<JsonNode> pod(String name) throws Exception {
    Kubectl.Result result = kubectl.run("get", "pod", name, "-o", "json");
    if (result.exitCode() != 0) {
      assertThat(result.err()).as("kubectl get pod %s", name).contains("NotFound");
      return Optional.empty();
    }
    return Optional.of(JSON.readTree(result.out()));
  }

  /** The web pods not being deleted, by node, names in creation order. */
  private Map<String, List<String>> activeWebPodsByNode() throws Exception {
    Map<String, List<String>> byNode = new HashMap<>();
    for (JsonNode pod : pods("-l", "app=web", "--sort-by=.metadata.creationTimestamp")) {
      if (!terminating(pod)) {
        byNode.computeIfAbsent(nodeName(pod), n -> new ArrayList<>()).add(name(pod));
      }
    }
    return byNode;
  }

  /**
   * What {@code node} should run now, per the API: pod uid → the pids of the containers its status
   * reports, for every pod bound to the node and not being deleted, once Running.
   */
  private Map<String, Set<Long>> expectedContainerPids(String node) throws Exception {
    Map<String, Set<Long>> expected = new HashMap<>();
    for (JsonNode pod : pods("--all-namespaces")) {
      if (node.equals(nodeName(pod)) && !terminating(pod)) {
        assertThat(pod.path("status").path("phase").asText())
            .as("phase of %s", name(pod))
            .isEqualTo("Running");
        expected.put(pod.path("metadata").path("uid").asText(), containerPids(pod));
      }
    }
    return expected;
  }

  private static Set<Long> containerPids(JsonNode pod) {
    Set<Long> pids = new HashSet<>();
    for (JsonNode status : pod.path("status").path("containerStatuses")) {
      String id = status.path("containerID").asText();
      if (id.startsWith("process://")) {
        pids.add(Long.parseLong(id.substring("process://".length())));
      }
    }
    return pids;
  }

  /**
   * The live processes the pid files under a node's root dir name ({@code
   * <root>/<ns>_<pod>_<uid>/<container>/<n>.pid}, "pid startMillis"), by pod uid.
   */
  private Map<String, Set<ProcessHandle>> liveRecordedProcesses(String node) throws IOException {
    Map<String, Set<ProcessHandle>> live = new HashMap<>();
    for (Path file : pidFiles(node)) {
      String sandbox = file.getParent().getParent().getFileName().toString();
      String uid = sandbox.substring(sandbox.lastIndexOf('_') + 1);
      recorded(file)
          .filter(NodeFailureE2E::running)
          .ifPresent(h -> live.computeIfAbsent(uid, u -> new HashSet<>()).add(h));
    }
    return live;
  }

  private List<ProcessHandle> recordedProcesses(String node) {
    try {
      return pidFiles(node).stream().flatMap(f -> recorded(f).stream()).toList();
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  private List<Path> pidFiles(String node) throws IOException {
    Path root = rootDir(node);
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> files =
        Files.find(root, 3, (f, a) -> a.isRegularFile() && f.toString().endsWith(".pid"))) {
      return files.toList();
    }
  }

  /** The process a pid file names, if it still runs with the start time recorded. */
  private static Optional<ProcessHandle> recorded(Path pidFile) {
    try {
      String[] fields = Files.readString(pidFile).trim().split(" ");
      long started = Long.parseLong(fields[1]);
      return ProcessHandle.of(Long.parseLong(fields[0]))
          .filter(h -> h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == started);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // deleted as its process exited
    }
  }

  private static Map<String, Set<Long>> pids(Map<String, Set<ProcessHandle>> processes) {
    Map<String, Set<Long>> pids = new HashMap<>();
    processes.forEach(
        (uid, handles) ->
            pids.put(uid, handles.stream().map(ProcessHandle::pid).collect(Collectors.toSet())));
    return pids;
  }

  /**
   * Alive and not a zombie: a killed orphan is reparented to pid 1, which reaps it only after a
   * while, and ProcessHandle counts a zombie as alive.
   */
  private static boolean running(ProcessHandle process) {
    if (!process.isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static List<JsonNode> items(String json) throws IOException {
    List<JsonNode> items = new ArrayList<>();
    JSON.readTree(json).path("items").forEach(items::add);
    return items;
  }

  private static String name(JsonNode object) {
    return object.path("metadata").path("name").asText();
  }

  private static String nodeName(JsonNode pod) {
    return pod.path("spec").path("nodeName").asText();
  }

  private static boolean terminating(JsonNode pod) {
    return !pod.path("metadata").path("deletionTimestamp").asText().isEmpty();
  }
}
