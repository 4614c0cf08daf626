package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.bench.chaos.Ledger.Outcome;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operations the chaos run sends, from several client threads, each recorded in the {@link
 * Ledger}:
 *
 * <ul>
 *   <li>register clients: reads, compare-and-set updates (PUT with the resourceVersion last read),
 *       deletes with a resourceVersion precondition and creates, on a few ConfigMaps, each write
 *       with a value no other write uses (so that the log tells which write a version came from);
 *   <li>a deployment client: rollouts (a new image) and scale-downs and back up of the {@code web}
 *       Deployments (RollingUpdate, maxSurge 1, maxUnavailable 0, pods requesting CPU so that the
 *       nodes fill up), and creates and deletes of {@code churn} Deployments;
 *   <li>a workloads client: a Job {@code job-<n>} (3 completions, 2 at a time, pods that run 3 s)
 *       every few seconds, template changes of the {@code agent} DaemonSet (one pod per node),
 *       scales of the {@code db} StatefulSet between 2 and 3 and deletes of its pods.
 * </ul>
 *
 * A client sends to one gateway and moves to the next after an error it cannot tell the outcome of.
 */
public final class Workload implements AutoCloseable {

  /** What to run. */
  public record Shape(
      String namespace, int registerClients, int registers, int deployments, int replicas) {}

  public static final String IMAGE = "registry.k8s.io/pause:3.";

  private final Shape shape;
  private final List<String> servers;
  private final ClusterPki.ClientIdentity identity;
  private final Ledger ledger;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicInteger written = new AtomicInteger();
  private volatile boolean stopping;

  public Workload(
      Shape shape, List<String> servers, ClusterPki.ClientIdentity identity, Ledger ledger) {
    this.identity = identity;
    this.shape = shape;
    this.servers = servers;
    this.ledger = ledger;
  }

  public static String register(int i) {
    return "register-" + i;
  }

  public static String web(int i) {
    return "web-" + i;
  }

  public static final String DAEMON_SET = "agent";
  public static final String STATEFUL_SET = "db";
  public static final int STATEFUL_REPLICAS = 3;
  public static final int JOB_COMPLETIONS = 3;

  /** Creates the Deployments and starts the clients. */
  public void start() throws IOException, InterruptedException {
    KubeClient setup = ChaosApi.client(servers.get(0), identity);
    for (int i = 0; i < shape.deployments(); i++) {
      KubeClient.Response r =
          setup.post(
              "/apis/apps/v1/namespaces/" + shape.namespace() + "/deployments",
              deployment(web(i), shape.replicas(), 1, "500m"));
      if (!r.ok()) {
        throw new IOException("cannot create deployment " + web(i) + ": " + r.message());
      }
    }
    for (int c = 0; c < shape.registerClients(); c++) {
      int client = c;
      threads.add(new Thread(() -> registers(client), "chaos-register-" + c));
    }
    for (var created :
        List.of(
            Map.entry(
                "/apis/apps/v1/namespaces/" + shape.namespace() + "/daemonsets", daemonSet(0)),
            Map.entry(
                "/apis/apps/v1/namespaces/" + shape.namespace() + "/statefulsets",
                statefulSet(STATEFUL_REPLICAS)))) {
      KubeClient.Response r = setup.post(created.getKey(), created.getValue());
      if (!r.ok()) {
        throw new IOException("cannot create " + created.getKey() + ": " + r.message());
      }
    }
    threads.add(new Thread(this::deployments, "chaos-deployments"));
    threads.add(new Thread(this::workloads, "chaos-workloads"));
    threads.forEach(Thread::start);
  }

  /** Acknowledged writes so far. */
  public int acknowledgedWrites() {
    return written.get();
  }

  static ObjectNode deployment(String name, int replicas, int image, String cpu) {
    ObjectNode d = KubeClient.JSON.createObjectNode();
    d.put("apiVersion", "apps/v1").put("kind", "Deployment");
    d.putObject("metadata").put("name", name).putObject("labels").put("app", name);
    ObjectNode spec = d.putObject("spec");
    spec.put("replicas", replicas);
    spec.putObject("selector").putObject("matchLabels").put("app", name);
    ObjectNode strategy = spec.putObject("strategy");
    strategy.put("type", "RollingUpdate");
    strategy.putObject("rollingUpdate").put("maxSurge", 1).put("maxUnavailable", 0);
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", name);
    template.putObject("spec").set("containers", containers(image, cpu));
    return d;
  }

  private static JsonNode containers(int image, String cpu) {
    ObjectNode c = KubeClient.JSON.createObjectNode();
    c.put("name", "web").put("image", IMAGE + image);
    if (cpu != null) {
      c.putObject("resources").putObject("requests").put("cpu", cpu);
    }
    return KubeClient.JSON.createArrayNode().add(c);
  }

