package io.streamplane.node.runtime.process;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.EnvFromSource;
import io.streamplane.api.EnvVar;
import io.streamplane.api.EnvVarSource;
import io.streamplane.api.Pod;
import io.streamplane.api.Secret;
import io.streamplane.node.logs.ContainerLogWriter;
import io.streamplane.node.logs.DirectoryLogLocator;
import io.streamplane.node.logs.LogLocator;
import io.streamplane.node.runtime.ContainerCommand;
import io.streamplane.node.runtime.ContainerStreamException;
import io.streamplane.node.runtime.PodInputs;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import io.streamplane.schema.objects.Quantities;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
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
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime whose containers are host OS processes: the {@code process} runtime of the node worker.
 *
 * <p>Contract: {@code start} makes a sandbox directory {@code <root>/<namespace>_<name>_<uid>/} and
 * its volumes and completes; then, in the background, the init containers run one after the other
 * to completion and every container starts (until then they read CREATED, {@code PodInitializing}).
 * An init container that cannot start or exits non-zero stops the sequence; {@code
 * restartContainer} of it runs it again and resumes the sequence. A container's command line is its
 * {@code command} plus {@code args}, or, with no {@code command}, the {@link ImageCatalog} entry of
 * its image (Kubernetes' entrypoint/cmd rules). Its environment is only {@code PATH} (this JVM's),
 * {@code HOSTNAME} (the pod name), {@code POD_IP} and the container's {@code env} values — literal,
 * or {@code valueFrom.fieldRef} of the pod's name, namespace, uid, node name, service account, pod
 * IP, host IP, labels and annotations — in which {@code $(VAR)} names an earlier variable as in
 * Kubernetes ({@code $$} escapes, unknown names stay as written; {@code command} and {@code args}
 * expand the same way). It runs in {@code workingDir} (created if missing) or the sandbox
 * directory, stdout and stderr written line by line, in the CRI log format kubelet uses ({@link
 * ContainerLogWriter}), to {@code <sandbox>/<container>/<run>.log}, where {@code run} counts the
 * container's runs in that directory (0, 1, ... — so the previous run's log is the next lower
 * number, also across a node restart). A container whose image the catalog cannot resolve and that
 * has no command stays CREATED (Waiting) with reason {@code ErrImagePull}; one whose process cannot
 * be started stays CREATED with {@code RunContainerError}. Container ids are {@code
 * process://<pid>}. A container running a serving image's own entrypoint ({@code nginx}) has
 * started once its server accepts connections on the pod IP and port (at most 15 s), as the real
 * image would be almost at once.
 *
 * <p>{@code status} reads each process: RUNNING, or EXITED with its exit code and reason {@code
 * Completed} (0) or {@code Error}. {@code restartContainer} runs an EXITED container again; {@code
 * stopContainer} and {@code stop} send SIGTERM to the process and its descendants, wait up to the
 * grace period, then SIGKILL what is left; {@code stop} then forgets the sandbox (its directory and
 * logs stay). Each running process has a pid file ({@code <sandbox>/<container>/<run>.pid}: pid and
 * start time), and a new runtime on the same root kills every process those files still name — what
 * a node that died left behind — before it starts anything, so after a node restart exactly the
 * pods the node starts again are running. {@code close} kills every process this runtime started.
 *
 * <p>Volumes are directories on the host, bind-mounted into a container's private mount namespace
 * at their mount paths ({@link Volumes}); the environment also holds {@code envFrom} sources,
 * configMap and secret key refs, and the API server's service variables ({@link PodInputs}).
 *
 * <p>A container's {@code resources.limits} of memory and cpu become a control group ({@link
 * Cgroups}) where the OS allows; a run the kernel killed for its memory ends {@code OOMKilled}.
 *
 * <p>Each container runs in a Linux sandbox ({@link LinuxSandbox}): its own root (the host's {@code
 * /usr} and {@code /etc} under a writable layer in {@code <sandbox>/<container>/rootfs}, removed
 * when the pod stops), PID, mount, UTS and IPC namespaces, and the user, groups and capabilities of
 * its security context ({@link ContainerSecurity}; {@code runAsNonRoot} with the root image keeps
 * it waiting in {@code CreateContainerConfigError}). Its id names its PID 1 on the host. Exec,
 * probes and cp enter that sandbox. Where the node cannot make one (not root, no util-linux)
 * containers wait in {@code CreateContainerError} with the reason; {@code
 * STREAMPLANE_POD_SANDBOX=off} runs them as plain host processes instead, with a warning.
 *
 * <p>Limits: the network is the host's (the pod IP is only what servers bind to). Processes are
 * killed, never adopted, after a node restart. Unsandboxed, {@code stop} and {@code close} reach
 * the descendants a container's process has at that moment; sandboxed, the PID namespace dies with
 * its PID 1.
 */
