package io.streamplane.node;

import io.streamplane.api.Pod;
import io.streamplane.node.logs.NodeLogServer;
import io.streamplane.node.probe.Handlers;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.topics.Topic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Many {@link NodeAgent}s in one process sharing one gateway client, one scheduler, one runtime and
 * one bindings consumer — what {@code streamplane nodes --count 1000 --runtime simulated} runs,
 * and, with one node, what {@code streamplane node} runs.
 *
 * <p>Contract: node {@code i} of {@code n} registers and then renews its Lease at {@code i * 10 s /
 * n} within every 10 s period, so a fleet's API load is even rather than a burst every 10 s. The
 * bindings consumer reads the partitions of all the fleet's nodes and dispatches by node name.
 * {@link #close} stops the consumer, then the agents, then the scheduler; Node objects stay.
 *
 * <p>A runtime that writes container logs gets one log server for the fleet (on {@code 127.0.0.1},
 * an ephemeral port every node publishes as its kubelet port), which the gateway's {@code pods/log}
 * dials.
 *
 * <p>Limits: the fleet is fixed at start; every node uses the same runtime instance.
 */
public final class NodeFleet implements AutoCloseable {

  /** At most this many requests of the fleet on the wire at once. */
  private static final int MAX_IN_FLIGHT = 32;

  /** Runs TCP probes, which block while they connect. */
  private static final ExecutorService PROBE_EXECUTOR =
      Executors.newCachedThreadPool(
          r -> {
            Thread thread = new Thread(r, "node-probe");
            thread.setDaemon(true);
            return thread;
          });

  /** Where the log server listens: the nodes' InternalIP, which the gateway dials. */
  private static final String LOG_SERVER_HOST = "127.0.0.1";

  private final GatewayClient api;
  private final ScheduledExecutorService scheduler;
  private final PodRuntime runtime;
  private final List<NodeAgent> agents;
  private final BindingsConsumer bindings;
  private final NodeLogServer logServer;

  private NodeFleet(
      GatewayClient api,
      ScheduledExecutorService scheduler,
      PodRuntime runtime,
      List<NodeAgent> agents,
      BindingsConsumer bindings,
      NodeLogServer logServer) {
    this.logServer = logServer;
    this.api = api;
    this.scheduler = scheduler;
    this.runtime = runtime;
    this.agents = agents;
    this.bindings = bindings;
  }

  /**
   * Starts one agent per entry of {@code nodes}, against the gateway at {@code apiServer} and the
   * {@code bindings} topic on {@code bootstrapServers}; {@code runtimeFactory} builds the runtime
   * on the fleet's scheduler.
   */
  public static NodeFleet start(
      String apiServer,
      String bootstrapServers,
      Topic<String, Pod> bindingsTopic,
      List<NodeOptions> nodes,
      Function<ScheduledExecutorService, PodRuntime> runtimeFactory,
      KubeletConfig kubelet) {
    return start(
        apiServer,
        bootstrapServers,
        bindingsTopic,
        nodes,
        runtimeFactory,
        kubelet,
        NodeIdentities.none());
  }

  /**
   * As {@link #start(String, String, Topic, List, Function, KubeletConfig)}, each node speaking to
   * the gateway as its own identity from {@code identities}: one client per node, sharing the
   * fleet's threads and in-flight limit.
   */
  public static NodeFleet start(
      String apiServer,
      String bootstrapServers,
      Topic<String, Pod> bindingsTopic,
      List<NodeOptions> nodes,
      Function<ScheduledExecutorService, PodRuntime> runtimeFactory,
      KubeletConfig kubelet,
      NodeIdentities identities) {
    GatewayClient api = new GatewayClient(apiServer, MAX_IN_FLIGHT);
    ScheduledExecutorService scheduler =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread thread = new Thread(r, "node-scheduler");
              thread.setDaemon(true);
              return thread;
            });
    PodRuntime runtime = runtimeFactory.apply(scheduler);
    Handlers handlers =
        runtime.runsProcesses()
            ? Handlers.onHost(runtime, HttpClient.newHttpClient(), PROBE_EXECUTOR)
            : Handlers.alwaysSucceeds();
    NodeLogServer logServer;
    try {
      logServer =
          NodeLogServer.start(
              LOG_SERVER_HOST,
              0,
              runtime.logs().orElse(null),
              runtime.streamsRefused("serve container logs"),
              runtime,
              Clock.systemUTC());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the node server", e);
    }
    List<NodeAgent> agents = new ArrayList<>();
    for (NodeOptions options : nodes) {
      NodeOptions published = options.withKubeletPort(logServer.port());
      GatewayClient own = api.as(identities.tls(options.name()));
      agents.add(
          new NodeAgent(published, own, runtime, scheduler, Clock.systemUTC(), kubelet, handlers));
    }
    logServer.serveNodeApi(new NodeApi(agents, runtime, kubelet, Clock.systemUTC()));
    BindingsConsumer bindings = BindingsConsumer.start(bootstrapServers, bindingsTopic, agents);
    long period = NodeAgent.LEASE_PERIOD.toMillis();
    for (int i = 0; i < agents.size(); i++) {
      agents.get(i).start(Duration.ofMillis(period * i / agents.size()));
    }
    return new NodeFleet(api, scheduler, runtime, agents, bindings, logServer);
  }

  /**
   * The options of {@code count} nodes named {@code prefix0..}, each with its own pod CIDR: {@code
   * 10.x.y.0/24}, or loopback ({@code 127.x.y.0/24}) for nodes running real processes.
   */
  public static List<NodeOptions> numbered(
      String prefix, int count, NodeOptions template, boolean loopback) {
    List<NodeOptions> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String cidr = loopback ? PodAddresses.loopbackCidrForIndex(i) : PodAddresses.cidrForIndex(i);
      nodes.add(template.withName(prefix + i).withPodCIDR(cidr));
    }
    return nodes;
  }

  public List<NodeAgent> agents() {
    return agents;
  }

  /** How many nodes have registered so far. */
  public long registered() {
    return agents.stream().filter(NodeAgent::registered).count();
  }

  /** Failed requests across the fleet since start. */
  public long errors() {
    return agents.stream().mapToLong(NodeAgent::errors).sum();
  }

  @Override
  public void close() {
    bindings.close();
    for (NodeAgent agent : agents) {
      agent.close();
    }
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    logServer.close();
    runtime.close();
    api.close();
  }
}
