package io.streamplane.bench.fleet;

import io.streamplane.controller.ControllersApp;
import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.log.UserInfo;
import io.streamplane.scheduler.SchedulerApp;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;

/**
 * A whole Streamplane control plane in this JVM, wired as {@code streamplane up} wires it (see
 * {@code cli/.../up/UpCommand}): a real single-node KRaft broker on a temporary directory and a
 * free port, the cluster's topics, the controllers (with the node lifecycle controller's defaults:
 * 40 s grace period, 300 s toleration), the binder and the scheduler, the store, and a gateway on a
 * free port of 127.0.0.1 that has created the system namespaces. {@link #close} stops it all in
 * reverse order and deletes the temporary state.
 */
final class ControlPlane implements AutoCloseable {

  private static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  private final List<AutoCloseable> running = new ArrayList<>();
  private final Path stateDir;
  private EmbeddedKafkaBroker broker;
  private Topics topics;
  private GatewayServer gateway;

  private ControlPlane(Path stateDir) {
    this.stateDir = stateDir;
  }

  static ControlPlane start(String cluster) throws Exception {
    ControlPlane plane = new ControlPlane(Files.createTempDirectory("streamplane-fleetbench-"));
    try {
      plane.startAll(cluster);
      return plane;
    } catch (Exception | Error e) {
      plane.close();
      throw e;
    }
  }

  private void startAll(String cluster) throws Exception {
    broker = EmbeddedKafkaBroker.temporaryBuilder().start();
    running.add(broker);
    String bootstrap = broker.bootstrapServers();
    TopicLayout layout = TopicLayout.singleBroker(cluster);
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics clusterTopics = ClusterTopics.ensure(admin, bootstrap, layout);
      running.add(clusterTopics);
      topics = clusterTopics.topics();
    }
    running.add(
        ControllersApp.start(
            topics,
            NodeLifecycleConfig.defaults(),
            bootstrap,
            stateDir.resolve("controllers").toAbsolutePath()));
    running.add(
        SchedulerApp.startBinder(topics, bootstrap, stateDir.resolve("binder").toAbsolutePath()));
    running.add(
        SchedulerApp.startScheduler(
            topics,
            SchedulerConfig.defaults(),
            "up",
            bootstrap,
            stateDir.resolve("scheduler").toAbsolutePath()));
    running.add(StoreApp.start(topics, bootstrap, stateDir.resolve("store").toAbsolutePath()));
    gateway = GatewayServer.start(bootstrap, topics, "127.0.0.1", 0, 0);
    running.add(gateway);
    gateway.ensureSystemNamespaces(SYSTEM);
  }

  String bootstrapServers() {
    return broker.bootstrapServers();
  }

  Topics topics() {
    return topics;
  }

  String apiServer() {
    return gateway.url();
  }

  Path stateDir() {
    return stateDir;
  }

  @Override
  public void close() {
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (Exception e) {
        System.err.println("fleet benchmark: stopping " + running.get(i) + ": " + e);
      }
    }
    running.clear();
    try (Stream<Path> files = Files.walk(stateDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("fleet benchmark: cannot delete " + stateDir + ": " + e);
    }
  }
}
