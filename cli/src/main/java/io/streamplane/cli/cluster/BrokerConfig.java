package io.streamplane.cli.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * The {@code server.properties} of one broker of the local cluster's KRaft quorum: every broker is
 * also a controller (a combined quorum of {@code brokers} voters, listed statically), listens on
 * 127.0.0.1, and replicates what Streamplane writes three ways with {@code min.insync.replicas=2} —
 * the store's acknowledged writes (acks=all) are on two brokers before the client hears of them,
 * and one broker down leaves every topic writable. The transaction log that exactly_once_v2 needs
 * and the consumer offsets are replicated the same way.
 */
record BrokerConfig(int nodeId, int brokers, int portBase, Path dataDir) {

  static final String CONTROLLER_LISTENER = "CONTROLLER";

  static int brokerPort(int portBase, int nodeId) {
    return portBase + nodeId;
  }

  static int controllerPort(int portBase, int nodeId) {
    return portBase + 10 + nodeId;
  }

  static String bootstrapServers(int portBase, int brokers) {
    return String.join(
        ",",
        IntStream.range(0, brokers).mapToObj(i -> "127.0.0.1:" + brokerPort(portBase, i)).toList());
  }

  /** Replication factor of the cluster's topics: 3, or every broker when there are fewer. */
  static short replicationFactor(int brokers) {
    return (short) Math.min(3, brokers);
  }

  Map<String, String> properties() {
    short rf = replicationFactor(brokers);
    String minIsr = rf >= 3 ? "2" : "1";
    List<String> voters = new ArrayList<>();
    for (int i = 0; i < brokers; i++) {
      voters.add(i + "@127.0.0.1:" + controllerPort(portBase, i));
    }
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(nodeId));
    p.put("controller.quorum.voters", String.join(",", voters));
    p.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:"
            + brokerPort(portBase, nodeId)
            + ","
            + CONTROLLER_LISTENER
            + "://127.0.0.1:"
            + controllerPort(portBase, nodeId));
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort(portBase, nodeId));
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dataDir.toString());
    p.put("num.partitions", "1");
    p.put("default.replication.factor", Short.toString(rf));
    p.put("min.insync.replicas", minIsr);
    p.put("offsets.topic.replication.factor", Short.toString(rf));
    p.put("transaction.state.log.replication.factor", Short.toString(rf));
    p.put("transaction.state.log.min.isr", minIsr);
    p.put("share.coordinator.state.topic.replication.factor", Short.toString(rf));
    p.put("share.coordinator.state.topic.min.isr", minIsr);
    p.put("auto.create.topics.enable", "false");
    p.put("unclean.leader.election.enable", "false");
    p.put("group.initial.rebalance.delay.ms", "0");
    // A broker killed without warning leaves the ISR when the controller fences it, after the
    // session timeout (default 9 s), or when it lags replica.lag.time.max.ms (default 30 s);
    // until then acks=all writes to its partitions wait. Shorter bounds shorten that pause.
    p.put("broker.session.timeout.ms", "6000");
    p.put("replica.lag.time.max.ms", "10000");
    return p;
  }

  /** Writes {@code server.properties} into {@code dir}; returns its path. */
  Path write(Path dir) throws IOException {
    Files.createDirectories(dir);
    StringBuilder text =
        new StringBuilder("# Written by 'streamplane cluster up'; rewritten on every start.\n");
    properties().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Path file = dir.resolve("server.properties");
    Files.writeString(file, text);
    return file;
  }

  /**
   * Formats the data directory for {@code clusterId} unless it already holds {@code
   * meta.properties} (a restart keeps the log).
   */
  void formatOnce(String clusterId) throws Exception {
    if (Files.exists(dataDir.resolve("meta.properties"))) {
      return;
    }
    Files.createDirectories(dataDir);
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(nodeId)
        .setClusterId(clusterId)
        .setDirectories(List.of(dataDir.toString()))
        .setMetadataLogDirectory(dataDir.toString())
        .setControllerListenerName(CONTROLLER_LISTENER)
        .setHasDynamicQuorum(false)
        .run();
  }
}
