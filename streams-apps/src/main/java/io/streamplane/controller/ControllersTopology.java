package io.streamplane.controller;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.controller.nodelifecycle.NodeLifecycleController;
import io.streamplane.log.ResourceEvent;
import io.streamplane.topics.Topics;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The controllers as one Kafka Streams application, three sub-topologies over one consumer of
 * {@code events}:
 *
 * <ul>
 *   <li>re-keyed by owner uid ({@link ControllerRoutes#ownerKeys}) → {@link OwnerControllers}: the
 *       ReplicaSet and Deployment controllers and the garbage collector, each owner seen with its
 *       dependents;
 *   <li>re-keyed by namespace ({@link ControllerRoutes#namespaceKey}) → {@link
 *       NamespaceControllers}: namespace teardown and ReplicaSet adoption of orphan pods;
 *   <li>re-keyed by node name → {@link NodeLifecycleController}: node health, unreachable taints,
 *       taint eviction.
 * </ul>
 *
 * <p>Scaling is by partitions of the re-keyed topics: owners spread over every partition and
 * instance, whatever their namespace. Writes to {@code commands} commit in the transaction that
 * consumed their input (exactly_once_v2), and so do the work queues and expectations, so a crash
 * neither loses nor repeats a decision.
 */
public final class ControllersTopology {

  public static final String NAMESPACE_OBJECTS = "namespace-objects";
  public static final String NAMESPACE_QUEUE = "namespace-queue";
  public static final String NAMESPACE_EXPECTATIONS = "namespace-expectations";
  static final String BY_NAMESPACE = "by-namespace";

  private ControllersTopology() {}

  public static Topology buildTopology(Topics topics) {
    return buildTopology(topics, NodeLifecycleConfig.defaults());
  }

  public static Topology buildTopology(Topics topics, NodeLifecycleConfig nodeLifecycle) {
    StreamsBuilder builder = new StreamsBuilder();
    ControllerManager controllers = new ControllerManager(builder, topics);
    controllers.register(new OwnerControllers());
    Serde<ResourceEvent> eventSerde = topics.events().valueSerde();
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(NAMESPACE_OBJECTS), Serdes.String(), eventSerde));
    for (String name : new String[] {NAMESPACE_QUEUE, NAMESPACE_EXPECTATIONS}) {
      builder.addStateStore(
          Stores.keyValueStoreBuilder(
              Stores.persistentKeyValueStore(name), Serdes.String(), Serdes.String()));
    }
    controllers
        .events()
        .filter((key, event) -> ControllerRoutes.namespaceKey(event) != null)
        .selectKey((key, event) -> ControllerRoutes.namespaceKey(event))
        .repartition(
            Repartitioned.<String, ResourceEvent>as(BY_NAMESPACE)
                .withKeySerde(Serdes.String())
                .withValueSerde(eventSerde))
        .process(
            NamespaceControllers::new, NAMESPACE_OBJECTS, NAMESPACE_QUEUE, NAMESPACE_EXPECTATIONS)
        .to(
            topics.commands().name(),
            Produced.with(Serdes.String(), topics.commands().valueSerde()));
    controllers.register(new NodeLifecycleController(nodeLifecycle));
    return builder.build();
  }
}