  static ObjectNode daemonSet(int image) {
    ObjectNode ds = KubeClient.JSON.createObjectNode();
    ds.put("apiVersion", "apps/v1").put("kind", "DaemonSet");
    ds.putObject("metadata").put("name", DAEMON_SET);
    ObjectNode spec = ds.putObject("spec");
    spec.putObject("selector").putObject("matchLabels").put("app", DAEMON_SET);
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", DAEMON_SET);
    template.putObject("spec").set("containers", containers(image, "10m"));
    return ds;
  }

  static ObjectNode statefulSet(int replicas) {
    ObjectNode sts = KubeClient.JSON.createObjectNode();
    sts.put("apiVersion", "apps/v1").put("kind", "StatefulSet");
    sts.putObject("metadata").put("name", STATEFUL_SET);
    ObjectNode spec = sts.putObject("spec");
    spec.put("replicas", replicas).put("serviceName", STATEFUL_SET);
    spec.putObject("selector").putObject("matchLabels").put("app", STATEFUL_SET);
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", STATEFUL_SET);
    template.putObject("spec").set("containers", containers(0, "100m"));
    return sts;
  }

  /** A Job of 3 completions, 2 at a time, whose simulated pods run 3 s and succeed. */
  static ObjectNode job(String name) {
    ObjectNode job = KubeClient.JSON.createObjectNode();
    job.put("apiVersion", "batch/v1").put("kind", "Job");
    job.putObject("metadata").put("name", name);
    ObjectNode spec = job.putObject("spec");
    spec.put("completions", JOB_COMPLETIONS).put("parallelism", 2).put("backoffLimit", 100);
    ObjectNode template = spec.putObject("template");
    ObjectNode meta = template.putObject("metadata");
    meta.putObject("labels").put("app", "job");
    meta.putObject("annotations").put("streamplane.io/simulated-run-for", "3s");
    ObjectNode podSpec = template.putObject("spec");
    podSpec.put("restartPolicy", "Never");
    podSpec.set("containers", containers(0, "100m"));
    return job;
  }

  /**
   * Jobs, DaemonSet rollouts, StatefulSet scales and pod deletes, one every 2 to 4 s, each in the
   * ledger.
   */
  private void workloads() {
    Random random = new Random(2718);
    ChaosApi api = new ChaosApi(servers, identity, 2000, ledger);
    String apps = "/apis/apps/v1/namespaces/" + shape.namespace();
    String batch = "/apis/batch/v1/namespaces/" + shape.namespace() + "/jobs";
    int jobs = 0;
    int image = 0;
    while (!stopping) {
      double dice = random.nextDouble();
      Ledger.Op op;
      if (dice < 0.4) {
        String name = "job-" + jobs++;
        ObjectNode body = job(name);
        op =
            api.send(
                "job-create",
                "jobs",
                shape.namespace(),
                name,
                null,
                null,
                c -> c.post(batch, body));
      } else if (dice < 0.6) {
        image = (image + 1) % 10;
        ObjectNode patch = KubeClient.JSON.createObjectNode();
        ((ObjectNode) patch.putObject("spec").putObject("template").putObject("spec"))
            .set("containers", containers(image, "10m"));
        op =
            api.send(
                "daemonset-rollout",
                "daemonsets",
                shape.namespace(),
                DAEMON_SET,
                null,
                IMAGE + image,
                c -> c.mergePatch(apps + "/daemonsets/" + DAEMON_SET, patch));
      } else if (dice < 0.8) {
        int replicas = random.nextBoolean() ? STATEFUL_REPLICAS - 1 : STATEFUL_REPLICAS;
        ObjectNode patch = KubeClient.JSON.createObjectNode();
        patch.putObject("spec").put("replicas", replicas);
        op =
            api.send(
                "statefulset-scale",
                "statefulsets",
                shape.namespace(),
                STATEFUL_SET,
                null,
                Integer.toString(replicas),
                c -> c.mergePatch(apps + "/statefulsets/" + STATEFUL_SET, patch));
      } else {
        String pod = STATEFUL_SET + "-" + random.nextInt(STATEFUL_REPLICAS - 1);
        op =
            api.send(
                "statefulset-pod-delete",
                "pods",
                shape.namespace(),
                pod,
                null,
                null,
                c -> c.delete("/api/v1/namespaces/" + shape.namespace() + "/pods/" + pod));
      }
      if (op.outcome() == Outcome.OK) {
        written.incrementAndGet();
      }
      sleep(2_000 + random.nextInt(2_000));
    }
  }

