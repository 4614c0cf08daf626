package io.streamplane.store;

import io.streamplane.log.CommandResult;
import io.streamplane.topics.BindingKey;
import io.streamplane.topics.Topics;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.Stores;

/**
 * The store: {@code commands} → state store {@code objects} → {@code events}, {@code results} and
 * the {@code bindings} projection. The cluster's single writer of events; see docs/store.md.
 */
public final class StoreTopology {

  public static final String OBJECTS = "objects";
  static final String SOURCE = "commands-source";
  static final String PROCESSOR = "store";
  static final String EVENTS_SINK = "events-sink";
  static final String RESULTS_SINK = "results-sink";
  static final String BINDINGS_SINK = "bindings-sink";

  private StoreTopology() {}

  public static Topology buildTopology(Topics topics) {
    Serde<String> keys = Serdes.String();
    Topology topology = new Topology();
    topology.addSource(
        SOURCE,
        keys.deserializer(),
        topics.commands().valueSerde().deserializer(),
        topics.commands().name());
    topology.addProcessor(PROCESSOR, StoreProcessor::new, SOURCE);
    topology.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(OBJECTS), keys, topics.events().valueSerde()),
        PROCESSOR);
    topology.addSink(
        EVENTS_SINK,
        topics.events().name(),
        keys.serializer(),
        cast(topics.events().valueSerde().serializer()),
        PROCESSOR);
    topology.addSink(
        RESULTS_SINK,
        topics.results().name(),
        keys.serializer(),
        cast(topics.results().valueSerde().serializer()),
        new ToReplyPartition(),
        PROCESSOR);
    topology.addSink(
        BINDINGS_SINK,
        topics.bindings().name(),
        keys.serializer(),
        cast(topics.bindings().valueSerde().serializer()),
        new ByNode(),
        PROCESSOR);
    return topology;
  }

  @SuppressWarnings("unchecked")
  private static Serializer<Object> cast(Serializer<?> serializer) {
    return (Serializer<Object>) serializer;
  }

  /** Results go to the partition the requesting gateway reads. */
  private static final class ToReplyPartition implements StreamPartitioner<String, Object> {
    @Override
    public Optional<Set<Integer>> partitions(
        String topic, String key, Object value, int numPartitions) {
      return Optional.of(Set.of(((CommandResult) value).getReplyPartition() % numPartitions));
    }
  }

  /** Bindings are partitioned by node name only. */
  private static final class ByNode implements StreamPartitioner<String, Object> {
    @Override
    public Optional<Set<Integer>> partitions(
        String topic, String key, Object value, int numPartitions) {
      return Optional.of(Set.of(BindingKey.partition(BindingKey.node(key), numPartitions)));
    }
  }
}
