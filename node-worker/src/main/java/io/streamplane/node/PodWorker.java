package io.streamplane.node;

import io.streamplane.api.Container;
import io.streamplane.api.EphemeralContainer;
import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.LifecycleHandler;
import io.streamplane.api.Pod;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Probe;
import io.streamplane.node.probe.Handlers;
import io.streamplane.node.probe.ProbeWorker;
import io.streamplane.node.runtime.PodInputs;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.objects.PodEvents;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sync loop of one pod on a {@link NodeAgent}: at most one step runs at a time; a binding
 * arriving during a step, or the periodic sync of a pod with a sandbox, marks the worker dirty and
 * the next step runs when the current one ends.
 *
 * <p>Contract: the latest binding ({@link #update}) is the desired state; a newer binding, or the
 * periodic sync of a pod with a sandbox ({@link KubeletConfig#syncPeriod()}), runs the next step. A
 * new pod: the ConfigMaps and Secrets it names are read, the runtime starts it (a failed start is
 * retried after the crash-loop back-off, or ends the pod Failed under restartPolicy Never). A
 * running pod: exited containers are restarted as restartPolicy and the back-off allow, probes run
 * when due, a container failing its liveness or startup probe is killed, a pod past its
 * activeDeadlineSeconds is stopped, and the status ({@link PodStatuses#observed}) is written when
 * it changed, with kubelet Events for what happened. A pod with a deletionTimestamp: preStop hooks,
 * stop within its grace period, then DELETE with grace period 0, which ends its graceful deletion;
 * a tombstone stops the pod with no API call; another uid under the same name stops the old one
 * first. Status writes carry the pod's resourceVersion and are retried on Conflict with a fresh
 * read. A worker with nothing left to do ({@link #finished()}) hands itself to its node's {@code
 * forget} callback. It never blocks the shared scheduler: HTTP calls and runtime calls are
 * asynchronous. Its state is guarded by its own monitor; the node's monitor, when held, is taken
 * first.
 *
 * <p>Limits: restart counts start again from 0 when the node restarts.
 */
final class PodWorker {

  /**
   * What a node shares with its pods' workers: its collaborators, its error counter, whether it is
   * closed, and the callback that forgets a worker once {@link #finished()}.
   */
  record Context(
      NodeOptions options,
      GatewayClient api,
      PodRuntime runtime,
      ScheduledExecutorService scheduler,
      Clock clock,
      PodAddresses addresses,
      KubeletConfig kubelet,
      Handlers handlers,
      PodInputsResolver inputs,
      CsiVolumes volumes,
      EventRecorder events,
      AtomicLong errors,
      BooleanSupplier closed,
      Consumer<PodWorker> forget) {}

  // The node's logger, so the node's log lines keep the name they always had.
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  /** Claims are checked for a grown volume every this many syncs of a running pod. */
  private static final int EXPAND_EVERY = 5;

  /** How long a postStart hook may run (Kubernetes bounds it only by the grace period). */
  private static final Duration HOOK_TIMEOUT = Duration.ofSeconds(30);

  private final NodeOptions options;
  private final GatewayClient api;
  private final PodRuntime runtime;
  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private final PodAddresses addresses;
  private final KubeletConfig kubelet;
  private final Handlers handlers;
  private final PodInputsResolver inputs;
  private final CsiVolumes volumes; // null: the node mounts no CSI volumes
  private final EventRecorder events;
  private final AtomicLong errors;
  private final BooleanSupplier closed;
  private final Consumer<PodWorker> forget;
  private final String podKey;
  private String owner; // the uid of the pod whose state this worker holds
  private Pod latest;
  private Pod current;
  private boolean dirty;
  private boolean busy;
  private boolean tickScheduled;
  private PodSandbox sandbox;
  private boolean deleted;
  private PodStatus written;
  private PodStatuses.Failure failure;
  private int startFailures;
  private Instant retryStartAt;
  private final Map<String, ContainerRun> runs = new HashMap<>();

  /** The CSI volumes set up for the pod (of uid {@link #owner}), to expand and tear down. */
  private List<CsiVolumes.Mounted> mountedVolumes = List.of();

  private int syncs;

  /** The ephemeral containers this worker has asked the runtime to start. */
  private final Set<String> startedEphemerals = new HashSet<>();

  // The pod whose start is being timed, since when, and whether its start was reported.
  private String startUid;
  private long startSeenAt;
  private boolean startReported;

  PodWorker(String podKey, Context node) {
    this.podKey = podKey;
    this.options = node.options();
    this.api = node.api();
    this.runtime = node.runtime();
    this.scheduler = node.scheduler();
    this.clock = node.clock();
    this.addresses = node.addresses();
    this.kubelet = node.kubelet();
    this.handlers = node.handlers();
    this.inputs = node.inputs();
    this.volumes = node.volumes();
    this.events = node.events();
    this.errors = node.errors();
    this.closed = node.closed();
    this.forget = node.forget();
  }

  String podKey() {
    return podKey;
  }

  /** The pod as this worker runs it, with its sandbox; empty while it has none. */
  record Running(Pod pod, PodSandbox sandbox) {}

  synchronized Optional<Running> running() {
    return sandbox == null || current == null
        ? Optional.empty()
        : Optional.of(new Running(current, sandbox));
  }

  synchronized void update(Pod pod) {
    if (pod != null && !Objects.equals(pod.getMetadata().getUid(), startUid)) {
      startUid = pod.getMetadata().getUid();
      startSeenAt = System.nanoTime();
      // A pod already running when first seen was started by an earlier run of this node.
      startReported = isRunning(pod);
    }
    latest = pod;
    current = pod == null ? current : fresher(current, pod);
    poke();
  }

  private synchronized void poke() {
    dirty = true;
    if (!busy) {
      busy = true;
      scheduler.execute(this::runNext);
    }
  }

  private synchronized void scheduleTick() {
    if (tickScheduled || closed.getAsBoolean()) {
      return;
    }
    tickScheduled = true;
    scheduler.schedule(
        () -> {
          synchronized (this) {
            tickScheduled = false;
          }
          poke();
        },
        kubelet.syncPeriod().toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void runNext() {
    Pod target;
    synchronized (this) {
      dirty = false;
      target = latest;
    }
    CompletableFuture<Void> step;
    try {
      step = step(target);
    } catch (RuntimeException e) {
      step = CompletableFuture.failedFuture(e);
    }
    step.whenComplete(
        (v, failure) -> {
          if (failure != null) {
            errors.incrementAndGet();
            LOG.warn("node {} pod {}: {}", options.name(), podKey, NodeAgent.rootMessage(failure));
            synchronized (this) {
              // The kubelet's pod worker tries a sync that failed again after its back-off; a pod
              // not started yet would otherwise wait for its next binding.
              if (sandbox == null
                  && retryStartAt == null
                  && this.failure == null
                  && !PodStatuses.isTerminal(current)) {
                retryStartAt = clock.instant().plus(kubelet.backOffBase());
              }
            }
          }
          boolean again;
          boolean ticking;
          synchronized (this) {
            again = dirty;
            busy = again;
            ticking =
                latest != null
                    && !deleted
                    && (retryStartAt != null
                        || (sandbox != null
                            && (!PodStatuses.isTerminal(current) || anyRunning(sandbox))));
          }
          if (again) {
            scheduler.execute(this::runNext);
          } else if (ticking) {
            scheduleTick();
          } else {
            forget.accept(this);
          }
        });
  }

  private CompletableFuture<Void> step(Pod pod) {
    if (pod == null) {
      return stopSandbox(Duration.ZERO);
    }
    String uid = pod.getMetadata().getUid();
    if (owner == null) {
      owner = uid;
    } else if (!owner.equals(uid)) {
      // Another pod under the same name (deleted and created again before this worker was
      // forgotten): what ran for the old one stops, and the new one starts from nothing.
      return stopSandbox(Duration.ZERO)
          .thenRun(
              () -> {
                synchronized (this) {
                  owner = uid;
                  current = pod;
                  deleted = false;
                  written = null;
                  failure = null;
                  startFailures = 0;
                  retryStartAt = null;
                  runs.clear();
                  dirty = true; // start the new pod in the next step
                }
              });
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      if (deleted) {
        return CompletableFuture.completedFuture(null);
      }
      Duration grace = grace(pod);
      long began = System.nanoTime();
      return preStop(grace)
          .thenCompose(v -> stopSandbox(remaining(grace, began)))
          .thenCompose(v -> deletePod(pod));
    }
    if (sandbox == null) {
      if (failure != null || PodStatuses.isTerminal(current)) {
        synchronized (this) {
          retryStartAt = null;
        }
        return CompletableFuture.completedFuture(null); // a finished pod never runs again
      }
      if (retryStartAt != null && clock.instant().isBefore(retryStartAt)) {
        return CompletableFuture.completedFuture(null);
      }
      return startSandbox();
    }
    return sync();
  }

  private boolean anyRunning(PodSandbox box) {
    return runtime.status(box).containers().stream()
        .anyMatch(c -> c.state() == RuntimeContainer.State.RUNNING);
  }

  private CompletableFuture<Void> startSandbox() {
    Pod pod;
    synchronized (this) {
      pod = current;
    }
    String previousIP = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
    String ip = addresses.allocate(previousIP);
    boolean adopted = PodStatuses.isRunningAt(pod, ip);
    boolean accepted = adopted || PodStatuses.isPendingOn(pod, options.hostIP());
    CompletableFuture<Pod> ready =
        accepted
            ? CompletableFuture.completedFuture(pod)
            : writeStatus(pod, p -> PodStatuses.pending(p, options.hostIP(), clock.instant()), 0);
    return ready.thenCompose(
        stored -> {
          if (stored == null) {
            addresses.release(ip);
            return CompletableFuture.<Void>completedFuture(null); // the pod is gone
          }
          remember(stored);
          return inputs
              .resolve(stored, ip)
              .thenCompose(resolved -> mountVolumes(stored, resolved))
              .thenCompose(resolved -> runtime.start(stored, ip, resolved))
              .handle(
                  (started, startFailure) -> {
                    synchronized (this) {
                      if (startFailure == null) {
                        sandbox = started;
                        retryStartAt = null;
                        return null;
                      }
                    }
                    addresses.release(ip);
                    return startFailed(stored, startFailure);
                  })
              .thenCompose(next -> next == null ? sync() : next);
        });
  }

  /**
   * The pod's claims and CSI volumes set up before its containers start (the kubelet's
   * WaitForAttachAndMount), their directories added to its inputs.
   */
  private CompletableFuture<PodInputs> mountVolumes(Pod pod, PodInputs resolved) {
    if (volumes == null || !CsiVolumes.needed(pod)) {
      return CompletableFuture.completedFuture(resolved); // a simulated runtime mounts nothing
    }
    String uid = pod.getMetadata().getUid();
    return volumes
        .setUp(pod)
        .thenApply(
            mounted -> {
              synchronized (this) {
                mountedVolumes = List.copyOf(mounted.values());
              }
              Map<String, String> paths = new HashMap<>();
              mounted.forEach((name, m) -> paths.put(name, volumes.path(uid, m).toString()));
              return resolved.withMountedVolumes(paths);
            });
  }

  /** The CSI volumes set up for the pod torn down (NodeUnpublishVolume, NodeUnstageVolume). */
  private CompletableFuture<Void> unmountVolumes() {
    List<CsiVolumes.Mounted> mounted;
    String uid;
    synchronized (this) {
      mounted = mountedVolumes;
      uid = owner;
      mountedVolumes = List.of();
    }
    if (mounted.isEmpty() || volumes == null) {
      return CompletableFuture.completedFuture(null);
    }
    return volumes.tearDown(uid, mounted);
  }

  /**
   * The kubelet's back-off of a failed volume operation: 500 ms doubling up to 2 min 2 s
   * (exponentialbackoff's initialDurationBeforeRetry and maxDurationBeforeRetry).
   */
  static Duration volumeBackOff(int failures) {
    long millis = 500L << Math.min(Math.max(failures - 1, 0), 20);
    return Duration.ofMillis(Math.min(millis, 122_000));
  }

  /**
   * A start that failed: retried after the back-off — showing CreateContainerConfigError while a
   * ConfigMap or Secret it needs is missing; after the base back-off, not doubled and whatever the
   * restartPolicy, when the API could not be read — or, for any other failure under restartPolicy
   * Never, the pod Failed.
   */
  private CompletableFuture<Void> startFailed(Pod pod, Throwable error) {
    String message = NodeAgent.rootMessage(error);
    LOG.info("node {} pod {}: start failed: {}", options.name(), podKey, message);
    Throwable cause = error;
    while (cause.getCause() != null
        && !(cause instanceof PodInputsResolver.MissingInput)
        && !(cause instanceof PodInputsResolver.Unavailable)
        && !(cause instanceof CsiVolumes.FailedMount)) {
      cause = cause.getCause();
    }
    if (cause instanceof PodInputsResolver.Unavailable) {
      // the kubelet's pod worker tries a failed sync again after a constant back-off
      synchronized (this) {
        retryStartAt = clock.instant().plus(kubelet.backOffBase());
      }
      return CompletableFuture.completedFuture(null);
    }
    if (cause instanceof CsiVolumes.FailedMount mount) {
      // the kubelet keeps the pod ContainerCreating and retries the mount with its back-off
      synchronized (this) {
        startFailures++;
        retryStartAt = clock.instant().plus(volumeBackOff(startFailures));
      }
      event(
          pod,
          "Warning",
          "FailedMount",
          mount.getMessage(),
          Integer.toHexString(mount.getMessage().hashCode()));
      return writeStatus(pod, p -> PodStatuses.pending(p, options.hostIP(), clock.instant()), 0)
          .thenAccept(this::remember);
    }
    if (cause instanceof PodInputsResolver.MissingInput missing) {
      synchronized (this) {
        startFailures++;
        retryStartAt = clock.instant().plus(kubelet.backOff(startFailures));
      }
      return writeStatus(
              pod,
              p ->
                  PodStatuses.pending(
                      p,
                      options.hostIP(),
                      clock.instant(),
                      "CreateContainerConfigError",
                      missing.getMessage()),
              0)
          .thenAccept(this::remember);
    }
    if ("Never".equals(restartPolicy(pod))) {
      synchronized (this) {
        failure = new PodStatuses.Failure("StartError", message);
      }
      return writeStatus(
              pod, p -> PodStatuses.failedToStart(p, message, options.hostIP(), clock.instant()), 0)
          .thenAccept(this::remember);
    }
    synchronized (this) {
      startFailures++;
      retryStartAt = clock.instant().plus(kubelet.backOff(startFailures));
    }
    return CompletableFuture.completedFuture(null);
  }

  /**
   * One periodic sync of a running sandbox: restarts what restartPolicy and the back-off allow,
   * kills what failed its liveness or startup probe or outlived activeDeadlineSeconds, runs the
   * probes that are due, and writes the status when it changed.
   */
  private CompletableFuture<Void> sync() {
    PodSandbox box;
    Pod pod;
    synchronized (this) {
      box = sandbox;
      pod = current;
    }
    if (box == null || pod == null) {
      return CompletableFuture.completedFuture(null);
    }
    PodSandbox observed = runtime.status(box);
    Instant now = clock.instant();
    List<CompletableFuture<?>> actions = new ArrayList<>();
    synchronized (this) {
      if (volumes != null && !mountedVolumes.isEmpty() && ++syncs % EXPAND_EVERY == 0) {
        actions.add(
            volumes
                .expand(owner, mountedVolumes, pod.getMetadata().getNamespace())
                .thenAccept(
                    expanded ->
                        expanded.forEach(
                            e ->
                                event(
                                    pod,
                                    "Normal",
                                    "FileSystemResizeSuccessful",
                                    "MountVolume.NodeExpandVolume succeeded for volume \""
                                        + e.volume()
                                        + "\" "
                                        + options.name(),
                                    e.volume() + "/" + e.capacity())))
                .exceptionally(
                    f -> {
                      // the kubelet's expansion of a volume in use: VolumeResizeFailed
                      event(
                          pod,
                          "Warning",
                          "VolumeResizeFailed",
                          NodeAgent.rootMessage(f),
                          Integer.toHexString(NodeAgent.rootMessage(f).hashCode()));
                      return null;
                    }));
      }
    }
    Map<String, PodStatuses.ContainerView> views = new HashMap<>();
    synchronized (this) {
      if (failure == null && deadlineExceeded(pod, now)) {
        failure =
            new PodStatuses.Failure(
                "DeadlineExceeded",
                "Pod was active on the node longer than the specified deadline");
        for (RuntimeContainer c : observed.containers()) {
          actions.add(runtime.stopContainer(box, c.name(), grace(pod)));
        }
      }
      for (RuntimeContainer init : observed.initContainers()) {
        ContainerRun run = runs.get(init.name());
        if (init.containerID() != null
            && (run == null || !Objects.equals(run.containerID, init.containerID()))) {
          run = new ContainerRun(init.containerID(), null, now);
          runs.put(init.name(), run);
          if (init.restartCount() == 0) {
            event(pod, "Normal", "Pulled", pulled(init.image()), init.containerID());
          }
          event(pod, "Normal", "Created", "Created container: " + init.name(), init.containerID());
          event(pod, "Normal", "Started", "Started container " + init.name(), init.containerID());
        }
        boolean failedInit =
            init.state() == RuntimeContainer.State.EXITED
                && (init.exitCode() == null || init.exitCode() != 0);
        if (!failedInit || failure != null || run == null) {
          continue;
        }
        if ("Never".equals(restartPolicy(pod))) {
          failure = new PodStatuses.Failure(null, null); // Init:Error, the pod Failed
          continue;
        }
        Duration wait = kubelet.backOff(init.restartCount());
        Instant at = (init.finishedAt() == null ? now : init.finishedAt()).plus(wait);
        if (!now.isBefore(at)) {
          actions.add(runtime.restartContainer(box, init.name()));
        } else if (!run.backOffReported) {
          run.backOffReported = true;
          backOffEvent(pod, init.name(), init.containerID());
        }
        views.put(
            init.name(),
            new PodStatuses.ContainerView(
                false, false, wait.isZero() ? kubelet.backOffBase() : wait));
      }
      for (RuntimeContainer c : observed.containers()) {
        Container spec = containerSpec(pod, c.name());
        ContainerRun run = runs.get(c.name());
        if (run == null || !Objects.equals(run.containerID, c.containerID())) {
          run =
              new ContainerRun(c.containerID(), spec, c.startedAt() == null ? now : c.startedAt());
          runs.put(c.name(), run);
          if (c.containerID() != null && spec != null) { // a new run, maybe already ended
            if (c.restartCount() == 0) {
              event(pod, "Normal", "Pulled", pulled(c.image()), c.containerID());
            }
            event(pod, "Normal", "Created", "Created container: " + c.name(), c.containerID());
            event(pod, "Normal", "Started", "Started container " + c.name(), c.containerID());
            if (c.state() == RuntimeContainer.State.RUNNING) {
              actions.add(postStart(pod, box, spec, c.name()));
            }
          } else if (c.state() == RuntimeContainer.State.CREATED
              && c.reason() != null
              && !"PodInitializing".equals(c.reason())) {
            event(pod, "Warning", "Failed", "Error: " + c.reason(), c.name() + c.reason());
            if (c.message() != null) {
              event(pod, "Warning", "Failed", c.message(), c.name() + c.message());
            }
          }
        }
        Duration backOff = null;
        if (c.state() == RuntimeContainer.State.RUNNING && failure == null && spec != null) {
          actions.addAll(run.probe(box, spec, now));
          if (run.failedForGood() && !run.killing) {
            run.killing = true;
            LOG.info(
                "node {} pod {}: container {} failed its liveness probe, killing it",
                options.name(),
                podKey,
                c.name());
            event(
                pod,
                "Normal",
                "Killing",
                "Container "
                    + c.name()
                    + " failed "
                    + (run.started() ? "liveness" : "startup")
                    + " probe, will be restarted",
                c.containerID());
            actions.add(runtime.stopContainer(box, c.name(), grace(pod)));
          }
        } else if (c.state() == RuntimeContainer.State.EXITED
            && failure == null
            && restarts(restartPolicy(pod), c.exitCode())) {
          Duration wait = kubelet.backOff(c.restartCount());
          Instant at = (c.finishedAt() == null ? now : c.finishedAt()).plus(wait);
          if (!now.isBefore(at)) {
            actions.add(runtime.restartContainer(box, c.name()));
          } else if (!run.backOffReported) {
            run.backOffReported = true;
            backOffEvent(pod, c.name(), c.containerID());
          }
          backOff = wait.isZero() ? kubelet.backOffBase() : wait;
        }
        views.put(c.name(), run.view(backOff));
      }
      // Ephemeral containers (kubectl debug) start once each, in a pod whose containers run.
      if (failure == null && !observed.containers().isEmpty()) {
        for (EphemeralContainer ephemeral : ephemeralContainers(pod)) {
          String name = ephemeral.getName();
          boolean known =
              observed.ephemeralContainers().stream().anyMatch(e -> e.name().equals(name));
          if (!known && startedEphemerals.add(name)) {
            event(pod, "Normal", "Pulled", pulled(ephemeral.getImage()), "ephemeral-" + name);
            event(pod, "Normal", "Created", "Created container: " + name, "created-" + name);
            event(pod, "Normal", "Started", "Started container " + name, "started-" + name);
            actions.add(runtime.startEphemeralContainer(box, asContainer(ephemeral)));
          }
        }
      }
    }
    PodStatuses.Failure failed;
    PodStatus last;
    synchronized (this) {
      failed = failure;
      last = written;
    }
    Function<Pod, PodStatus> statusOf =
        p ->
            PodStatuses.observed(
                p,
                observed,
                name -> views.getOrDefault(name, PodStatuses.ContainerView.PLAIN),
                failed,
                options.hostIP(),
                now);
    PodStatus status = statusOf.apply(pod);
    CompletableFuture<Void> write =
        last != null && KubeObjects.same(status, last)
            ? CompletableFuture.completedFuture(null)
            : writeStatus(pod, statusOf, 0).thenAccept(this::remember);
    return CompletableFuture.allOf(actions.toArray(CompletableFuture[]::new))
        .handle((v, f) -> (Void) null)
        .thenCompose(v -> write);
  }

  private CompletableFuture<Void> postStart(Pod pod, PodSandbox box, Container spec, String name) {
    LifecycleHandler hook = spec.getLifecycle() == null ? null : spec.getLifecycle().getPostStart();
    if (hook == null) {
      return CompletableFuture.completedFuture(null);
    }
    return handlers
        .run(box, spec, hook.getExec(), hook.getHttpGet(), hook.getTcpSocket(), HOOK_TIMEOUT)
        .thenCompose(
            ok -> {
              if (ok) {
                return CompletableFuture.completedFuture(null);
              }
              LOG.info(
                  "node {} pod {}: postStart hook of {} failed, killing it",
                  options.name(),
                  podKey,
                  name);
              event(
                  pod,
                  "Warning",
                  "FailedPostStartHook",
                  "PostStartHook failed",
                  name + box.id() + "postStart");
              return runtime.stopContainer(box, name, Duration.ZERO);
            });
  }

  /** Runs every container's preStop hook, together, for at most {@code grace}. */
  private CompletableFuture<Void> preStop(Duration grace) {
    PodSandbox box;
    Pod pod;
    synchronized (this) {
      box = sandbox;
      pod = current;
    }
    if (box == null || pod == null || grace.isZero()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Boolean>> hooks = new ArrayList<>();
    for (RuntimeContainer c : runtime.status(box).containers()) {
      if (c.state() == RuntimeContainer.State.RUNNING) {
        event(pod, "Normal", "Killing", "Stopping container " + c.name(), c.containerID());
      }
      Container spec = containerSpec(pod, c.name());
      LifecycleHandler hook =
          spec == null || spec.getLifecycle() == null ? null : spec.getLifecycle().getPreStop();
      if (hook != null && c.state() == RuntimeContainer.State.RUNNING) {
        hooks.add(
            handlers.run(box, spec, hook.getExec(), hook.getHttpGet(), hook.getTcpSocket(), grace));
      }
    }
    return CompletableFuture.allOf(hooks.toArray(CompletableFuture[]::new))
        .completeOnTimeout(null, grace.toMillis(), TimeUnit.MILLISECONDS)
        .handle((v, f) -> null);
  }

  /**
   * Records a kubelet Event about the pod through the node's {@link EventRecorder}; {@code seed}
   * names the occurrence, so one that is seen on several syncs is recorded once.
   */
  private void event(Pod pod, String type, String reason, String message, String seed) {
    if (pod == null) {
      return;
    }
    String occurrence = pod.getMetadata().getUid() + "/" + reason + "/" + seed;
    Event event =
        PodEvents.about(
            pod,
            EventSource.newBuilder().setComponent("kubelet").setHost(options.name()).build(),
            type,
            reason,
            message,
            clock.instant(),
            occurrence);
    events.record(event, occurrence);
  }

  private synchronized void remember(Pod stored) {
    if (stored != null) {
      current = fresher(current, stored);
      written = stored.getStatus();
      if (!startReported
          && Objects.equals(stored.getMetadata().getUid(), startUid)
          && isRunning(stored)) {
        startReported = true;
        NodeMetrics.podStarted((System.nanoTime() - startSeenAt) / 1e9);
      }
    }
  }

  private static boolean isRunning(Pod pod) {
    return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }

  /** Whether the pod's sandbox is running (started and not stopped yet). */
  synchronized boolean hasSandbox() {
    return sandbox != null;
  }

  private CompletableFuture<Void> stopSandbox(Duration grace) {
    PodSandbox running;
    synchronized (this) {
      running = sandbox;
    }
    if (running == null) {
      return unmountVolumes();
    }
    return runtime
        .stop(running, grace)
        .thenRun(
            () -> {
              synchronized (this) {
                sandbox = null;
                runs.clear();
              }
              addresses.release(running.podIP());
            })
        .thenCompose(v -> unmountVolumes());
  }

  private CompletableFuture<Void> deletePod(Pod pod) {
    return api.delete(podPath(pod), "{\"gracePeriodSeconds\":0}")
        .thenAccept(
            reply -> {
              if (!reply.ok() && reply.status() != 404) {
                throw new IllegalStateException("delete pod: " + reply);
              }
              synchronized (this) {
                deleted = true;
              }
            });
  }

  /** One run of one container: its id and its probes, new for every run. */
  private final class ContainerRun {
    final String containerID;
    final ProbeWorker startup;
    final ProbeWorker liveness;
    final ProbeWorker readiness;
    boolean killing;
    boolean backOffReported;

    ContainerRun(String containerID, Container spec, Instant started) {
      this.containerID = containerID;
      this.startup =
          spec == null || spec.getStartupProbe() == null
              ? null
              : new ProbeWorker(spec.getStartupProbe(), false, started);
      this.liveness =
          spec == null || spec.getLivenessProbe() == null
              ? null
              : new ProbeWorker(spec.getLivenessProbe(), true, started);
      this.readiness =
          spec == null || spec.getReadinessProbe() == null
              ? null
              : new ProbeWorker(spec.getReadinessProbe(), false, started);
    }

    boolean started() {
      return startup == null || startup.result();
    }

    boolean failedForGood() {
      return (startup != null && !startup.result() && startup.failedForGood())
          || (started() && liveness != null && liveness.failedForGood());
    }

    PodStatuses.ContainerView view(Duration backOff) {
      return new PodStatuses.ContainerView(
          started(), started() && (readiness == null || readiness.result()), backOff);
    }

    /** Starts the probes that are due: the startup probe until it passes, then the others. */
    List<CompletableFuture<?>> probe(PodSandbox box, Container spec, Instant now) {
      List<CompletableFuture<?>> running = new ArrayList<>();
      if (!started()) {
        run(startup, box, spec, now, running);
        return running;
      }
      run(liveness, box, spec, now, running);
      run(readiness, box, spec, now, running);
      return running;
    }

    private void run(
        ProbeWorker worker,
        PodSandbox box,
        Container spec,
        Instant now,
        List<CompletableFuture<?>> running) {
      if (worker == null || !worker.due(now)) {
        return;
      }
      worker.started(now);
      Probe probe = worker.probe();
      running.add(
          handlers
              .run(
                  box,
                  spec,
                  probe.getExec(),
                  probe.getHttpGet(),
                  probe.getTcpSocket(),
                  worker.timeout())
              .thenAccept(
                  ok -> {
                    boolean firstFailure;
                    Pod about;
                    synchronized (PodWorker.this) {
                      worker.record(ok);
                      firstFailure = worker.consecutiveFailures() == 1;
                      about = current;
                    }
                    if (firstFailure) {
                      event(
                          about,
                          "Warning",
                          "Unhealthy",
                          kind(worker) + " probe failed",
                          spec.getName() + kind(worker) + now);
                    }
                  }));
    }

    private String kind(ProbeWorker worker) {
      return worker == liveness ? "Liveness" : worker == readiness ? "Readiness" : "Startup";
    }
  }

  synchronized boolean finished() {
    return !busy && latest == null && sandbox == null;
  }

  /**
   * Writes the status {@code status} computes from the pod, re-reading the pod and computing again
   * on Conflict. Completes with the stored pod, or null when the pod no longer exists.
   */
  private CompletableFuture<Pod> writeStatus(
      Pod pod, Function<Pod, PodStatus> status, int attempt) {
    Pod wanted = Pod.newBuilder(pod).setStatus(status.apply(pod)).build();
    NodeMetrics.statusWrite("pod");
    return api.put(podPath(pod) + "/status", wanted)
        .thenCompose(
            reply -> {
              if (reply.ok()) {
                return CompletableFuture.completedFuture(api.decode(reply, Pod.class));
              }
              if (reply.status() == 404) {
                return CompletableFuture.completedFuture(null);
              }
              if (reply.status() == 409 && attempt < NodeAgent.MAX_CONFLICT_RETRIES) {
                return api.get(podPath(pod))
                    .thenCompose(
                        fresh -> {
                          if (fresh.status() == 404) {
                            return CompletableFuture.completedFuture(null);
                          }
                          return writeStatus(
                              api.expect(fresh, Pod.class, "read pod"), status, attempt + 1);
                        });
              }
              throw new IllegalStateException("write pod status: " + reply);
            });
  }

  /** Whether a container that exited with {@code exitCode} runs again under {@code policy}. */
  static boolean restarts(String policy, Integer exitCode) {
    return switch (policy) {
      case "Never" -> false;
      case "OnFailure" -> exitCode == null || exitCode != 0;
      default -> true;
    };
  }

  private static String restartPolicy(Pod pod) {
    String policy = pod.getSpec() == null ? null : pod.getSpec().getRestartPolicy();
    return policy == null ? "Always" : policy;
  }

  private static List<EphemeralContainer> ephemeralContainers(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getEphemeralContainers() == null
        ? List.of()
        : pod.getSpec().getEphemeralContainers();
  }

  /**
   * An ephemeral container as a container to run: the same fields (an ephemeral container has a
   * container's, and its target, which the process runtime does not need: its containers share the
   * host's network and see each other's processes only through {@code nsenter}).
   */
  static Container asContainer(EphemeralContainer ephemeral) {
    Container container = new Container();
    for (Schema.Field field : Container.getClassSchema().getFields()) {
      Schema.Field same = EphemeralContainer.getClassSchema().getField(field.name());
      if (same != null) {
        container.put(field.pos(), ephemeral.get(same.pos()));
      }
    }
    return container;
  }

  private static Container containerSpec(Pod pod, String name) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return null;
    }
    for (Container container : pod.getSpec().getContainers()) {
      if (name.equals(container.getName())) {
        return container;
      }
    }
    return null;
  }

  private static boolean deadlineExceeded(Pod pod, Instant now) {
    Long deadline = pod.getSpec() == null ? null : pod.getSpec().getActiveDeadlineSeconds();
    Instant started = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
    return deadline != null && started != null && now.isAfter(started.plusSeconds(deadline));
  }

  /** The newer of two versions of one pod, by resourceVersion (either may be null). */
  private static Pod fresher(Pod a, Pod b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return version(b) >= version(a) ? b : a;
  }

  private static long version(Pod pod) {
    try {
      return Long.parseLong(pod.getMetadata().getResourceVersion());
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static Duration remaining(Duration grace, long beganNanos) {
    Duration left = grace.minusNanos(System.nanoTime() - beganNanos);
    return left.isNegative() ? Duration.ZERO : left;
  }

  /** The kubelet's BackOff Event for a container waiting to be restarted. */
  private void backOffEvent(Pod pod, String container, String containerID) {
    event(
        pod,
        "Warning",
        "BackOff",
        "Back-off restarting failed container " + container + " in pod " + PodStatuses.podRef(pod),
        containerID);
  }

  private static String pulled(String image) {
    return "Container image \"" + image + "\" already present on machine";
  }

  private static Duration grace(Pod pod) {
    Long seconds = pod.getMetadata().getDeletionGracePeriodSeconds();
    if (seconds == null && pod.getSpec() != null) {
      seconds = pod.getSpec().getTerminationGracePeriodSeconds();
    }
    return Duration.ofSeconds(seconds == null ? 30 : seconds);
  }

  private static String podPath(Pod pod) {
    return "/api/v1/namespaces/"
        + pod.getMetadata().getNamespace()
        + "/pods/"
        + pod.getMetadata().getName();
  }
}
