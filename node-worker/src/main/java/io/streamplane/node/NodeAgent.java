package io.streamplane.node;

import io.streamplane.api.Lease;
import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.api.PodStatus;
import io.streamplane.node.GatewayClient.Reply;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodSandbox;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node (the kubelet's job): registers its Node through the gateway, renews its Lease every 10 s
 * and refreshes its conditions' heartbeat every 40 s, and runs the pods bound to it through a
 * {@link PodRuntime}, writing their status back.
 *
 * <p>Contract: the bindings it is given ({@link #onBinding}, in topic order, from a {@link
 * BindingsConsumer}) are the desired state; each pod has one sync at a time, and a newer binding
 * arriving meanwhile is synced after it. A new pod is started and goes Pending then Running; a pod
 * with a deletionTimestamp is stopped (within its grace period) and then deleted with grace period
 * 0, which ends its graceful deletion; a tombstone stops the pod with no API call. Status writes
 * carry the pod's resourceVersion and are retried on Conflict with a fresh read. Every periodic
 * task runs on the shared scheduler and never blocks it: HTTP calls are asynchronous.
 *
 * <p>Limits: a pod whose start fails is left Pending (no retry yet); a node that restarts starts
 * its pods again in the runtime and keeps their IPs when they are free, which is all adoption means
 * for the simulated runtime. No node status other than the heartbeat is ever updated.
 */
public final class NodeAgent implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  public static final Duration LEASE_PERIOD = Duration.ofSeconds(10);

  /** Heartbeat of the Node's conditions, every this many lease renewals (40 s). */
  private static final int HEARTBEAT_EVERY = 4;

  private static final int MAX_CONFLICT_RETRIES = 5;

  private final NodeOptions options;
  private final GatewayClient api;
  private final PodRuntime runtime;
  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private final PodAddresses addresses;
  private final String bootID = UUID.randomUUID().toString();
  private final Map<String, PodWorker> pods = new ConcurrentHashMap<>();
  private final AtomicLong errors = new AtomicLong();

  private volatile boolean registered;
  private volatile boolean closed;
  private ScheduledFuture<?> ticks;
  private boolean tickInFlight;
  private long tickCount;
  private Node node;
  private String leaseVersion;

  public NodeAgent(
      NodeOptions options,
      GatewayClient api,
      PodRuntime runtime,
      ScheduledExecutorService scheduler,
      Clock clock) {
    this.options = options;
    this.api = api;
    this.runtime = runtime;
    this.scheduler = scheduler;
    this.clock = clock;
    this.addresses = new PodAddresses(options.podCIDR());
  }

  public String name() {
    return options.name();
  }

  public NodeOptions options() {
    return options;
  }

  /** True once the Node is registered with its status. */
  public boolean registered() {
    return registered;
  }

  /** Requests that failed with no answer or an unexpected status, since start. */
  public long errors() {
    return errors.get();
  }

  /** Pods this node is running (or starting, or stopping) now. */
  public int pods() {
    return pods.size();
  }

  /**
   * Registers the Node after {@code offset}, then renews the Lease every 10 s from there, so a
   * fleet spreads its renewals by giving each node its own offset.
   */
  public synchronized void start(Duration offset) {
    ticks =
        scheduler.scheduleAtFixedRate(
            this::tick, offset.toMillis(), LEASE_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One binding of this node: the pod under {@code podKey}, or null when it left the node. */
  public synchronized void onBinding(String podKey, Pod pod) {
    if (closed) {
      return;
    }
    pods.computeIfAbsent(podKey, PodWorker::new).update(pod);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (ticks != null) {
      ticks.cancel(false);
    }
  }

  // ------------------------------------------------------------------ registration, lease

  private void tick() {
    synchronized (this) {
      if (tickInFlight || closed) {
        return; // the previous round is still waiting for the gateway
      }
      tickInFlight = true;
    }
    CompletableFuture<Void> round;
    try {
      if (!registered) {
        round = register().thenCompose(n -> renewLease(0));
      } else {
        tickCount++;
        round = renewLease(0);
        if (tickCount % HEARTBEAT_EVERY == 0) {
          round = round.thenCompose(v -> heartbeat(0));
        }
      }
    } catch (RuntimeException e) {
      round = CompletableFuture.failedFuture(e);
    }
    round.whenComplete(
        (v, failure) -> {
          if (failure != null) {
            errors.incrementAndGet();
            LOG.warn("node {}: {}", options.name(), rootMessage(failure));
          }
          synchronized (this) {
            tickInFlight = false;
          }
        });
  }

  private CompletableFuture<Void> register() {
    Node wanted =
        NodeObjects.node(options, runtime.version(), runtime.osImage(), bootID, clock.instant());
    return api.post("/api/v1/nodes", wanted)
        .thenCompose(
            reply -> {
              if (reply.status() == 201) {
                return CompletableFuture.completedFuture(api.decode(reply, Node.class));
              }
              if (reply.status() == 409) {
                return api.get(nodePath())
                    .thenCompose(
                        current ->
                            api.put(
                                nodePath(),
                                NodeObjects.reRegistered(
                                    expect(current, Node.class, "read Node"), wanted)))
                    .thenApply(updated -> expect(updated, Node.class, "update Node"));
              }
              throw new IllegalStateException("register Node: " + reply);
            })
        .thenCompose(current -> putNodeStatus(NodeObjects.withStatus(current, wanted.getStatus())))
        .thenAccept(
            stored -> {
              synchronized (this) {
                node = stored;
              }
              registered = true;
              LOG.debug("node {} registered", options.name());
            });
  }

  private CompletableFuture<Node> putNodeStatus(Node wanted) {
    return api.put(nodePath() + "/status", wanted)
        .thenApply(reply -> expect(reply, Node.class, "write Node status"));
  }

  private CompletableFuture<Void> heartbeat(int attempt) {
    Node current;
    synchronized (this) {
      current = node;
    }
    return api.put(nodePath() + "/status", NodeObjects.heartbeat(current, clock.instant()))
        .thenCompose(
            reply -> {
              if (reply.status() == 409 && attempt < MAX_CONFLICT_RETRIES) {
                return api.get(nodePath())
                    .thenCompose(
                        fresh -> {
                          Node read = expect(fresh, Node.class, "read Node");
                          synchronized (this) {
                            node = NodeObjects.withStatus(read, current.getStatus());
                          }
                          return heartbeat(attempt + 1);
                        });
              }
              Node stored = expect(reply, Node.class, "heartbeat");
              synchronized (this) {
                node = stored;
              }
              return CompletableFuture.completedFuture(null);
            });
  }

  private CompletableFuture<Void> renewLease(int attempt) {
    String path = leasesPath() + "/" + options.name();
    String version;
    synchronized (this) {
      version = leaseVersion;
    }
    if (version == null) {
      return api.get(path)
          .thenCompose(
              reply -> {
                if (reply.status() == 404) {
                  return api.post(
                          leasesPath(), NodeObjects.lease(options.name(), clock.instant(), null))
                      .thenCompose(
                          created -> {
                            if (created.status() == 409 && attempt < MAX_CONFLICT_RETRIES) {
                              return renewLease(attempt + 1);
                            }
                            rememberLease(expect(created, Lease.class, "create Lease"));
                            return CompletableFuture.completedFuture(null);
                          });
                }
                rememberLease(expect(reply, Lease.class, "read Lease"));
                return renewLease(attempt + 1);
              });
    }
    return api.put(path, NodeObjects.lease(options.name(), clock.instant(), version))
        .thenCompose(
            reply -> {
              if ((reply.status() == 409 || reply.status() == 404)
                  && attempt < MAX_CONFLICT_RETRIES) {
                synchronized (this) {
                  leaseVersion = null;
                }
                return renewLease(attempt + 1);
              }
              rememberLease(expect(reply, Lease.class, "renew Lease"));
              return CompletableFuture.completedFuture(null);
            });
  }

  private void rememberLease(Lease lease) {
    synchronized (this) {
      leaseVersion = lease.getMetadata().getResourceVersion();
    }
  }

  // ------------------------------------------------------------------ pods

  /**
   * The sync loop of one pod: at most one step runs at a time; a binding arriving during a step
   * marks the worker dirty and the latest binding is synced when the step ends.
   */
  private final class PodWorker {
    private final String podKey;
    private Pod latest;
    private boolean dirty;
    private boolean busy;
    private PodSandbox sandbox;
    private boolean deleted;

    PodWorker(String podKey) {
      this.podKey = podKey;
    }

    synchronized void update(Pod pod) {
      latest = pod;
      dirty = true;
      if (!busy) {
        busy = true;
        scheduler.execute(this::runNext);
      }
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
              LOG.warn("node {} pod {}: {}", options.name(), podKey, rootMessage(failure));
            }
            boolean again;
            synchronized (this) {
              again = dirty;
              busy = again;
            }
            if (again) {
              scheduler.execute(this::runNext);
            } else {
              forgetIfGone(this);
            }
          });
    }

    private CompletableFuture<Void> step(Pod pod) {
      if (pod == null) {
        return stopSandbox(Duration.ZERO);
      }
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        if (deleted) {
          return CompletableFuture.completedFuture(null);
        }
        return stopSandbox(grace(pod)).thenCompose(v -> deletePod(pod));
      }
      if (sandbox != null) {
        return CompletableFuture.completedFuture(null); // our own status coming back
      }
      String previousIP = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
      String ip = addresses.allocate(previousIP);
      boolean adopted = PodStatuses.isRunningAt(pod, ip);
      CompletableFuture<Pod> accepted =
          adopted
              ? CompletableFuture.completedFuture(pod)
              : writeStatus(pod, p -> PodStatuses.pending(p, options.hostIP(), clock.instant()), 0);
      return accepted.thenCompose(
          current ->
              runtime
                  .start(pod, ip)
                  .thenCompose(
                      started -> {
                        synchronized (this) {
                          sandbox = started;
                        }
                        if (adopted || current == null) {
                          return CompletableFuture.completedFuture(null);
                        }
                        return writeStatus(
                                current,
                                p ->
                                    PodStatuses.running(
                                        p,
                                        runtime.status(started),
                                        options.hostIP(),
                                        clock.instant()),
                                0)
                            .thenApply(p -> (Void) null);
                      })
                  .exceptionally(
                      failure -> {
                        addresses.release(ip);
                        throw new IllegalStateException(
                            "start failed: " + rootMessage(failure), failure);
                      }));
    }

    private CompletableFuture<Void> stopSandbox(Duration grace) {
      PodSandbox running;
      synchronized (this) {
        running = sandbox;
      }
      if (running == null) {
        return CompletableFuture.completedFuture(null);
      }
      return runtime
          .stop(running, grace)
          .thenRun(
              () -> {
                synchronized (this) {
                  sandbox = null;
                }
                addresses.release(running.podIP());
              });
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

    synchronized boolean finished() {
      return !busy && latest == null && sandbox == null;
    }
  }

  private synchronized void forgetIfGone(PodWorker worker) {
    if (worker.finished()) {
      pods.remove(worker.podKey, worker);
    }
  }

  /**
   * Writes the status {@code status} computes from the pod, re-reading the pod and computing again
   * on Conflict. Completes with the stored pod, or null when the pod no longer exists.
   */
  private CompletableFuture<Pod> writeStatus(
      Pod pod, Function<Pod, PodStatus> status, int attempt) {
    Pod wanted = Pod.newBuilder(pod).setStatus(status.apply(pod)).build();
    return api.put(podPath(pod) + "/status", wanted)
        .thenCompose(
            reply -> {
              if (reply.ok()) {
                return CompletableFuture.completedFuture(api.decode(reply, Pod.class));
              }
              if (reply.status() == 404) {
                return CompletableFuture.completedFuture(null);
              }
              if (reply.status() == 409 && attempt < MAX_CONFLICT_RETRIES) {
                return api.get(podPath(pod))
                    .thenCompose(
                        fresh -> {
                          if (fresh.status() == 404) {
                            return CompletableFuture.completedFuture(null);
                          }
                          return writeStatus(
                              expect(fresh, Pod.class, "read pod"), status, attempt + 1);
                        });
              }
              throw new IllegalStateException("write pod status: " + reply);
            });
  }

  private <T extends org.apache.avro.specific.SpecificRecord> T expect(
      Reply reply, Class<T> type, String what) {
    if (!reply.ok()) {
      throw new IllegalStateException(what + ": " + reply);
    }
    return api.decode(reply, type);
  }

  private static Duration grace(Pod pod) {
    Long seconds = pod.getMetadata().getDeletionGracePeriodSeconds();
    if (seconds == null && pod.getSpec() != null) {
      seconds = pod.getSpec().getTerminationGracePeriodSeconds();
    }
    return Duration.ofSeconds(seconds == null ? 30 : seconds);
  }

  private String nodePath() {
    return "/api/v1/nodes/" + options.name();
  }

  private static String leasesPath() {
    return "/apis/coordination.k8s.io/v1/namespaces/" + NodeObjects.LEASE_NAMESPACE + "/leases";
  }

  private static String podPath(Pod pod) {
    return "/api/v1/namespaces/"
        + pod.getMetadata().getNamespace()
        + "/pods/"
        + pod.getMetadata().getName();
  }

  private static String rootMessage(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.toString();
  }
}
