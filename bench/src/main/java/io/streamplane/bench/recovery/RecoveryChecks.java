package io.streamplane.bench.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.schema.objects.Quantities;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What must hold after a crash and the recovery that follows, read from the API's lists: every
 * acknowledged create is there, the Deployment has exactly its replicas as live pods and one
 * ReplicaSet, and no node holds pods whose requests exceed what it can allocate.
 */
final class RecoveryChecks {

  /** The outcome of the checks of one run. */
  record Verdict(
      int acknowledged,
      List<String> lost,
      int livePods,
      int expectedPods,
      int replicaSets,
      List<String> overCommitted) {

    boolean ok() {
      return problems().isEmpty();
    }

    /** One sentence per check that failed. */
    List<String> problems() {
      List<String> problems = new ArrayList<>();
      if (!lost.isEmpty()) {
        problems.add(
            lost.size()
                + " of "
                + acknowledged
                + " acknowledged ConfigMap creates missing: "
                + String.join(", ", lost.subList(0, Math.min(5, lost.size())))
                + (lost.size() > 5 ? ", ..." : ""));
      }
      if (livePods != expectedPods) {
        problems.add(livePods + " live pods, not " + expectedPods);
      }
      if (replicaSets != 1) {
        problems.add(replicaSets + " ReplicaSets of the Deployment, not 1");
      }
      problems.addAll(overCommitted);
      return problems;
    }
  }

  private RecoveryChecks() {}

  /** The acknowledged names a ConfigMap list does not hold, in their order. */
  static List<String> lost(Collection<String> acknowledged, JsonNode configMaps) {
    Set<String> present = new HashSet<>();
    for (JsonNode cm : configMaps.path("items")) {
      present.add(cm.at("/metadata/name").asText());
    }
    return acknowledged.stream().filter(n -> !present.contains(n)).toList();
  }

  /** A pod that holds its node's resources: not being deleted, not Succeeded or Failed. */
  static boolean live(JsonNode pod) {
    String phase = pod.at("/status/phase").asText("");
    return !pod.at("/metadata").has("deletionTimestamp")
        && !phase.equals("Succeeded")
        && !phase.equals("Failed");
  }

  static int livePods(JsonNode pods) {
    int n = 0;
    for (JsonNode pod : pods.path("items")) {
      if (live(pod)) {
        n++;
      }
    }
    return n;
  }

  /** Live pods in phase Running. */
  static int runningPods(JsonNode pods) {
    int n = 0;
    for (JsonNode pod : pods.path("items")) {
      if (live(pod) && pod.at("/status/phase").asText("").equals("Running")) {
        n++;
      }
    }
    return n;
  }

  /** ReplicaSets whose controller owner is the Deployment named {@code deployment}. */
  static int replicaSetsOf(JsonNode replicaSets, String deployment) {
    int n = 0;
    for (JsonNode rs : replicaSets.path("items")) {
      for (JsonNode owner : rs.at("/metadata/ownerReferences")) {
        if (owner.path("controller").asBoolean(false)
            && owner.path("kind").asText().equals("Deployment")
            && owner.path("name").asText().equals(deployment)) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * Every node whose live pods request more CPU, memory or pods than its {@code
   * status.allocatable}: a pod's request is its containers' sum or its largest init container's,
   * whichever is larger, plus its overhead, as the scheduler counts it.
   */
  static List<String> overCommitted(JsonNode nodes, JsonNode pods) {
    Map<String, long[]> used = new LinkedHashMap<>();
    for (JsonNode pod : pods.path("items")) {
      String node = pod.at("/spec/nodeName").asText("");
      if (node.isEmpty() || !live(pod)) {
        continue;
      }
      long[] u = used.computeIfAbsent(node, n -> new long[3]);
      long[] r = requests(pod.path("spec"));
      u[0] += r[0];
      u[1] += r[1];
      u[2]++;
    }
    List<String> over = new ArrayList<>();
    for (JsonNode node : nodes.path("items")) {
      String name = node.at("/metadata/name").asText();
      long[] u = used.get(name);
      if (u == null) {
        continue;
      }
      JsonNode alloc = node.at("/status/allocatable");
      long cpu =
          alloc.has("cpu") ? Quantities.milliValue(alloc.get("cpu").asText()) : Long.MAX_VALUE;
      long memory =
          alloc.has("memory") ? Quantities.value(alloc.get("memory").asText()) : Long.MAX_VALUE;
      long count =
          alloc.has("pods") ? Quantities.value(alloc.get("pods").asText()) : Long.MAX_VALUE;
      if (u[0] > cpu || u[1] > memory || u[2] > count) {
        over.add(
            String.format(
                Locale.ROOT,
                "node %s over-committed: %dm CPU of %dm, %d bytes of memory of %d, %d pods of %d",
                name,
                u[0],
                cpu,
                u[1],
                memory,
                u[2],
                count));
      }
    }
    return over;
  }

  /** {milli-CPU, memory bytes} a pod's spec requests. */
  static long[] requests(JsonNode spec) {
    long cpu = 0;
    long memory = 0;
    for (JsonNode c : spec.path("containers")) {
      cpu += request(c, "cpu", true);
      memory += request(c, "memory", false);
    }
    for (JsonNode c : spec.path("initContainers")) {
      cpu = Math.max(cpu, request(c, "cpu", true));
      memory = Math.max(memory, request(c, "memory", false));
    }
    JsonNode overhead = spec.path("overhead");
    if (overhead.has("cpu")) {
      cpu += Quantities.milliValue(overhead.get("cpu").asText());
    }
    if (overhead.has("memory")) {
      memory += Quantities.value(overhead.get("memory").asText());
    }
    return new long[] {cpu, memory};
  }

  private static long request(JsonNode container, String resource, boolean milli) {
    JsonNode q = container.at("/resources/requests/" + resource);
    if (q.isMissingNode() || q.isNull()) {
      return 0;
    }
    return milli ? Quantities.milliValue(q.asText()) : Quantities.value(q.asText());
  }
}
