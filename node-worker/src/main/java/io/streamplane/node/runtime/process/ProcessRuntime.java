package io.streamplane.node.runtime.process;

import io.streamplane.api.Container;
import io.streamplane.api.EnvVar;
import io.streamplane.api.Pod;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A runtime whose containers are host OS processes: the {@code process} runtime of the node worker.
 *
 * <p>Contract: {@code start} makes a sandbox directory {@code <root>/<namespace>_<name>_<uid>/},
 * runs the init containers one after the other to completion (one that cannot start or exits
 * non-zero fails the start, and nothing of the pod is left running), then starts every container. A
 * container's command line is its {@code command} plus {@code args}, or, with no {@code command},
 * the {@link ImageCatalog} entry of its image (Kubernetes' entrypoint/cmd rules). Its environment
 * is only {@code PATH} (this JVM's), {@code HOSTNAME} (the pod name), {@code POD_IP} and the
 * container's {@code env} values, in which {@code $(VAR)} names an earlier variable as in
 * Kubernetes ({@code $$} escapes, unknown names stay as written; {@code command} and {@code args}
 * expand the same way). It runs in {@code workingDir} (created if missing) or the sandbox
 * directory, stdout and stderr appended to {@code <sandbox>/<container>.log}. A container whose
 * image the catalog cannot resolve and that has no command stays CREATED (Waiting) with reason
 * {@code ErrImagePull}; one whose process cannot be started stays CREATED with {@code
 * RunContainerError}. Container ids are {@code process://<pid>}.
 *
 * <p>{@code status} reads each process: RUNNING, or EXITED with its exit code and reason {@code
 * Completed} (0) or {@code Error}. {@code stop} sends SIGTERM to every container process and its
 * descendants, waits up to the grace period, then SIGKILLs what is left, and forgets the sandbox
 * (its directory and logs stay). {@code close} kills every process this runtime started.
 *
 * <p>Limits: no restart policies (a container that exits stays EXITED), no probes, no hooks, no
 * volumes, no {@code envFrom} or {@code valueFrom}, no resource limits, no isolation (processes
 * share the host's users, files and network; the pod IP is only what servers bind to), and nothing
 * is adopted after a node restart. {@code stop} and {@code close} reach the descendants a
 * container's process has at that moment: a child left behind by a main process that already exited
 * is not tracked (there is no cgroup or process group to find it by).
 */
public final class ProcessRuntime implements PodRuntime {

  public static final String VERSION = "process://0.1";

  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.\\-]*)\\)");

  private final Path root;
  private final ImageCatalog catalog;
  private final Clock clock;
  private final ExecutorService executor;
  private final Map<String, Sandbox> sandboxes = new ConcurrentHashMap<>();

  public ProcessRuntime(Path root, ImageCatalog catalog, Clock clock) {
    this.root = root;
    this.catalog = catalog;
    this.clock = clock;
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "process-runtime-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  public ProcessRuntime(Path root) {
    this(root, ImageCatalog.defaults(), Clock.systemUTC());
  }

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public String osImage() {
    try {
      for (String line : Files.readAllLines(Path.of("/etc/os-release"))) {
        if (line.startsWith("PRETTY_NAME=")) {
          String value = line.substring("PRETTY_NAME=".length()).trim();
          if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'"))) {
            value = value.substring(1, value.length() - 1);
          }
          if (!value.isBlank()) {
            return value;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // no os-release: fall through
    }
    return "Linux";
  }

  @Override
  public CompletableFuture<PodSandbox> start(Pod pod, String podIP) {
    return CompletableFuture.supplyAsync(() -> run(pod, podIP), executor);
  }

  @Override
  public PodSandbox status(PodSandbox sandbox) {
    Sandbox running = sandboxes.get(sandbox.id());
    return running == null ? sandbox : running.snapshot();
  }

  @Override
  public CompletableFuture<Void> stop(PodSandbox sandbox, Duration grace) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return CompletableFuture.completedFuture(null);
    }
    return CompletableFuture.runAsync(
        () -> {
          terminate(running.processes(), grace);
          sandboxes.remove(sandbox.id());
        },
        executor);
  }

  /** The log file of {@code container} in {@code sandbox}, or empty for an unknown sandbox. */
  public Optional<Path> logFile(PodSandbox sandbox, String container) {
    Sandbox running = sandboxes.get(sandbox.id());
    return running == null
        ? Optional.empty()
        : Optional.of(running.dir.resolve(container + ".log"));
  }

  /** How many sandboxes this runtime is tracking now. */
  public int running() {
    return sandboxes.size();
  }

  @Override
  public void close() {
    for (Sandbox sandbox : sandboxes.values()) {
      terminate(sandbox.processes(), Duration.ZERO);
    }
    sandboxes.clear();
    executor.shutdownNow();
  }

  private PodSandbox run(Pod pod, String podIP) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    Path dir =
        root.resolve(
            (namespace == null ? "default" : namespace)
                + "_"
                + name
                + "_"
                + (uid == null ? UUID.randomUUID().toString() : uid));
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the sandbox directory " + dir, e);
    }
    Instant createdAt = clock.instant();
    for (Container init : list(pod.getSpec() == null ? null : pod.getSpec().getInitContainers())) {
      Run run = launch(init, pod, podIP, dir);
      if (run.process == null) {
        throw new CompletionException(
            new IllegalStateException(
                "init container " + init.getName() + " did not start: " + run.message));
      }
      try {
        int exit = run.process.waitFor();
        if (exit != 0) {
          throw new CompletionException(
              new IllegalStateException(
                  "init container " + init.getName() + " exited with code " + exit));
        }
      } catch (InterruptedException e) {
        terminate(List.of(run.process), Duration.ZERO);
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
    }
    List<Run> runs = new ArrayList<>();
    for (Container container : list(pod.getSpec() == null ? null : pod.getSpec().getContainers())) {
      runs.add(launch(container, pod, podIP, dir));
    }
    Sandbox sandbox =
        new Sandbox(
            UUID.randomUUID().toString(),
            (namespace == null ? "default" : namespace) + "/" + name,
            podIP,
            createdAt,
            dir,
            List.copyOf(runs));
    sandboxes.put(sandbox.id, sandbox);
    return sandbox.snapshot();
  }

  private Run launch(Container container, Pod pod, String podIP, Path dir) {
    String image = container.getImage() == null ? "" : container.getImage();
    Run run = new Run(container.getName(), image, imageID(image));
    Optional<List<String>> line = catalog.command(container, podIP);
    if (line.isEmpty()) {
      run.reason = "ErrImagePull";
      run.message =
          "image \""
              + image
              + "\" is not in the node's image catalog and the container has no command";
      return run;
    }
    Map<String, String> env = new LinkedHashMap<>();
    for (EnvVar var : list(container.getEnv())) {
      if (var.getValue() != null) {
        env.put(var.getName(), expand(var.getValue(), env));
      } else if (var.getValueFrom() == null) {
        env.put(var.getName(), "");
      }
    }
    List<String> command = line.get().stream().map(arg -> expand(arg, env)).toList();
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> environment = builder.environment();
    String path = environment.get("PATH");
    environment.clear();
    environment.put("PATH", path == null ? "/usr/local/bin:/usr/bin:/bin" : path);
    environment.put("HOSTNAME", pod.getMetadata().getName());
    environment.put("POD_IP", podIP);
    environment.putAll(env);
    try {
      Path workingDir = dir;
      if (container.getWorkingDir() != null && !container.getWorkingDir().isBlank()) {
        workingDir = Files.createDirectories(Path.of(container.getWorkingDir()));
      }
      builder.directory(workingDir.toFile());
      builder.redirectErrorStream(true);
      builder.redirectOutput(
          ProcessBuilder.Redirect.appendTo(dir.resolve(container.getName() + ".log").toFile()));
      builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      run.startedAt = clock.instant();
      Process process = builder.start();
      run.process = process;
      process.onExit().thenRun(() -> run.finishedAt = clock.instant());
    } catch (IOException | RuntimeException e) {
      run.startedAt = null;
      run.reason = "RunContainerError";
      run.message = "cannot start " + command + ": " + e.getMessage();
    }
    return run;
  }

  /** Kubernetes' {@code $(VAR)} expansion against {@code env}. */
  static String expand(String value, Map<String, String> env) {
    Matcher matcher = REFERENCE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String replacement;
      if (matcher.group(1) == null) {
        replacement = "$";
      } else {
        String known = env.get(matcher.group(1));
        replacement = known == null ? matcher.group() : known;
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  private static void terminate(List<Process> processes, Duration grace) {
    List<ProcessHandle> handles = new ArrayList<>();
    for (Process process : processes) {
      handles.addAll(process.descendants().toList());
      handles.add(process.toHandle());
    }
    if (!grace.isZero() && !grace.isNegative()) {
      handles.forEach(ProcessHandle::destroy);
      long deadline = System.nanoTime() + grace.toNanos();
      for (ProcessHandle handle : handles) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          handle.onExit().get(left, TimeUnit.NANOSECONDS);
        } catch (Exception e) {
          break;
        }
      }
    }
    for (ProcessHandle handle : handles) {
      if (handle.isAlive()) {
        handle.destroyForcibly();
      }
    }
    for (Process process : processes) {
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
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

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }

  /** One container's process, or why it has none. */
  private static final class Run {
    final String name;
    final String image;
    final String imageID;
    volatile Process process;
    volatile Instant startedAt;
    volatile Instant finishedAt;
    volatile String reason;
    volatile String message;

    Run(String name, String image, String imageID) {
      this.name = name;
      this.image = image;
      this.imageID = imageID;
    }

    RuntimeContainer snapshot(Clock clock) {
      Process p = process;
      if (p == null) {
        return new RuntimeContainer(
            name,
            image,
            imageID,
            null,
            RuntimeContainer.State.CREATED,
            null,
            null,
            null,
            reason,
            message);
      }
      String id = "process://" + p.pid();
      if (p.isAlive()) {
        return new RuntimeContainer(
            name, image, imageID, id, RuntimeContainer.State.RUNNING, startedAt, null, null);
      }
      int exit = p.exitValue();
      Instant finished = finishedAt == null ? clock.instant() : finishedAt;
      return new RuntimeContainer(
          name,
          image,
          imageID,
          id,
          RuntimeContainer.State.EXITED,
          startedAt,
          finished,
          exit,
          exit == 0 ? "Completed" : "Error",
          null);
    }
  }

  private final class Sandbox {
    final String id;
    final String podKey;
    final String podIP;
    final Instant createdAt;
    final Path dir;
    final List<Run> runs;

    Sandbox(String id, String podKey, String podIP, Instant createdAt, Path dir, List<Run> runs) {
      this.id = id;
      this.podKey = podKey;
      this.podIP = podIP;
      this.createdAt = createdAt;
      this.dir = dir;
      this.runs = runs;
    }

    PodSandbox snapshot() {
      return new PodSandbox(
          id, podKey, podIP, createdAt, runs.stream().map(r -> r.snapshot(clock)).toList());
    }

    List<Process> processes() {
      return runs.stream().map(r -> r.process).filter(p -> p != null).toList();
    }
  }
}
