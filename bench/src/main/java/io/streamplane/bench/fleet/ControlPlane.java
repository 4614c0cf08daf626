package io.streamplane.bench.fleet;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The fleet benchmark's control plane: {@link io.streamplane.plane.ControlPlane} wired as {@code
 * streamplane up} wires it, on a real single-node KRaft broker on a temporary directory and a free
 * port — the controllers (with the node lifecycle controller's defaults: 40 s grace period, 300 s
 * toleration), the binder and the scheduler, the store, and a gateway on a free port of 127.0.0.1
 * that has created the system namespaces; no nodes (the benchmark brings its own fleet). {@link
 * #close} stops it all in reverse order and deletes the temporary state.
 */
final class ControlPlane implements AutoCloseable {

  private final io.streamplane.plane.ControlPlane plane;
  private final Path stateDir;

  private ControlPlane(io.streamplane.plane.ControlPlane plane, Path stateDir) {
    this.plane = plane;
    this.stateDir = stateDir;
  }

  static ControlPlane start(String cluster) throws Exception {
    Path stateDir = Files.createTempDirectory("streamplane-fleetbench-");
    try {
      return new ControlPlane(
          io.streamplane.plane.ControlPlane.builder()
              .embeddedBroker()
              .layout(TopicLayout.singleBroker(cluster))
              .stateDir(stateDir)
              .controllers(NodeLifecycleConfig.defaults())
              .scheduling(SchedulerConfig.defaults(), "up")
              .gateway()
              .systemNamespaces(io.streamplane.plane.ControlPlane.SystemNamespaces.CREATE)
              .start(),
          stateDir);
    } catch (Exception | Error e) {
      delete(stateDir);
      throw e;
    }
  }

  String bootstrapServers() {
    return plane.bootstrapServers();
  }

  Topics topics() {
    return plane.topics();
  }

  String apiServer() {
    return plane.apiServer();
  }

  Path stateDir() {
    return stateDir;
  }

  @Override
  public void close() {
    try {
      plane.close();
    } catch (RuntimeException e) {
      System.err.println("fleet benchmark: stopping the control plane: " + e);
    }
    delete(stateDir);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("fleet benchmark: cannot delete " + dir + ": " + e);
    }
  }
}
