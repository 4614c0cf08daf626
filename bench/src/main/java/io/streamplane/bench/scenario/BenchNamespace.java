package io.streamplane.bench.scenario;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.Progress;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The namespace a scenario works in. A new one ({@code bench-<scenario>-<random>}, or the name
 * given) is created for the run and deleted afterwards, also when the run is interrupted (Ctrl-C),
 * unless it is to be kept. A namespace that already exists is used as it is and never deleted; the
 * scenario then deletes only the objects it made.
 */
public final class BenchNamespace implements AutoCloseable {

  /** The label every object of a run carries, with the run's id. */
  public static final String RUN_LABEL = "streamplane.io/bench-run";

  /**
   * How long a deleted namespace may take to go. A run that starts while the last one's pods still
   * hold the nodes cannot fit its own: the multi-process cluster took more than 3 minutes to delete
   * 1,000 pods, and the runs after it failed for want of room.
   */
  private static final Duration DELETE_WAIT = Duration.ofMinutes(10);

  private final KubeClient client;
  private final String name;
  private final String runId;
  private final boolean created;
  private final boolean keep;
  private final Thread hook;
  private volatile boolean closed;
  private volatile Duration deletion;

  private BenchNamespace(
      KubeClient client, String name, String runId, boolean created, boolean keep) {
    this.client = client;
    this.name = name;
    this.runId = runId;
    this.created = created;
    this.keep = keep;
    this.hook = new Thread(this::deleteOnExit, "bench-namespace-cleanup");
  }

  /**
   * Creates {@code requested} (or a fresh name when null) unless it exists; {@code keep}: never
   * delete it.
   */
  public static BenchNamespace open(
      KubeClient client, String scenario, String requested, boolean keep) throws Exception {
    String runId = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36), 36);
    String name = requested != null ? requested : "bench-" + scenario + "-" + runId;
    KubeClient.Response answer =
        client.post(
            "/api/v1/namespaces",
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Namespace",
                "metadata",
                Map.of("name", name, "labels", Map.of(RUN_LABEL, runId))));
    boolean created;
    if (answer.status() == 201) {
      created = true;
    } else if (answer.status() == 409 && requested != null) {
      created = false;
    } else {
      throw new IllegalStateException(
          "cannot create namespace " + name + ": " + answer.status() + " " + answer.message());
    }
    BenchNamespace namespace = new BenchNamespace(client, name, runId, created, keep);
    if (created && !keep) {
      Runtime.getRuntime().addShutdownHook(namespace.hook);
    }
    return namespace;
  }

  public String name() {
    return name;
  }

  /** The run's id: the value of {@link #RUN_LABEL} on everything the run creates. */
  public String runId() {
    return runId;
  }

  public String selector() {
    return RUN_LABEL + "=" + runId;
  }

  /** Whether this run created the namespace (and so deletes it). */
  public boolean created() {
    return created;
  }

  /** How long the namespace took to disappear after its DELETE, null if not deleted or not gone. */
  public Duration deletion() {
    return deletion;
  }

  /** A sentence for the report on what happened to the namespace. */
  public String fate() {
    if (!created) {
      return "namespace `" + name + "` existed before the run and was left in place";
    }
    if (keep) {
      return "namespace `" + name + "` kept (`--keep`)";
    }
    return deletion == null
        ? "namespace `"
            + name
            + "` deleted, still not gone after "
            + DELETE_WAIT.toMinutes()
            + " min"
        : String.format(
            Locale.ROOT,
            "namespace `%s` deleted; gone %.1f s after the DELETE",
            name,
            deletion.toMillis() / 1000.0);
  }

  /**
   * Deletes the namespace if this run created it and it is not kept, and waits until it is gone.
   */
  @Override
  public void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    if (!created || keep) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // Stopping (Ctrl-C, SIGTERM): the clusters stop beside this thread, so waiting for the
      // namespace to go would only keep the report of the runs done from being written.
      deleteOnExitNow();
      return;
    }
    Instant start = Instant.now();
    // A cluster busy deleting may answer a request late: each is tried again until DELETE_WAIT,
    // and one that never succeeds leaves the namespace's fate in the report, not the run's figures
    // lost.
    boolean deleted = false;
    try (Progress progress =
        Progress.start(() -> Progress.Status.of("deleting namespace " + name, 0, 0, ""))) {
      while (Duration.between(start, Instant.now()).compareTo(DELETE_WAIT) < 0) {
        try {
          if (!deleted) {
            int status = client.delete("/api/v1/namespaces/" + name).status();
            deleted = status < 300 || status == 404;
          }
          if (deleted && client.get("/api/v1/namespaces/" + name).status() == 404) {
            deletion = Duration.between(start, Instant.now());
            return;
          }
        } catch (IOException e) {
          // Answered too late: asked again below.
        }
        Thread.sleep(250);
      }
    }
  }

  private void deleteOnExit() {
    if (closed) {
      return;
    }
    deleteOnExitNow();
  }

  private void deleteOnExitNow() {
    try {
      client.delete("/api/v1/namespaces/" + name);
      System.err.println("\ndeleted namespace " + name);
    } catch (Exception e) {
      System.err.println("\ncould not delete namespace " + name + ": " + e.getMessage());
    }
  }
}
