package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Watch;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts, through a watch on the namespace's pods, the live pods of each {@code web} Deployment
 * (not terminating, not finished) after every change, and records each count that differs from the
 * previous one with its time. A rollout must never show more than {@code replicas + maxSurge}.
 *
 * <p>It also records, per Job uid, the pods seen to succeed and those seen to fail (Failed, or gone
 * without having succeeded), which a Job's counts must match; and every moment two live pods of the
 * {@code db} StatefulSet held the same ordinal.
 */
final class PodSampler implements AutoCloseable, Watch.Handler {

  /** A Deployment's live pods at a moment (nanoseconds since the run started). */
  record Sample(long at, String app, int pods, String byOwner) {}

  /**
   * A version of a {@code web} Deployment as the watch delivered it (nanoseconds since the run
   * started): its generation and replicas, and the generation its controller last reported acting
   * on ({@code status.observedGeneration}).
   */
  record Version(long at, String app, long generation, int replicas, long observedGeneration) {}

  private final Ledger ledger;
  private final Map<String, JsonNode> pods = new HashMap<>();
  private final Map<String, Integer> counts = new HashMap<>();
  private final List<Sample> samples = new ArrayList<>();
  private final Map<String, java.util.Set<String>> jobSucceeded = new HashMap<>();
  private final Map<String, java.util.Set<String>> jobFailed = new HashMap<>();
  private final List<String> ordinalDuplicates = new ArrayList<>();
  private final List<Version> versions = new ArrayList<>();
  private Watch watch;
  private Watch deployments;

  PodSampler(Ledger ledger) {
    this.ledger = ledger;
  }

  void start(String server, ClusterPki.ClientIdentity identity, String namespace)
      throws IOException, InterruptedException {
    watch =
        Watch.start(
            ChaosApi.client(server, identity),
            "/api/v1/namespaces/" + namespace + "/pods",
            "",
            this);
    onRelist(watch.initialItems(), null);
    deployments =
        Watch.start(
            ChaosApi.client(server, identity),
            "/apis/apps/v1/namespaces/" + namespace + "/deployments",
            "",
            new Watch.Handler() {
              @Override
              public void onEvent(Watch.Event event) {
                version(event.object());
              }

              @Override
              public void onRelist(List<JsonNode> items, java.time.Instant received) {
                items.forEach(PodSampler.this::version);
              }
            });
    deployments.initialItems().forEach(this::version);
  }

  private synchronized void version(JsonNode deployment) {
    String app = deployment.at("/metadata/name").asText();
    if (app.startsWith("web-")) {
      versions.add(
          new Version(
              ledger.now(),
              app,
              deployment.at("/metadata/generation").asLong(),
              deployment.at("/spec/replicas").asInt(1),
              deployment.at("/status/observedGeneration").asLong(0)));
    }
  }

  @Override
  public synchronized void onEvent(Watch.Event event) {
    String name = event.object().at("/metadata/name").asText();
    if (event.type().equals("DELETED")) {
      pods.remove(name);
    } else {
      pods.put(name, event.object());
    }
    jobPod(event.object(), event.type().equals("DELETED"));
    count();
  }

  @Override
  public synchronized void onRelist(List<JsonNode> items, java.time.Instant received) {
    pods.clear();
    for (JsonNode item : items) {
      pods.put(item.at("/metadata/name").asText(), item);
      jobPod(item, false);
    }
    count();
  }

  /** A pod of a Job: succeeded, failed, or gone before it succeeded. */
  private void jobPod(JsonNode pod, boolean gone) {
    String job = pod.at("/metadata/labels/batch.kubernetes.io~1controller-uid").asText("");
    if (job.isEmpty()) {
      return;
    }
    String uid = pod.at("/metadata/uid").asText();
    String phase = pod.at("/status/phase").asText("");
    java.util.Set<String> succeeded =
        jobSucceeded.computeIfAbsent(job, j -> new java.util.HashSet<>());
    if (phase.equals("Succeeded")) {
      succeeded.add(uid);
    } else if (phase.equals("Failed") || (gone && !succeeded.contains(uid))) {
      jobFailed.computeIfAbsent(job, j -> new java.util.HashSet<>()).add(uid);
    }
  }

  private void count() {
    Map<String, Integer> ordinals = new HashMap<>();
    for (JsonNode pod : pods.values()) {
      String phase = pod.at("/status/phase").asText("");
      if (pod.at("/metadata/labels/app").asText("").equals(Workload.STATEFUL_SET)
          && !pod.at("/metadata/deletionTimestamp").isTextual()
          && !phase.equals("Succeeded")
          && !phase.equals("Failed")) {
        ordinals.merge(
            pod.at("/metadata/labels/apps.kubernetes.io~1pod-index").asText("?"), 1, Integer::sum);
      }
    }
    ordinals.forEach(
        (ordinal, n) -> {
          if (n > 1) {
            ordinalDuplicates.add(
                String.format(
                    java.util.Locale.ROOT,
                    "%d live pods of ordinal %s at %.1f s",
                    n,
                    ordinal,
                    ledger.now() / 1e9));
          }
        });
    Map<String, Integer> now = new HashMap<>();
    Map<String, Map<String, Integer>> owners = new HashMap<>();
    for (JsonNode pod : pods.values()) {
      String app = pod.at("/metadata/labels/app").asText("");
      String phase = pod.at("/status/phase").asText("");
      if (!app.startsWith("web-")
          || pod.at("/metadata/deletionTimestamp").isTextual()
          || phase.equals("Succeeded")
          || phase.equals("Failed")) {
        continue;
      }
      now.merge(app, 1, Integer::sum);
      owners
          .computeIfAbsent(app, a -> new java.util.TreeMap<>())
          .merge(pod.at("/metadata/ownerReferences/0/name").asText("-"), 1, Integer::sum);
    }
    long at = ledger.now();
    for (String app : new java.util.TreeSet<>(now.keySet())) {
      int n = now.get(app);
      if (!Integer.valueOf(n).equals(counts.get(app))) {
        samples.add(new Sample(at, app, n, owners.get(app).toString()));
        counts.put(app, n);
      }
    }
  }