public final class ProcessRuntime implements PodRuntime {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessRuntime.class);

  public static final String VERSION = "process://0.1";

  private static final Pattern REFERENCE =
      Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.\\-]*)\\)");

  private static final String PID_SUFFIX = ".pid";

  private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(15);

  /** How long an exec waits for a container's sandbox to be set up. */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);

  private final Path root;
  private final ImageCatalog catalog;
  private final Clock clock;
  private final ExecutorService executor;
  private final Map<String, Sandbox> sandboxes = new ConcurrentHashMap<>();
  private final Optional<Cgroups> cgroups;

  /** The Linux sandbox containers run in; empty when the sandbox is switched off. */
  private final Optional<LinuxSandbox> linux;

  /**
   * The environment variable that switches the sandbox off ({@code off}): containers then run as
   * plain host processes, which the node warns about.
   */
  public static final String SANDBOX_VARIABLE = "STREAMPLANE_POD_SANDBOX";

  /** A runtime whose containers run sandboxed unless {@link #SANDBOX_VARIABLE} is {@code off}. */
  public ProcessRuntime(Path root, ImageCatalog catalog, Clock clock) {
    this(root, catalog, clock, !"off".equalsIgnoreCase(System.getenv(SANDBOX_VARIABLE)));
  }

  /**
   * A runtime whose containers run in a Linux sandbox when {@code sandboxed}; where the node cannot
   * make one, their containers do not start ({@code CreateContainerError}, with the reason).
   */
  public ProcessRuntime(Path root, ImageCatalog catalog, Clock clock, boolean sandboxed) {
    this.root = root;
    this.cgroups = Cgroups.detect(Path.of("/sys/fs/cgroup"));
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
    killLeftovers(root);
    if (sandboxed) {
      this.linux = Optional.of(LinuxSandbox.detect(root));
    } else {
      this.linux = Optional.empty();
      LOG.warn(
          "{}=off: pods run UNSANDBOXED, as host processes that can read the node's keys, write"
              + " the host's files and signal its processes",
          SANDBOX_VARIABLE);
    }
  }

  public ProcessRuntime(Path root) {
    this(root, ImageCatalog.defaults(), Clock.systemUTC());
  }

  /** Why containers cannot be sandboxed on this node, when the sandbox is on and they cannot. */
  public Optional<String> sandboxUnavailable() {
    return linux.flatMap(LinuxSandbox::unavailable);
  }

  @Override
  public String version() {
    return VERSION;
  }

  /** {@code <root>/kubelet/<node>}: each node of the runtime has its own. */
  @Override
  public Optional<Path> nodeRoot(String nodeName) {
    return Optional.of(root.resolve("kubelet").resolve(nodeName));
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
  public CompletableFuture<PodSandbox> start(Pod pod, String podIP, PodInputs inputs) {
    return CompletableFuture.supplyAsync(() -> run(pod, podIP, inputs), executor);
  }

  @Override
  public PodSandbox status(PodSandbox sandbox) {
    Sandbox running = sandboxes.get(sandbox.id());
    return running == null ? sandbox : running.snapshot();
  }

  @Override
  public CompletableFuture<Void> restartContainer(PodSandbox sandbox, String container) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("unknown sandbox " + sandbox.id()));
    }
    return CompletableFuture.runAsync(() -> running.restart(container), executor);
  }

  @Override
  public CompletableFuture<Void> stopContainer(
      PodSandbox sandbox, String container, Duration grace) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return CompletableFuture.completedFuture(null);
    }
    Slot slot = running.slot(container);
    return CompletableFuture.runAsync(() -> stopProcesses(slot.processes(), grace), executor);
  }

  @Override
  public CompletableFuture<Integer> exec(
      PodSandbox sandbox, String container, List<String> command, Duration timeout) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("unknown sandbox " + sandbox.id()));
    }
    Slot slot = running.slot(container);
    return CompletableFuture.supplyAsync(
        () -> {
          List<String> line = slot.inContainer(command, false);
          ProcessBuilder builder = new ProcessBuilder(line);
          environment(builder, slot.environment);
          builder.directory(slot.hostDir().toFile());
          builder.redirectErrorStream(true);
          builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
          builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
          Process process;
          try {
            process = builder.start();
          } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + line + ": " + e.getMessage(), e);
          }
          try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
              stopProcesses(List.of(process), Duration.ZERO);
              throw new IllegalStateException(
                  "command " + line + " timed out after " + timeout.toSeconds() + "s");
            }
            return process.exitValue();
          } catch (InterruptedException e) {
            stopProcesses(List.of(process), Duration.ZERO);
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
          }
        },
        executor);
  }

  /**
   * Runs the command as the container runs: in its sandbox (its namespaces, root, user and working
   * directory, {@link LinuxSandbox#enter}) with its environment; unsandboxed, in its working
   * directory with its volumes mounted as {@link Volumes#mounting} mounts them. With a terminal,
   * the command runs under util-linux {@code script}, which gives it a pseudo-terminal and ends
   * with its exit code ({@link TerminalCommand}).
   */
  @Override
  public ContainerCommand execStream(
      String namespace, String name, String container, List<String> command, boolean tty) {
    Sandbox sandbox = sandbox(namespace, name);
    Slot slot = sandbox.find(container);
    Process main = slot == null ? null : slot.current.process;
    if (main == null || !main.isAlive()) {
      throw ContainerStreamException.containerNotFound(container);
    }
    List<String> line;
    try {
      line = slot.inContainer(command, tty);
    } catch (IllegalStateException e) {
      throw new ContainerStreamException(500, "InternalError", e.getMessage());
    }
    ProcessBuilder builder = new ProcessBuilder(line).directory(slot.hostDir().toFile());
    environment(builder, slot.environment);
    if (tty) {
      builder.environment().putIfAbsent("TERM", "xterm");
      builder.redirectErrorStream(true);
    }
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new ContainerStreamException(
          500, "InternalError", "cannot run " + line + ": " + e.getMessage());
    }
    return tty ? new TerminalCommand(process) : new PipedCommand(process);
  }

  /**
   * Attaches to the container's own output from now on and, when its spec keeps stdin open ({@code
   * stdin: true}) and the client asks for it, its stdin ({@link AttachedContainer}).
   */
  @Override
  public ContainerCommand attach(
      String namespace, String name, String container, boolean stdin, boolean tty) {
    Sandbox sandbox = sandbox(namespace, name);
    Slot slot = sandbox.find(container);
    Run run = slot == null ? null : slot.current;
    Process main = run == null ? null : run.process;
    if (main == null || !main.isAlive() || run.log == null) {
      throw ContainerStreamException.containerNotFound(container);
    }
    try {
      return new AttachedContainer(main, run.log, stdin ? run.stdin : null, run.stdinOnce, run.tty);
    } catch (IOException e) {
      throw new ContainerStreamException(
          500, "InternalError", "cannot attach to " + container + ": " + e.getMessage());
    }
  }

  @Override
  public CompletableFuture<Void> startEphemeralContainer(PodSandbox sandbox, Container spec) {
    return CompletableFuture.runAsync(
        () -> {
          Sandbox running = sandboxes.get(sandbox.id());
          if (running != null) {
            running.startEphemeral(spec);
          }
        },
        executor);
  }

  @Override
  public Map<String, ContainerUsage> usage(Pod pod, PodSandbox sandbox) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return Map.of();
    }
    Map<String, ContainerUsage> usage = new LinkedHashMap<>();
    for (Slot slot : running.allSlots()) {
      Process process = slot.current.process;
      if (process != null && process.isAlive()) {
        usage.put(slot.name, ProcStats.ofTree(process.toHandle()));
      }
    }
    return usage;
  }

  @Override
  public String portForwardAddress(String namespace, String name) {
    return sandbox(namespace, name).podIP;
  }

  private Sandbox sandbox(String namespace, String name) {
    String key = namespace + "/" + name;
    return sandboxes.values().stream()
        .filter(s -> s.podKey.equals(key) && !s.stopped)
        .findFirst()
        .orElseThrow(ContainerStreamException::podNotFound);
  }

  @Override
  public CompletableFuture<Void> stop(PodSandbox sandbox, Duration grace) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return CompletableFuture.completedFuture(null);
    }
    return CompletableFuture.runAsync(
        () -> {
          running.stopped = true;
          stopProcesses(running.processes(), grace);
          if (linux.isPresent()) {
            running.allSlots().forEach(slot -> LinuxSandbox.remove(slot.dir));
          }
          sandboxes.remove(sandbox.id());
        },
        executor);
  }

  /** The current log file of {@code container} in {@code sandbox}, or empty when unknown. */
  public Optional<Path> logFile(PodSandbox sandbox, String container) {
    Sandbox running = sandboxes.get(sandbox.id());
    if (running == null) {
      return Optional.empty();
    }
    Run run = running.slot(container).current;
    return Optional.of(running.dir.resolve(container).resolve(run.attempt + ".log"));
  }

  /** The logs of this runtime's containers, for the node's log server. */
  @Override
  public Optional<LogLocator> logs() {
    return Optional.of(new DirectoryLogLocator(root, this::uid, this::running));
  }

  /** The uid of the pod {@code namespace/name} this runtime runs now, if it runs it. */
  private Optional<String> uid(String namespace, String name) {
    String key = namespace + "/" + name;
    return sandboxes.values().stream()
        .filter(s -> s.podKey.equals(key))
        .map(s -> s.dir.getFileName().toString())
        .map(dir -> dir.substring(dir.lastIndexOf('_') + 1))
        .findFirst();
  }

  /** True when the current run of the container is alive. */
  private boolean running(String namespace, String name, String container) {
    String key = namespace + "/" + name;
    return sandboxes.values().stream()
        .filter(s -> s.podKey.equals(key))
        .flatMap(s -> Stream.concat(s.inits.stream(), s.slots.stream()))
        .filter(slot -> slot.name.equals(container))
        .anyMatch(slot -> !slot.processes().isEmpty() && slot.processes().get(0).isAlive());
  }

  /** How many sandboxes this runtime is tracking now. */
  public int running() {
    return sandboxes.size();
  }

  @Override
  public void close() {
    for (Sandbox sandbox : sandboxes.values()) {
      stopProcesses(sandbox.processes(), Duration.ZERO);
      if (linux.isPresent()) {
        sandbox.allSlots().forEach(slot -> LinuxSandbox.remove(slot.dir));
      }
    }
    sandboxes.clear();
    executor.shutdownNow();
  }

  private PodSandbox run(Pod pod, String podIP, PodInputs inputs) {
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
    Map<String, Path> volumes = Volumes.prepare(pod, inputs, dir.resolve("volumes"));
    writePodFiles(inputs, dir);
    Long fsGroup =
        pod.getSpec() == null || pod.getSpec().getSecurityContext() == null
            ? null
            : pod.getSpec().getSecurityContext().getFsGroup();
    if (fsGroup != null && linux.isPresent()) {
      Volumes.own(pod, volumes, fsGroup);
    }
    Sandbox sandbox =
        new Sandbox(
            UUID.randomUUID().toString(),
            (namespace == null ? "default" : namespace) + "/" + name,
            podIP,
            createdAt,
            dir,
            pod,
            inputs,
            volumes);
    sandboxes.put(sandbox.id, sandbox);
    if (sandbox.initSpecs.isEmpty()) {
      sandbox.initialize(); // nothing to wait for: the containers are started when start completes
    } else {
      executor.execute(sandbox::initialize);
    }
    return sandbox.snapshot();
  }

  /** Where the node keeps a pod's files ({@code /etc/hosts}, ...) in its sandbox directory. */
  static Map<String, Path> podFiles(PodInputs inputs, Path sandboxDir) {
    Map<String, Path> files = new java.util.TreeMap<>();
    for (String path : inputs.podFiles().keySet()) {
      files.put(path, sandboxDir.resolve("files").resolve(path.substring(1).replace('/', '_')));
    }
    return files;
  }

  private static void writePodFiles(PodInputs inputs, Path sandboxDir) {
    podFiles(inputs, sandboxDir)
        .forEach(
            (path, file) -> {
              try {
                Files.createDirectories(file.getParent());
                Files.writeString(file, inputs.podFiles().get(path));
              } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
              }
            });
  }

  /**
   * The environment Kubernetes gives a container, in order — the service variables, {@code envFrom}
   * sources, then {@code env} — later names replacing earlier ones, {@code $(VAR)} expanded in
   * {@code env} values.
   */
  static Map<String, String> env(Container container, Pod pod, String podIP, PodInputs inputs) {
    Map<String, String> env = new LinkedHashMap<>(inputs.serviceEnv());
    for (EnvFromSource from : list(container.getEnvFrom())) {
      String prefix = from.getPrefix() == null ? "" : from.getPrefix();
      if (from.getConfigMapRef() != null) {
        ConfigMap cm = inputs.configMaps().get(from.getConfigMapRef().getName());
        if (cm != null && cm.getData() != null) {
          new TreeMap<>(cm.getData()).forEach((k, v) -> env.put(prefix + k, v));
        }
      }
      if (from.getSecretRef() != null) {
        Secret secret = inputs.secrets().get(from.getSecretRef().getName());
        if (secret != null && secret.getData() != null) {
          new TreeMap<>(secret.getData()).forEach((k, v) -> env.put(prefix + k, Volumes.text(v)));
        }
      }
    }
    for (EnvVar var : list(container.getEnv())) {
      EnvVarSource from = var.getValueFrom();
      if (var.getValue() != null || from == null) {
        env.put(var.getName(), var.getValue() == null ? "" : expand(var.getValue(), env));
      } else if (from.getFieldRef() != null) {
        String value = FieldRefs.value(pod, podIP, from.getFieldRef().getFieldPath());
        if (value != null) {
          env.put(var.getName(), value);
        }
      } else if (from.getConfigMapKeyRef() != null) {
        ConfigMap cm = inputs.configMaps().get(from.getConfigMapKeyRef().getName());
        String value =
            cm == null || cm.getData() == null
                ? null
                : cm.getData().get(from.getConfigMapKeyRef().getKey());
        if (value != null) {
          env.put(var.getName(), value);
        }
      } else if (from.getSecretKeyRef() != null) {
        Secret secret = inputs.secrets().get(from.getSecretKeyRef().getName());
        ByteBuffer value =
            secret == null || secret.getData() == null
                ? null
                : secret.getData().get(from.getSecretKeyRef().getKey());
        if (value != null) {
          env.put(var.getName(), Volumes.text(value));
        }
      }
    }
    return env;
  }

  private static void environment(ProcessBuilder builder, Map<String, String> values) {
    Map<String, String> environment = builder.environment();
    String path = environment.get("PATH");
    environment.clear();
    environment.put("PATH", path == null ? "/usr/local/bin:/usr/bin:/bin" : path);
    environment.putAll(values);
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

  /** Stops {@code processes} as this runtime runs them (sandboxed or not). */
  private void stopProcesses(List<Process> processes, Duration grace) {
    if (linux.isPresent()) {
      terminateSandboxed(processes, grace);
    } else {
      terminate(processes, grace);
    }
  }

  static void terminate(List<Process> processes, Duration grace) {
    List<ProcessHandle> handles = new ArrayList<>();
    for (Process process : processes) {
      handles.addAll(process.descendants().toList());
      handles.add(process.toHandle());
    }
    terminateHandles(handles, grace);
    awaitExit(processes, Duration.ofSeconds(5));
  }

  /**
   * Stops sandboxed containers: the signals go to what runs in the sandbox (its PID 1 and below),
   * never first to the {@code unshare} that made it. {@code unshare} waits for its PID 1 and reaps
   * it; killed before it, it would leave the PID 1 to the host's init, a zombie until that reaps
   * it, and a container whose process still shows as alive. So {@code unshare} exits by itself once
   * its sandbox is gone, and is killed only if it has not within a few seconds.
   */
  static void terminateSandboxed(List<Process> processes, Duration grace) {
    List<ProcessHandle> inside = new ArrayList<>();
    for (Process process : processes) {
      inside.addAll(process.descendants().toList());
    }
    terminateHandles(inside, grace);
    awaitExit(processes, Duration.ofSeconds(3));
    terminateHandles(processes.stream().map(Process::toHandle).toList(), Duration.ZERO);
    awaitExit(processes, Duration.ofSeconds(5));
  }

  private static void awaitExit(List<Process> processes, Duration timeout) {
    for (Process process : processes) {
      try {
        process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void terminateHandles(List<ProcessHandle> handles, Duration grace) {
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
  }

  /**
   * Kills every process a pid file under {@code root} still names (same pid, same start time): the
   * containers of a runtime that died without stopping them.
   */
  static int killLeftovers(Path root) {
    if (!Files.isDirectory(root)) {
      return 0;
    }
    List<ProcessHandle> leftovers = new ArrayList<>();
    try (Stream<Path> files =
        Files.find(root, 3, (f, a) -> f.getFileName().toString().endsWith(PID_SUFFIX))) {
      for (Path file : files.toList()) {
        leftover(file)
            .ifPresent(
                h -> {
                  leftovers.addAll(h.descendants().toList());
                  leftovers.add(h);
                });
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot scan " + root + " for leftover processes", e);
    }
    if (!leftovers.isEmpty()) {
      LOG.info("killing {} processes left behind in {}", leftovers.size(), root);
      terminateHandles(leftovers, Duration.ZERO);
    }
    return leftovers.size();
  }

  private static Optional<ProcessHandle> leftover(Path pidFile) {
    try {
      String[] fields = Files.readString(pidFile).trim().split(" ");
      long pid = Long.parseLong(fields[0]);
      long started = Long.parseLong(fields[1]);
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(h -> h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == started);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The host pid of a sandbox's PID 1: the child {@code unshare --fork} makes at once. 0 when it
   * does not appear (the start failed).
   */
  private static long initPid(Process unshare) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      Optional<ProcessHandle> child = unshare.children().findFirst();
      if (child.isPresent()) {
        return child.get().pid();
      }
      if (!unshare.isAlive()) {
        return 0;
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      }
    }
    return 0;
  }

  /** The pod's hostname, as kubelet sets it: {@code spec.hostname}, else the name, at most 63. */
  static String hostname(Pod pod) {
    String name =
        pod.getSpec() != null
                && pod.getSpec().getHostname() != null
                && !pod.getSpec().getHostname().isEmpty()
            ? pod.getSpec().getHostname()
            : pod.getMetadata().getName();
    return name.length() > 63 ? name.substring(0, 63) : name;
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

  /**
   * One container of a sandbox: what it runs (command line, environment, directory), its current
   * run, the run before, and how often it was restarted.
   */
  private final class Slot {
    final String name;
    final String image;
    final String imageID;
    final Path dir;
    final Map<String, String> env;
    final Container spec;
    final Map<String, Path> volumes;
    final Map<String, String> environment = new LinkedHashMap<>();
    final Optional<List<String>> command;
    final int listenPort;
    final String podIP;
    final String group;
    final long memoryLimit;
    final long cpuLimit;
    final ContainerSecurity security;
    final String hostname;
    final List<Path> imageFiles;
    final Map<String, Path> podFiles;

    /** The working directory: on the host unsandboxed, in the container's root sandboxed. */
    Path workingDir;

    volatile Run current;
    volatile Run previous;
    volatile int restarts;

    Slot(
        Container container,
        Pod pod,
        String podIP,
        PodInputs inputs,
        Map<String, Path> volumes,
        Path sandboxDir) {
      this.name = container.getName();
      this.image = container.getImage() == null ? "" : container.getImage();
      this.imageID = imageID(image);
      this.dir = sandboxDir.resolve(name);
      this.env = env(container, pod, podIP, inputs);
      this.spec = container;
      this.volumes = volumes;
      environment.put("HOSTNAME", pod.getMetadata().getName());
      environment.put("POD_IP", podIP);
      environment.putAll(env);
      this.security = ContainerSecurity.of(pod, container);
      this.hostname = hostname(pod);
      this.imageFiles = catalog.files(container, podIP);
      this.podFiles = podFiles(inputs, sandboxDir);
      this.command =
          catalog
              .command(container, podIP)
              .map(line -> line.stream().map(arg -> expand(arg, env)).toList())
              .map(line -> linux.isPresent() ? line : Volumes.mounting(container, volumes, line));
      this.listenPort = catalog.listenPort(container);
      this.podIP = podIP;
      this.group = sandboxDir.getFileName() + "_" + name;
      Map<String, String> limits =
          container.getResources() == null || container.getResources().getLimits() == null
              ? Map.of()
              : container.getResources().getLimits();
      this.memoryLimit = limits.containsKey("memory") ? Quantities.value(limits.get("memory")) : 0;
      this.cpuLimit = limits.containsKey("cpu") ? Quantities.milliValue(limits.get("cpu")) : 0;
      this.workingDir = linux.isPresent() ? Path.of("/") : sandboxDir;
      String configured = container.getWorkingDir();
      try {
        Files.createDirectories(dir);
        if (configured != null && !configured.isBlank()) {
          // sandboxed, the setup makes it in the container's root
          workingDir =
              linux.isPresent()
                  ? Path.of(configured)
                  : Files.createDirectories(Path.of(configured));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the directories of " + name, e);
      }
      this.current = launch(nextAttempt());
    }

    synchronized void restart() {
      Run ended = current;
      if (ended.process != null && ended.process.isAlive()) {
        throw new IllegalStateException("container " + name + " is still running");
      }
      previous = ended;
      restarts++;
      current = launch(ended.attempt + 1);
    }

    List<Process> processes() {
      Run run = current;
      return run.process == null ? List.of() : List.of(run.process);
    }

    /** Where a command of this container is started from on the host. */
    Path hostDir() {
      return linux.isPresent() ? dir : workingDir;
    }

    /**
     * The command line that runs {@code command} ({@code $(VAR)} expanded) in this container, on a
     * terminal of its own with {@code tty}: in its sandbox, once the sandbox is set up, where the
     * terminal is one of the container's {@code /dev/pts}, so {@code tty} names it; unsandboxed,
     * with its volumes mounted.
     */
    List<String> inContainer(List<String> command, boolean tty) {
      List<String> expanded = command.stream().map(arg -> expand(arg, env)).toList();
      if (linux.isEmpty()) {
        List<String> line = Volumes.mounting(spec, volumes, expanded);
        return tty ? TerminalCommand.wrap(line) : line;
      }
      if (tty) {
        expanded = TerminalCommand.wrap(expanded);
      }
      Run run = current;
      Process process = run.process;
      long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
      while (process != null
          && process.isAlive()
          && !LinuxSandbox.ready(dir)
          && System.nanoTime() < deadline) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      if (process == null || !process.isAlive() || run.initPid <= 0 || !LinuxSandbox.ready(dir)) {
        throw new IllegalStateException("container " + name + " is not running in its sandbox");
      }
      return LinuxSandbox.enter(run.initPid, security, workingDir.toString(), expanded);
    }

    RuntimeContainer snapshot() {
      Run last = previous;
      return current
          .snapshot(clock)
          .restarted(restarts, last == null ? null : last.snapshot(clock));
    }

    private int nextAttempt() {
      try (Stream<Path> logs = Files.list(dir)) {
        return logs.map(p -> p.getFileName().toString())
                .filter(f -> f.matches("\\d+\\.log"))
                .mapToInt(f -> Integer.parseInt(f.substring(0, f.length() - 4)))
                .max()
                .orElse(-1)
            + 1;
      } catch (IOException e) {
        return 0;
      }
    }

    /**
     * For a serving image, waits (at most {@link #LISTEN_TIMEOUT}) until its server accepts
     * connections, so the container counts as started when a real one would: the stand-ins are JVMs
     * that take a moment to bind, real nginx binds at once.
     */
    private void awaitListening(Process process) {
      if (listenPort == 0) {
        return;
      }
      long deadline = System.nanoTime() + LISTEN_TIMEOUT.toNanos();
      while (process.isAlive() && System.nanoTime() < deadline) {
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(podIP, listenPort), 200);
          return;
        } catch (IOException e) {
          try {
            Thread.sleep(50);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    }

    private Run launch(int attempt) {
      Run run = new Run(name, image, imageID, attempt);
      if (command.isEmpty()) {
        run.reason = "ErrImagePull";
        run.message =
            "image \""
                + image
                + "\" is not in the node's image catalog and the container has no command";
        return run;
      }
      if (security.refusal().isPresent()) {
        run.reason = "CreateContainerConfigError";
        run.message = security.refusal().get();
        return run;
      }
      Optional<String> unsandboxable = linux.flatMap(LinuxSandbox::unavailable);
      if (unsandboxable.isPresent()) {
        run.reason = "CreateContainerError";
        run.message =
            "the process runtime cannot sandbox containers on this node: "
                + unsandboxable.get()
                + " (run the node as root on Linux with util-linux, or set "
                + SANDBOX_VARIABLE
                + "=off to run pods unsandboxed)";
        return run;
      }
      String runGroup = group + "_" + attempt;
      boolean keepsStdin = Boolean.TRUE.equals(spec.getStdin());
      boolean tty = Boolean.TRUE.equals(spec.getTty());
      try {
        List<String> line = command.get();
        if (tty) {
          // A terminal of its own, as a container with tty: true has one (util-linux script).
          line = TerminalCommand.wrap(line);
        }
        if (linux.isPresent()) {
          List<Path> procs = List.of();
          if (cgroups.isPresent()) {
            try {
              procs = cgroups.get().prepare(runGroup, memoryLimit, cpuLimit);
            } catch (IOException | RuntimeException e) {
              LOG.warn("cannot limit container {} ({}): {}", name, runGroup, e.toString());
            }
          }
          line =
              linux
                  .get()
                  .container(
                      spec,
                      security,
                      hostname,
                      volumes,
                      podFiles,
                      imageFiles,
                      procs,
                      dir,
                      workingDir.toString(),
                      line);
        }
        ProcessBuilder builder = new ProcessBuilder(line);
        environment(builder, environment);
        builder.directory(hostDir().toFile());
        if (tty) {
          builder.environment().putIfAbsent("TERM", "xterm");
        }
        builder.redirectInput(
            keepsStdin
                ? ProcessBuilder.Redirect.PIPE
                : ProcessBuilder.Redirect.from(new File("/dev/null")));
        ContainerLogWriter log = ContainerLogWriter.open(dir.resolve(attempt + ".log"), clock);
        run.startedAt = clock.instant();
        Process process;
        try {
          process = builder.start();
        } catch (IOException | RuntimeException e) {
          log.close();
          throw e;
        }
        if (linux.isPresent()) {
          run.initPid = initPid(process);
        } else {
          cgroups.ifPresent(c -> c.limit(runGroup, process.pid(), memoryLimit, cpuLimit));
        }
        log.pump(process.getInputStream(), "stdout");
        log.pump(process.getErrorStream(), "stderr");
        run.log = log;
        run.stdin = keepsStdin ? process.getOutputStream() : null;
        run.stdinOnce = Boolean.TRUE.equals(spec.getStdinOnce());
        run.tty = tty;
        run.process = process;
        awaitListening(process);
        Path pidFile = dir.resolve(attempt + PID_SUFFIX);
        // The process the container's status names: a sandbox's PID 1, whose unshare exits with
        // it, so a node restarted after a crash kills what its pods ran and nothing of the host.
        long recorded = run.initPid > 0 ? run.initPid : process.pid();
        long started =
            ProcessHandle.of(recorded)
                .flatMap(h -> h.info().startInstant())
                .map(Instant::toEpochMilli)
                .orElse(-1L);
        Files.writeString(pidFile, recorded + " " + started);
        process
            .onExit()
            .thenRun(
                () -> {
                  cgroups.ifPresent(
                      c -> {
                        run.oomKilled = c.oomKilled(runGroup);
                        c.remove(runGroup);
                      });
                  run.finishedAt = clock.instant();
                  try {
                    Files.deleteIfExists(pidFile);
                    log.awaitDrained(Duration.ofSeconds(5));
                    log.close();
                  } catch (IOException e) {
                    LOG.debug("cannot finish the files of {}", pidFile, e);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
      } catch (IOException | RuntimeException e) {
        run.startedAt = null;
        run.reason = "RunContainerError";
        run.message = "cannot start " + command.get() + ": " + e.getMessage();
      }
      return run;
    }
  }

  /** One run of a container's process, or why it has none. */
  private static final class Run {
    final String name;
    final String image;
    final String imageID;
    final int attempt;
    volatile Process process;

    /** Sandboxed: the host pid of the container's PID 1, which exec enters; else 0. */
    volatile long initPid;

    /** Where the container's output goes, and attached clients read it. */
    volatile ContainerLogWriter log;

    /** The container's stdin when its spec keeps it open ({@code stdin: true}); else null. */
    volatile OutputStream stdin;

    volatile boolean stdinOnce;
    volatile boolean tty;

    volatile Instant startedAt;
    volatile Instant finishedAt;
    volatile boolean oomKilled;
    volatile String reason;
    volatile String message;

    Run(String name, String image, String imageID, int attempt) {
      this.name = name;
      this.image = image;
      this.imageID = imageID;
      this.attempt = attempt;
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
      String id = "process://" + (initPid > 0 ? initPid : p.pid());
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
          exit == 0 ? "Completed" : oomKilled ? "OOMKilled" : "Error",
          null);
    }
  }

  /**
   * A pod's sandbox: its init containers, run one after the other by {@link #initialize} on the
   * runtime's executor, then its containers. An init container that fails stops the sequence until
   * the node restarts it ({@link #restart}), which resumes it; a stopped sandbox launches nothing
   * more.
   */
  private final class Sandbox {
    final String id;
    final String podKey;
    final String podIP;
    final Instant createdAt;
    final Path dir;
    final Pod pod;
    final PodInputs inputs;
    final Map<String, Path> volumes;
    final List<Container> initSpecs;
    final List<Container> containerSpecs;
    final List<Slot> inits = new CopyOnWriteArrayList<>();
    volatile List<Slot> slots = List.of();
    final List<Slot> ephemerals = new CopyOnWriteArrayList<>();
    volatile boolean stopped;

    Sandbox(
        String id,
        String podKey,
        String podIP,
        Instant createdAt,
        Path dir,
        Pod pod,
        PodInputs inputs,
        Map<String, Path> volumes) {
      this.id = id;
      this.podKey = podKey;
      this.podIP = podIP;
      this.createdAt = createdAt;
      this.dir = dir;
      this.pod = pod;
      this.inputs = inputs;
      this.volumes = volumes;
      this.initSpecs = list(pod.getSpec() == null ? null : pod.getSpec().getInitContainers());
      this.containerSpecs = list(pod.getSpec() == null ? null : pod.getSpec().getContainers());
    }

    /**
     * Runs the init containers from the last one launched (waiting for it) to the end, then starts
     * the containers; returns at the first init container that cannot start or exits non-zero.
     */
    void initialize() {
      try {
        while (true) {
          int launched = inits.size();
          if (launched > 0) {
            Process process = inits.get(launched - 1).current.process;
            if (process == null || process.waitFor() != 0) {
              return; // failed: the node decides when to restart it
            }
          }
          synchronized (this) {
            if (stopped) {
              return;
            }
            if (launched == initSpecs.size()) {
              List<Slot> started = new ArrayList<>();
              for (Container container : containerSpecs) {
                started.add(new Slot(container, pod, podIP, inputs, volumes, dir));
              }
              slots = List.copyOf(started);
              return;
            }
            inits.add(new Slot(initSpecs.get(launched), pod, podIP, inputs, volumes, dir));
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        LOG.warn("pod {}: initialization failed: {}", podKey, e.toString());
      }
    }

    /** Restarts a container; an init container's restart resumes the initialization. */
    void restart(String container) {
      for (Slot init : inits) {
        if (init.name.equals(container)) {
          synchronized (this) {
            if (stopped) {
              return;
            }
            init.restart();
          }
          executor.execute(this::initialize);
          return;
        }
      }
      slot(container).restart();
    }

    Slot slot(String container) {
      Slot slot = find(container);
      if (slot == null) {
        throw new IllegalArgumentException("no container " + container + " in " + podKey);
      }
      return slot;
    }

    Slot find(String container) {
      for (Slot slot : slots) {
        if (slot.name.equals(container)) {
          return slot;
        }
      }
      for (Slot slot : inits) {
        if (slot.name.equals(container)) {
          return slot;
        }
      }
      for (Slot slot : ephemerals) {
        if (slot.name.equals(container)) {
          return slot;
        }
      }
      return null;
    }

    PodSandbox snapshot() {
      List<RuntimeContainer> initStates = new ArrayList<>();
      for (int i = 0; i < initSpecs.size(); i++) {
        initStates.add(i < inits.size() ? inits.get(i).snapshot() : initializing(initSpecs.get(i)));
      }
      List<Slot> started = slots;
      List<RuntimeContainer> states =
          started.isEmpty() && !containerSpecs.isEmpty()
              ? containerSpecs.stream().map(ProcessRuntime::initializing).toList()
              : started.stream().map(Slot::snapshot).toList();
      return new PodSandbox(
          id,
          podKey,
          podIP,
          createdAt,
          initStates,
          states,
          ephemerals.stream().map(Slot::snapshot).toList());
    }

    /** Starts an ephemeral container once: a second start of the same name does nothing. */
    void startEphemeral(Container spec) {
      synchronized (this) {
        if (stopped || find(spec.getName()) != null) {
          return;
        }
        ephemerals.add(new Slot(spec, pod, podIP, inputs, volumes, dir));
      }
    }

    List<Slot> allSlots() {
      List<Slot> all = new ArrayList<>(inits);
      all.addAll(slots);
      all.addAll(ephemerals);
      return all;
    }

    List<Process> processes() {
      List<Process> all = new ArrayList<>();
      allSlots().forEach(s -> all.addAll(s.processes()));
      return all;
    }
  }

  /** A container that waits for the init containers before it: CREATED, PodInitializing. */
  private static RuntimeContainer initializing(Container container) {
    String image = container.getImage() == null ? "" : container.getImage();
    return new RuntimeContainer(
        container.getName(),
        image,
        imageID(image),
        null,
        RuntimeContainer.State.CREATED,
        null,
        null,
        null,
        "PodInitializing",
        null);
  }
}
