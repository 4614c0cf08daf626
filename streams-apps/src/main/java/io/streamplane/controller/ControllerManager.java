package io.streamplane.controller;

import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.topics.Topic;
import io.streamplane.topics.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Where controllers are registered, as kube-controller-manager lists its controllers and
 * java-operator-sdk's {@code Operator.register} takes a reconciler: {@link #register} adds one
 * {@link Controller} to the topology with everything it runs on — its re-keying of {@code events},
 * its stores, a {@link ControllerProcessor}, and its writes to {@code controller-requests}, which
 * the gateways execute through their registry and admission chain, as kube-apiserver executes
 * kube-controller-manager's requests (or to {@code commands} directly, for a plane without
 * gateways: see {@link #ControllerManager(StreamsBuilder, Topics, Topic)}).
 *
 * <p>Every controller reads the same consumer of {@code events} (one subscription, one transaction
 * per commit for all of them) and gets its own sub-topology from its re-keyed topic on, so its
 * partitions spread over the instances on their own.
 */
public final class ControllerManager {

  private final StreamsBuilder builder;
  private final Serde<ResourceEvent> eventSerde;
  private final KStream<String, ResourceEvent> events;
  private final Produced<String, ResourceCommand> toCommands;
  private final String commands;
  private final Function<String, KeyValueBytesStoreSupplier> stores;

  /** The stores of a cluster's controllers: RocksDB, so a task's state need not fit in memory. */
  public static final Function<String, KeyValueBytesStoreSupplier> PERSISTENT =
      Stores::persistentKeyValueStore;

  /** Stores held in memory, for tests that build the topology many times over. */
  public static final Function<String, KeyValueBytesStoreSupplier> IN_MEMORY =
      Stores::inMemoryKeyValueStore;

  /** Controllers whose writes go through the gateways' admission: {@code controller-requests}. */
  public ControllerManager(StreamsBuilder builder, Topics topics) {
    this(builder, topics, topics.controllerRequests());
  }

  /**
   * Controllers writing to {@code writesTo}: {@code controller-requests} in a cluster, {@code
   * commands} where no gateway runs (the controllers' own tests), whose writes then skip admission.
   */
  public ControllerManager(
      StreamsBuilder builder, Topics topics, Topic<String, ResourceCommand> writesTo) {
    this(builder, topics, writesTo, PERSISTENT);
  }

  /** Controllers writing to {@code writesTo}, their stores made by {@code stores}. */
  public ControllerManager(
      StreamsBuilder builder,
      Topics topics,
      Topic<String, ResourceCommand> writesTo,
      Function<String, KeyValueBytesStoreSupplier> stores) {
    this.builder = builder;
    this.stores = stores;
    this.eventSerde = topics.events().valueSerde();
    this.events =
        builder.stream(topics.events().name(), Consumed.with(Serdes.String(), eventSerde))
            .filter((key, event) -> event != null && KindObjects.of(event) != null);
    this.toCommands = Produced.with(Serdes.String(), writesTo.valueSerde());
    this.commands = writesTo.name();
  }

  /** Runs {@code controller} on the events, re-keyed by {@link Controller#keysOf}. */
  public <V> ControllerManager register(Controller<V> controller) {
    List<String> names = new ArrayList<>();
    names.add(add(objectsStore(controller)));
    names.add(add(stringStore(ControllerProcessor.queueStore(controller))));
    names.add(add(stringStore(ControllerProcessor.expectationsStore(controller))));
    for (StoreBuilder<?> own : controller.stores(stores)) {
      names.add(add(own));
    }
    events
        .flatMap(
            (key, event) ->
                controller.keysOf(event).stream()
                    .map(rekeyed -> KeyValue.pair(rekeyed, controller.reduce(event)))
                    .toList())
        .repartition(
            Repartitioned.<String, ResourceEvent>as(controller.rekeyedAs())
                .withKeySerde(Serdes.String())
                .withValueSerde(eventSerde))
        .process(() -> new ControllerProcessor<>(controller), names.toArray(String[]::new))
        .to(commands, toCommands);
    return this;
  }

  private String add(StoreBuilder<?> store) {
    builder.addStateStore(store);
    return store.name();
  }

  private StoreBuilder<?> objectsStore(Controller<?> controller) {
    return Stores.keyValueStoreBuilder(
        stores.apply(ControllerProcessor.objectsStore(controller)), Serdes.String(), eventSerde);
  }

  private StoreBuilder<?> stringStore(String name) {
    return Stores.keyValueStoreBuilder(stores.apply(name), Serdes.String(), Serdes.String());
  }
}