  synchronized List<Sample> samples() {
    return new ArrayList<>(samples);
  }

  synchronized List<Version> versions() {
    return new ArrayList<>(versions);
  }

  /** The uids of the pods seen to succeed, per Job uid. */
  synchronized Map<String, java.util.Set<String>> jobSucceeded() {
    return new HashMap<>(jobSucceeded);
  }

  /** The uids of the pods seen to fail or go before succeeding, per Job uid. */
  synchronized Map<String, java.util.Set<String>> jobFailed() {
    return new HashMap<>(jobFailed);
  }

  /** The moments two live pods of the StatefulSet held one ordinal. */
  synchronized List<String> ordinalDuplicates() {
    return new ArrayList<>(ordinalDuplicates);
  }

  int relists() {
    return watch == null ? 0 : watch.relists();
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    if (deployments != null) {
      deployments.close();
    }
  }

  /**
   * Samples above {@code replicas + maxSurge}, where replicas is the highest the Deployment was
   * asked for in the 30 s before the sample or since, or in any version of it from the one its
   * controller last reported acting on ({@code status.observedGeneration}, as seen by the sample's
   * time) on: a controller that lags behind the Deployment still acts on that version, as
   * kube-controller-manager acts on its informer's, and a scale-down takes effect when it acts on
   * the version that asks for it.
   */
  static List<String> beyondSurge(
      List<Sample> samples,
      List<Ledger.Op> ops,
      List<Version> versions,
      int initialReplicas,
      int maxSurge) {
    List<String> beyond = new ArrayList<>();
    long window = 30_000_000_000L;
    for (Sample s : samples) {
      int allowed = initialReplicas;
      int lastBefore = initialReplicas;
      boolean seenInWindow = false;
      for (Ledger.Op op : ops) {
        if (!op.kind().equals("deployment-scale") || !op.name().equals(s.app())) {
          continue;
        }
        if (op.outcome() == Ledger.Outcome.FAILED) {
          continue;
        }
        int replicas = Integer.parseInt(op.written());
        if (op.invoked() <= s.at() - window) {
          lastBefore = replicas;
        } else if (op.invoked() <= s.at()) {
          allowed = Math.max(allowed, replicas);
          seenInWindow = true;
        }
      }
      allowed = seenInWindow ? Math.max(allowed, lastBefore) : lastBefore;
      allowed = Math.max(allowed, notYetActedOn(versions, s));
      if (s.pods() > allowed + maxSurge) {
        beyond.add(
            String.format(
                java.util.Locale.ROOT,
                "%s: %d live pods at %.1f s (replicas %d + maxSurge %d), by ReplicaSet %s",
                s.app(),
                s.pods(),
                s.at() / 1e9,
                allowed,
                maxSurge,
                s.byOwner()));
      }
    }
    return beyond;
  }

  /**
   * The highest replicas of the versions of the sample's Deployment seen by its time whose
   * generation is at least the one its controller had last reported acting on; 0 if none was seen.
   */
  private static int notYetActedOn(List<Version> versions, Sample s) {
    long observed = 0;
    for (Version v : versions) {
      if (v.app().equals(s.app()) && v.at() <= s.at()) {
        observed = Math.max(observed, v.observedGeneration());
      }
    }
    int replicas = 0;
    for (Version v : versions) {
      if (v.app().equals(s.app()) && v.at() <= s.at() && v.generation() >= observed) {
        replicas = Math.max(replicas, v.replicas());
      }
    }
    return replicas;
  }

  /**
   * After convergence: pods beyond each ReplicaSet's replicas (live pods owned by it, minus its
   * spec.replicas, summed), and Deployments that did not converge.
   */
  static List<String> duplicates(KubeClient client, String namespace)
      throws IOException, InterruptedException {
    List<String> found = new ArrayList<>();
    KubeClient.Response sets = client.get("/apis/apps/v1/namespaces/" + namespace + "/replicasets");
    KubeClient.Response list = client.get("/api/v1/namespaces/" + namespace + "/pods");
    if (!sets.ok() || !list.ok()) {
      found.add("cannot list: " + sets.status() + " / " + list.status());
      return found;
    }
    Map<String, Integer> owned = new HashMap<>();
    for (JsonNode pod : list.body().path("items")) {
      if (pod.at("/metadata/deletionTimestamp").isTextual()) {
        continue;
      }
      for (JsonNode owner : pod.at("/metadata/ownerReferences")) {
        owned.merge(owner.path("uid").asText(), 1, Integer::sum);
      }
    }
    for (JsonNode rs : sets.body().path("items")) {
      int want = rs.at("/spec/replicas").asInt();
      int have = owned.getOrDefault(rs.at("/metadata/uid").asText(), 0);
      if (have > want) {
        found.add(
            rs.at("/metadata/name").asText() + ": " + have + " pods for " + want + " replicas");
      }
    }
    return found;
  }
}
