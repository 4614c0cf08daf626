package io.streamplane.node.runtime.simulated;

import io.streamplane.api.Container;
import io.streamplane.api.Pod;
import io.streamplane.node.runtime.PodInputs;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A kwok-style runtime: pods go through their phases and run no process, so one JVM can host
 * thousands of nodes for tests and benchmarks.
 *
 * <p>Contract: {@code start} completes after {@code startDelay} with every container RUNNING
 * (container ids {@code simulated://<uuid>}, image ids {@code <image>@sha256:<sha256 of the image
 * name>}); {@code stop} completes after {@code stopDelay} (never longer than the grace period) and
 * forgets the sandbox. The delays run on the shared scheduler the caller passes in, which this
 * class never shuts down.
 *
 * <p>Containers use what the pod's {@code streamplane.io/simulated-usage} annotation or their
 * requests say ({@link SimulatedUsage}), which the node's Summary API reports.
 *
 * <p>Limits: every container starts and keeps running unless the node stops it or the pod's {@value
 * #RUN_FOR} annotation ends it; probes and hooks always pass ({@link #runsProcesses()} is false);
 * nothing is left to adopt when a node restarts.
 */
public final class SimulatedRuntime implements PodRuntime {

  public static final String VERSION = "simulated://0.1";

  /** The annotation that makes a simulated pod's containers exit with 0 after a while. */
  public static final String RUN_FOR = "streamplane.io/simulated-run-for";

  public static final Duration DEFAULT_START_DELAY = Duration.ofMillis(500);
  public static final Duration DEFAULT_STOP_DELAY = Duration.ofMillis(100);

  private final ScheduledExecutorService scheduler;
  private final Duration startDelay;
  private final Duration stopDelay;
  private final Clock clock;
  private final Map<String, PodSandbox> sandboxes = new ConcurrentHashMap<>();
  private final SimulatedUsage usage = new SimulatedUsage();

  public SimulatedRuntime(
      ScheduledExecutorService scheduler, Duration startDelay, Duration stopDelay, Clock clock) {
    this.scheduler = scheduler;
    this.startDelay = startDelay;
    this.stopDelay = stopDelay;
    this.clock = clock;
  }

  public SimulatedRuntime(ScheduledExecutorService scheduler) {
    this(scheduler, DEFAULT_START_DELAY, DEFAULT_STOP_DELAY, Clock.systemUTC());
  }

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public boolean runsProcesses() {
    return false;
  }

  /** Every stream (exec, attach, port-forward) is refused: there is no process to reach. */
  @Override
  public String streamsRefused(String what) {
    return "the simulated runtime runs no processes, so it cannot "
        + what
        + ": run the node with --runtime process";
  }

  @Override
  public String osImage() {
    return "Streamplane simulated node";
  }

  @Override
  public CompletableFuture<PodSandbox> start(Pod pod, String podIP, PodInputs inputs) {
    CompletableFuture<PodSandbox> started = new CompletableFuture<>();
    scheduler.schedule(
        () -> {
          try {
            PodSandbox sandbox = run(pod, podIP, clock.instant());
            sandboxes.put(sandbox.id(), sandbox);
            exitLater(pod, sandbox);
            started.complete(sandbox);
          } catch (RuntimeException e) {
            started.completeExceptionally(e);
          }
        },
        startDelay.toMillis(),
        TimeUnit.MILLISECONDS);
    return started;
  }

  @Override
  public PodSandbox status(PodSandbox sandbox) {
    return sandboxes.getOrDefault(sandbox.id(), sandbox);
  }

  @Override
  public CompletableFuture<Void> stop(PodSandbox sandbox, Duration grace) {
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    long delay = Math.min(stopDelay.toMillis(), Math.max(0, grace.toMillis()));
    scheduler.schedule(
        () -> {
          sandboxes.remove(sandbox.id());
          usage.forget(sandbox.id());
          stopped.complete(null);
        },
        delay,
        TimeUnit.MILLISECONDS);
    return stopped;
  }