  private void registers(int client) {
    Random random = new Random(client * 7919L);
    ChaosApi api = new ChaosApi(servers, identity, client, ledger);
    Map<String, String> known = new HashMap<>();
    long seq = 0;
    String base = "/api/v1/namespaces/" + shape.namespace() + "/configmaps";
    while (!stopping) {
      String name = register(random.nextInt(shape.registers()));
      String path = base + "/" + name;
      double dice = random.nextDouble();
      String rv = known.get(name);
      Ledger.Op op;
      if (dice < 0.3 || (rv == null && dice < 0.9)) {
        op =
            api.send(
                "configmap-read",
                "configmaps",
                shape.namespace(),
                name,
                null,
                null,
                c -> c.get(path));
        if (op.outcome() == Outcome.OK) {
          known.put(name, op.version());
        } else if (op.status() == 404) {
          known.put(name, null);
          op = create(api, base, name, client + "-" + seq++);
          remember(known, name, op);
        }
      } else if (dice < 0.9) {
        String value = client + "-" + seq++;
        ObjectNode body = configMap(name, value);
        ((ObjectNode) body.get("metadata")).put("resourceVersion", rv);
        op =
            api.send(
                "configmap-update",
                "configmaps",
                shape.namespace(),
                name,
                rv,
                value,
                c -> c.put(path, body));
        remember(known, name, op);
      } else if (dice < 0.96 && rv != null) {
        ObjectNode options = KubeClient.JSON.createObjectNode();
        options.put("apiVersion", "v1").put("kind", "DeleteOptions");
        options.putObject("preconditions").put("resourceVersion", rv);
        op =
            api.send(
                "configmap-delete",
                "configmaps",
                shape.namespace(),
                name,
                rv,
                null,
                c -> c.deleteWithBody(path, options));
        known.remove(name);
      } else {
        op = create(api, base, name, client + "-" + seq++);
        remember(known, name, op);
      }
      if (op.isWrite() && op.outcome() == Outcome.OK) {
        written.incrementAndGet();
      }
    }
  }

  private Ledger.Op create(ChaosApi api, String base, String name, String value) {
    ObjectNode body = configMap(name, value);
    return api.send(
        "configmap-create",
        "configmaps",
        shape.namespace(),
        name,
        null,
        value,
        c -> c.post(base, body));
  }

  private static void remember(Map<String, String> known, String name, Ledger.Op op) {
    if (op.outcome() == Outcome.OK) {
      known.put(name, op.version());
    } else {
      known.remove(name);
    }
  }

  private ObjectNode configMap(String name, String value) {
    ObjectNode cm = KubeClient.JSON.createObjectNode();
    cm.put("apiVersion", "v1").put("kind", "ConfigMap");
    cm.putObject("metadata").put("name", name).put("namespace", shape.namespace());
    cm.putObject("data").put("v", value);
    return cm;
  }

  private void deployments() {
    Random random = new Random(4242);
    ChaosApi api = new ChaosApi(servers, identity, 1000, ledger);
    String base = "/apis/apps/v1/namespaces/" + shape.namespace() + "/deployments";
    int[] image = new int[shape.deployments()];
    int churn = 0;
    List<String> churning = new ArrayList<>();
    while (!stopping) {
      double dice = random.nextDouble();
      Ledger.Op op;
      if (dice < 0.5) {
        int i = random.nextInt(shape.deployments());
        image[i] = (image[i] + 1) % 10;
        ObjectNode patch = KubeClient.JSON.createObjectNode();
        ((ObjectNode) patch.putObject("spec").putObject("template").putObject("spec"))
            .set("containers", containers(image[i], "500m"));
        op =
            api.send(
                "deployment-rollout",
                "deployments",
                shape.namespace(),
                web(i),
                null,
                IMAGE + image[i],
                c -> c.mergePatch(base + "/" + web(i), patch));
      } else if (dice < 0.75) {
        int i = random.nextInt(shape.deployments());
        int replicas = random.nextBoolean() ? shape.replicas() - 1 : shape.replicas();
        ObjectNode patch = KubeClient.JSON.createObjectNode();
        patch.putObject("spec").put("replicas", replicas);
        op =
            api.send(
                "deployment-scale",
                "deployments",
                shape.namespace(),
                web(i),
                null,
                Integer.toString(replicas),
                c -> c.mergePatch(base + "/" + web(i), patch));
      } else if (dice < 0.9 || churning.isEmpty()) {
        String name = "churn-" + churn++;
        ObjectNode body = deployment(name, 1, 0, null);
        op =
            api.send(
                "deployment-create",
                "deployments",
                shape.namespace(),
                name,
                null,
                null,
                c -> c.post(base, body));
        if (op.outcome() != Outcome.FAILED) {
          churning.add(name);
        }
      } else {
        String name = churning.remove(0);
        op =
            api.send(
                "deployment-delete",
                "deployments",
                shape.namespace(),
                name,
                null,
                null,
                c -> c.delete(base + "/" + name));
      }
      if (op.outcome() == Outcome.OK) {
        written.incrementAndGet();
      }
      sleep(1_500 + random.nextInt(1_500));
    }
  }

  private void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      stopping = true;
    }
  }

  /** Stops the clients after their current operation. */
  @Override
  public void close() {
    stopping = true;
    for (Thread t : threads) {
      try {
        t.join(90_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
