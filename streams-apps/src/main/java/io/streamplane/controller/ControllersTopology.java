package io.streamplane.controller;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.controller.nodelifecycle.NodeLifecycleController;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.topics.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The controllers as one Kafka Streams application: {@code events} re-keyed by namespace (so one
 * task sees a namespace whole: a Deployment, its ReplicaSets, their pods, and every owner of every
 * dependent) → {@link NamespaceControllers} (ReplicaSet, Deployment, garbage collector, namespace
 * controllers over a RocksDB store of the namespace's objects) → {@code commands}.
 *
 * <p>A second sub-topology re-keys the same events by node name (Nodes, node Leases, pods bound to
 * a node) → {@link NodeLifecycleController} (node health, unreachable taints, taint eviction). It
 * lives in this application rather than its own so that it shares the controllers' single consumer
 * of {@code events}, their threads and transactions, and scales and fails over with them; its tasks
 * are separate from the namespace tasks, so a busy namespace does not delay node health.
 *
 * <p>Scaling is by namespaces and by nodes: more instances split the repartitioned partitions, and
 * a namespace (a node) is always handled by exactly one of them. Writes to {@code commands} commit
 * in the transaction that consumed their input (exactly_once_v2), so a crash neither loses nor
 * repeats a decision.
 */
public final class ControllersTopology {

  public static final String OBJECTS = "namespace-objects";
  public static final String EXPECTATIONS = "deployment-expectations";
  static final String BY_NAMESPACE = "by-namespace";
  static final String BY_NODE = "node-lifecycle-by-node";

  private ControllersTopology() {}

  public static Topology buildTopology(Topics topics) {
    return buildTopology(topics, NodeLifecycleConfig.defaults());
  }

  public static Topology buildTopology(Topics topics, NodeLifecycleConfig nodeLifecycle) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(OBJECTS),
            Serdes.String(),
            topics.events().valueSerde()));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(EXPECTATIONS), Serdes.String(), Serdes.String()));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(NodeLifecycleController.OBJECTS),
            Serdes.String(),
            topics.events().valueSerde()));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(NodeLifecycleController.TAINTS_SEEN),
            Serdes.String(),
            Serdes.Long()));
    Produced<String, ResourceCommand> toCommands =
        Produced.with(Serdes.String(), topics.commands().valueSerde());
    KStream<String, ResourceEvent> events =
        builder.stream(
                topics.events().name(),
                Consumed.with(Serdes.String(), topics.events().valueSerde()))
            .filter((key, event) -> event != null);
    events
        .filter((key, event) -> NamespaceControllers.namespaceOf(event) != null)
        .selectKey((key, event) -> NamespaceControllers.namespaceOf(event))
        .repartition(
            Repartitioned.<String, ResourceEvent>as(BY_NAMESPACE)
                .withKeySerde(Serdes.String())
                .withValueSerde(topics.events().valueSerde()))
        .process(NamespaceControllers::new, OBJECTS, EXPECTATIONS)
        .to(topics.commands().name(), toCommands);
    events
        .filter((key, event) -> NodeLifecycleController.nodeOf(event) != null)
        .selectKey((key, event) -> NodeLifecycleController.nodeOf(event))
        .mapValues(NodeLifecycleController::routed)
        .repartition(
            Repartitioned.<String, ResourceEvent>as(BY_NODE)
                .withKeySerde(Serdes.String())
                .withValueSerde(topics.events().valueSerde()))
        .process(
            () -> new NodeLifecycleController(nodeLifecycle),
            NodeLifecycleController.OBJECTS,
            NodeLifecycleController.TAINTS_SEEN)
        .to(topics.commands().name(), toCommands);
    return builder.build();
  }
}
