package io.streamplane.controller;

import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.topics.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The controllers as one Kafka Streams application: {@code events} re-keyed by namespace (so one
 * task sees a namespace whole: a Deployment, its ReplicaSets, their pods, and every owner of every
 * dependent) → {@link NamespaceControllers} (ReplicaSet, Deployment, garbage collector, namespace
 * controllers over a RocksDB store of the namespace's objects) → {@code commands}.
 *
 * <p>Scaling is by namespaces: more instances split the repartitioned partitions, and a namespace
 * is always handled by exactly one of them. Writes to {@code commands} commit in the transaction
 * that consumed their input (exactly_once_v2), so a crash neither loses nor repeats a decision.
 */
public final class ControllersTopology {

  public static final String OBJECTS = "namespace-objects";
  public static final String EXPECTATIONS = "deployment-expectations";
  static final String BY_NAMESPACE = "by-namespace";

  private ControllersTopology() {}

  public static Topology buildTopology(Topics topics) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(OBJECTS),
            Serdes.String(),
            topics.events().valueSerde()));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(EXPECTATIONS), Serdes.String(), Serdes.String()));
    builder.stream(
            topics.events().name(), Consumed.with(Serdes.String(), topics.events().valueSerde()))
        .filter((key, event) -> event != null && NamespaceControllers.namespaceOf(event) != null)
        .selectKey((key, event) -> NamespaceControllers.namespaceOf(event))
        .repartition(
            Repartitioned.<String, ResourceEvent>as(BY_NAMESPACE)
                .withKeySerde(Serdes.String())
                .withValueSerde(topics.events().valueSerde()))
        .process(NamespaceControllers::new, OBJECTS, EXPECTATIONS)
        .to(
            topics.commands().name(),
            Produced.<String, ResourceCommand>with(
                Serdes.String(), topics.commands().valueSerde()));
    return builder.build();
  }
}
