package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.schema.objects.ResourceKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Failover of the partitioned roles, measured: with two instances of a role, kill one with SIGKILL
 * and at once create one new object in every partition of the log; each object's time until the
 * surviving instance has acted on it (a Deployment's ReplicaSet exists; a pod is bound to a node)
 * is the time its partition waited. The slowest partition is the failover time. A round with both
 * instances up gives the baseline.
 */
final class Failover {

  /** One round: the role, the instance killed (null for the baseline), seconds per partition. */
  record Round(String role, String killed, double[] seconds) {
    double max() {
      return Arrays.stream(seconds).max().orElse(Double.NaN);
    }

    double median() {
      double[] sorted = seconds.clone();
      Arrays.sort(sorted);
      return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }
  }

  private static final long LIMIT_NANOS = 180_000_000_000L;

  private final Cluster cluster;
  private final KubeClient client;
  private final String namespace;
  private final int partitions;
  private int round;

  Failover(Cluster cluster, String namespace, int partitions) {
    this.cluster = cluster;
    this.client = ChaosApi.client(cluster.apiServers().get(0), cluster.identity());
    this.namespace = namespace;
    this.partitions = partitions;
  }

  /**
   * A round for {@code role} ({@code controllers} or {@code scheduler}), killing {@code victim}.
   */
  Round measure(String role, String victim) throws IOException, InterruptedException {
    round++;
    boolean deployments = role.equals("controllers");
    List<String> names =
        names(deployments ? "fo" + round + "-d" : "fo" + round + "-p", deployments);
    long started = System.nanoTime();
    if (victim != null) {
      cluster.kill(victim);
    }
    for (String name : names) {
      KubeClient.Response r =
          deployments
              ? client.post(
                  "/apis/apps/v1/namespaces/" + namespace + "/deployments",
                  Workload.deployment(name, 1, 0, null))
              : client.post("/api/v1/namespaces/" + namespace + "/pods", pod(name));
      if (!r.ok()) {
        throw new IOException("cannot create " + name + ": " + r.message());
      }
    }
    double[] seconds = new double[names.size()];
    Arrays.fill(seconds, Double.NaN);
    int remaining = names.size();
    while (remaining > 0 && System.nanoTime() - started < LIMIT_NANOS) {
      Thread.sleep(250);
      KubeClient.Response r =
          client.get(
              deployments
                  ? "/apis/apps/v1/namespaces/" + namespace + "/replicasets"
                  : "/api/v1/namespaces/" + namespace + "/pods");
      if (!r.ok()) {
        continue;
      }
      double now = (System.nanoTime() - started) / 1e9;
      for (JsonNode item : r.body().path("items")) {
        String name =
            deployments
                ? item.at("/metadata/labels/app").asText()
                : item.at("/metadata/name").asText();
        int i = names.indexOf(name);
        if (i < 0 || !Double.isNaN(seconds[i])) {
          continue;
        }
        if (deployments || !item.at("/spec/nodeName").asText("").isEmpty()) {
          seconds[i] = now;
          remaining--;
        }
      }
    }
    if (victim != null) {
      cluster.restart(victim);
    }
    return new Round(role, victim, seconds);
  }

  /** One name per partition of the log, for Deployments or pods of this namespace. */
  private List<String> names(String prefix, boolean deployments) {
    String[] names = new String[partitions];
    int found = 0;
    for (int i = 0; found < partitions; i++) {
      String name = prefix + "-" + i;
      ResourceKey key =
          deployments
              ? new ResourceKey("deployments", "apps", namespace, name)
              : new ResourceKey("pods", "", namespace, name);
      int p = key.partition(partitions);
      if (names[p] == null) {
        names[p] = name;
        found++;
      }
    }
    return new ArrayList<>(List.of(names));
  }

  private static ObjectNode pod(String name) {
    ObjectNode pod = KubeClient.JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    pod.putObject("metadata").put("name", name);
    ObjectNode c = pod.putObject("spec").putArray("containers").addObject();
    c.put("name", "main").put("image", Workload.IMAGE + "0");
    return pod;
  }
}