  /**
   * A pod annotated {@value #RUN_FOR} ({@code 5s}, an ISO-8601 duration, or a number of seconds)
   * has its containers exit with code 0 (reason Completed) that long after they started, so that
   * Jobs run to completion on simulated nodes; a malformed value is ignored.
   */
  private void exitLater(Pod pod, PodSandbox sandbox) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(RUN_FOR);
    Duration runFor;
    try {
      runFor =
          value == null
              ? null
              : Duration.parse(
                  value.startsWith("P") ? value : "PT" + value.replaceAll("s$", "") + "S");
    } catch (RuntimeException e) {
      return;
    }
    if (runFor == null) {
      return;
    }
    scheduler.schedule(
        () -> {
          for (RuntimeContainer started : sandbox.containers()) {
            sandboxes.computeIfPresent(
                sandbox.id(),
                (id, current) ->
                    replace(
                        current,
                        started.name(),
                        c ->
                            c.state() != RuntimeContainer.State.RUNNING
                                ? c
                                : new RuntimeContainer(
                                    c.name(),
                                    c.image(),
                                    c.imageID(),
                                    c.containerID(),
                                    RuntimeContainer.State.EXITED,
                                    c.startedAt(),
                                    clock.instant(),
                                    0,
                                    "Completed",
                                    null,
                                    c.restartCount(),
                                    c.lastTermination())));
          }
        },
        runFor.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** Simulated containers exit only as {@value #RUN_FOR} says; a restart starts one again. */
  @Override
  public CompletableFuture<Void> restartContainer(PodSandbox sandbox, String container) {
    sandboxes.computeIfPresent(
        sandbox.id(),
        (id, current) ->
            replace(
                current,
                container,
                c ->
                    new RuntimeContainer(
                            c.name(),
                            c.image(),
                            c.imageID(),
                            "simulated://" + UUID.randomUUID(),
                            RuntimeContainer.State.RUNNING,
                            clock.instant(),
                            null,
                            null)
                        .restarted(c.restartCount() + 1, c)));
    return CompletableFuture.completedFuture(null);
  }

  /** The container reads EXITED with code 137, as if killed. */
  @Override
  public CompletableFuture<Void> stopContainer(
      PodSandbox sandbox, String container, Duration grace) {
    sandboxes.computeIfPresent(
        sandbox.id(),
        (id, current) ->
            replace(
                current,
                container,
                c ->
                    new RuntimeContainer(
                        c.name(),
                        c.image(),
                        c.imageID(),
                        c.containerID(),
                        RuntimeContainer.State.EXITED,
                        c.startedAt(),
                        clock.instant(),
                        137,
                        "Error",
                        null,
                        c.restartCount(),
                        c.lastTermination())));
    return CompletableFuture.completedFuture(null);
  }

  /** Every command succeeds. */
  @Override
  public CompletableFuture<Integer> exec(
      PodSandbox sandbox, String container, List<String> command, Duration timeout) {
    return CompletableFuture.completedFuture(0);
  }

  /**
   * What each running container uses, as the pod's {@value SimulatedUsage#ANNOTATION} annotation or
   * its requests say ({@link SimulatedUsage}).
   */
  @Override
  public Map<String, ContainerUsage> usage(Pod pod, PodSandbox sandbox) {
    PodSandbox current = sandboxes.get(sandbox.id());
    if (current == null) {
      return Map.of();
    }
    List<String> running =
        current.containers().stream()
            .filter(c -> c.state() == RuntimeContainer.State.RUNNING)
            .map(RuntimeContainer::name)
            .toList();
    return usage.read(current.id(), pod, running, clock.instant());
  }

  private static PodSandbox replace(
      PodSandbox sandbox, String container, UnaryOperator<RuntimeContainer> change) {
    return new PodSandbox(
        sandbox.id(),
        sandbox.podKey(),
        sandbox.podIP(),
        sandbox.createdAt(),
        sandbox.containers().stream()
            .map(c -> c.name().equals(container) ? change.apply(c) : c)
            .toList());
  }

  /** How many sandboxes are running now. */
  public int running() {
    return sandboxes.size();
  }

  @Override
  public void close() {
    sandboxes.clear();
  }

  static PodSandbox run(Pod pod, String podIP, Instant now) {
    List<RuntimeContainer> containers = new ArrayList<>();
    List<Container> specContainers =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    for (Container container : specContainers) {
      String image = container.getImage() == null ? "" : container.getImage();
      containers.add(
          new RuntimeContainer(
              container.getName(),
              image,
              imageID(image),
              "simulated://" + UUID.randomUUID(),
              RuntimeContainer.State.RUNNING,
              now,
              null,
              null));
    }
    String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    return new PodSandbox(UUID.randomUUID().toString(), key, podIP, now, containers);
  }

  static String imageID(String image) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(image.getBytes(StandardCharsets.UTF_8));
      return image + "@sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
