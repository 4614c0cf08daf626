package io.streamplane.node;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Lease;
import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.node.probe.Handlers;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.schema.convert.KubeJson;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node (the kubelet's job): registers its Node through the gateway, renews its Lease every 10
 * s, checks its Node every 40 s and refreshes its conditions when they are not what it reports or
 * every 5 minutes, and runs the pods bound to it through a {@link PodRuntime}, one {@link
 * PodWorker} (the pod's sync loop) each, writing their status back.
 *
 * <p>Contract: the bindings it is given ({@link #onBinding}, in topic order, from a {@link
 * BindingsConsumer}) are the desired state; each goes to its pod's worker, created on the pod's
 * first binding and forgotten once it has finished (its pod left the node, no step is running and
 * its sandbox is stopped). After {@link #close} it takes no more bindings and its workers schedule
 * no more periodic syncs. Registration, Lease renewals and heartbeats run one round at a time; a
 * Conflict is retried with a fresh read. Every periodic task runs on the shared scheduler and never
 * blocks it: HTTP calls and runtime calls are asynchronous.
 *
 * <p>Limits: a node that restarts starts its pods again (the process runtime has killed what the
 * previous node left running) and keeps their IPs when they are free; restart counts start again
 * from 0. No node status other than the heartbeat and {@code volumesInUse} (the CSI volumes set up
 * on the node, written at the next lease renewal after they change) is ever updated.
 */
public final class NodeAgent implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  public static final Duration LEASE_PERIOD = Duration.ofSeconds(10);

  /** The Node's conditions are checked every this many lease renewals (40 s). */
  private static final int HEARTBEAT_EVERY = 4;

  /** How many times a write that met a Conflict is read again and retried. */
  static final int MAX_CONFLICT_RETRIES = 5;

  private final NodeOptions options;
  private final GatewayClient api;
  private final PodRuntime runtime;
  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private final String bootID = UUID.randomUUID().toString();
  private final Map<String, PodWorker> pods = new ConcurrentHashMap<>();
  private final AtomicLong errors = new AtomicLong();
  private final PodWorker.Context podContext;
  private final CsiVolumes volumes; // null: the runtime mounts no volumes

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
      Clock clock,
      KubeletConfig kubelet,
      Handlers handlers) {
    this.options = options;
    this.api = api;
    this.runtime = runtime;
    this.scheduler = scheduler;
    this.clock = clock;
    this.volumes =
        runtime
            .nodeRoot(options.name())
            .map(root -> new CsiVolumes(options.name(), api, root))
            .orElse(null);
    this.podContext =
        new PodWorker.Context(
            options,
            api,
            runtime,
            scheduler,
            clock,
            new PodAddresses(options.podCIDR()),
            kubelet,
            handlers,
            new PodInputsResolver(
                api,
                runtime.runsProcesses()
                    ? PodDns.of(kubelet.clusterDns(), kubelet.clusterDomain())
                    : null),
            volumes,
            new EventRecorder(api, options.name(), clock),
            errors,
            () -> closed,
            this::forgetIfGone);
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
  /** The pods this node runs now, each with its sandbox. */
  List<PodWorker.Running> running() {
    List<PodWorker.Running> running = new ArrayList<>();
    pods.values().forEach(w -> w.running().ifPresent(running::add));
    return running;
  }

  public int pods() {
    return pods.size();
  }

  /** Pods whose sandbox is running now (the kubelet's running pods). */
  public int runningPods() {
    return (int) pods.values().stream().filter(PodWorker::hasSandbox).count();
  }

  /**
   * Registers the Node after {@code offset}, then renews the Lease every 10 s from there, so a
   * fleet spreads its renewals by giving each node its own offset.
   */
  public synchronized void start(Duration offset) {
    NodeMetrics.started(this);
    ticks =
        scheduler.scheduleAtFixedRate(
            this::tick, offset.toMillis(), LEASE_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One binding of this node: the pod under {@code podKey}, or null when it left the node. */
  public synchronized void onBinding(String podKey, Pod pod) {
    if (closed) {
      return;
    }
    pods.computeIfAbsent(podKey, key -> new PodWorker(key, podContext)).update(pod);
  }

  /** A worker's callback when it has nothing left to do: forgets it unless a binding came since. */
  private synchronized void forgetIfGone(PodWorker worker) {
    if (worker.finished()) {
      pods.remove(worker.podKey(), worker);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    NodeMetrics.stopped(this);
    if (volumes != null) {
      volumes.close();
    }
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
        if (tickCount % HEARTBEAT_EVERY == 0 || volumesInUseChanged()) {
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
    NodeMetrics.statusWrite("node");
    return api.post("/api/v1/nodes", wanted)
        .thenCompose(
            reply -> {
              if (reply.status() == 201) {
                return CompletableFuture.completedFuture(api.decode(reply, Node.class));
              }
              if (reply.status() == 409) {
                return api.get(nodePath())
                    .thenCompose(
                        current -> {
                          Node existing = api.expect(current, Node.class, "read Node");
                          Optional<ObjectNode> patch = NodeObjects.reRegistration(existing, wanted);
                          if (patch.isEmpty()) {
                            return CompletableFuture.completedFuture(existing);
                          }
                          NodeMetrics.statusWrite("node");
                          return api.mergePatch(nodePath(), KubeJson.writeJson(patch.get()))
                              .thenApply(updated -> api.expect(updated, Node.class, "update Node"));
                        });
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
    NodeMetrics.statusWrite("node");
    return api.put(nodePath() + "/status", wanted)
        .thenApply(reply -> api.expect(reply, Node.class, "write Node status"));
  }

  /**
   * Reads the Node and writes its status only when it says something the node would not (a
   * condition the node lifecycle controller set to Unknown) or its heartbeat is older than {@link
   * NodeObjects#STATUS_REPORT_FREQUENCY}, as the kubelet does since node leases exist: a healthy
   * node at rest writes its Lease and nothing else.
   */
  private CompletableFuture<Void> heartbeat(int attempt) {
    return api.get(nodePath())
        .thenCompose(
            fresh -> {
              Node read = api.expect(fresh, Node.class, "read Node");
              Instant now = clock.instant();
              List<String> inUse = volumesInUse();
              if (!NodeObjects.needsHeartbeat(read, now)
                  && inUse.equals(NodeObjects.volumesInUse(read))) {
                synchronized (this) {
                  node = read;
                }
                return CompletableFuture.completedFuture(null);
              }
              NodeMetrics.statusWrite("node");
              return api.put(
                      nodePath() + "/status",
                      NodeObjects.withVolumesInUse(NodeObjects.heartbeat(read, now), inUse))
                  .thenCompose(
                      reply -> {
                        if (reply.status() == 409 && attempt < MAX_CONFLICT_RETRIES) {
                          return heartbeat(attempt + 1);
                        }
                        Node stored = api.expect(reply, Node.class, "heartbeat");
                        synchronized (this) {
                          node = stored;
                        }
                        return CompletableFuture.completedFuture(null);
                      });
            });
  }

  /** The kubelet's {@code volumesInUse}: the CSI volumes set up on this node. */
  private List<String> volumesInUse() {
    return volumes == null ? List.of() : volumes.volumesInUse();
  }

  /** Whether the volumes in use differ from what the Node last read says. */
  private boolean volumesInUseChanged() {
    Node known;
    synchronized (this) {
      known = node;
    }
    return known != null && !volumesInUse().equals(NodeObjects.volumesInUse(known));
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
                  NodeMetrics.statusWrite("lease");
                  return api.post(
                          leasesPath(), NodeObjects.lease(options.name(), clock.instant(), null))
                      .thenCompose(
                          created -> {
                            if (created.status() == 409 && attempt < MAX_CONFLICT_RETRIES) {
                              return renewLease(attempt + 1);
                            }
                            rememberLease(api.expect(created, Lease.class, "create Lease"));
                            return CompletableFuture.completedFuture(null);
                          });
                }
                rememberLease(api.expect(reply, Lease.class, "read Lease"));
                return renewLease(attempt + 1);
              });
    }
    NodeMetrics.statusWrite("lease");
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
              rememberLease(api.expect(reply, Lease.class, "renew Lease"));
              return CompletableFuture.completedFuture(null);
            });
  }

  private void rememberLease(Lease lease) {
    synchronized (this) {
      leaseVersion = lease.getMetadata().getResourceVersion();
    }
  }

  private String nodePath() {
    return "/api/v1/nodes/" + options.name();
  }

  private static String leasesPath() {
    return "/apis/coordination.k8s.io/v1/namespaces/" + NodeObjects.LEASE_NAMESPACE + "/leases";
  }

  /** The message of the innermost cause of {@code failure}, for a log line. */
  static String rootMessage(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }
}
