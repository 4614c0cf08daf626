package io.streamplane.scheduler;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.log.BindRejection;
import io.streamplane.log.BindRequest;
import io.streamplane.log.EventType;
import io.streamplane.log.NodeLedger;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.QueuedPod;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.scheduler.binder.Binder;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.queue.AssumedPods;
import io.streamplane.scheduler.queue.Budgets;
import io.streamplane.scheduler.queue.SchedulingQueue;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.AvroSerde;
import io.streamplane.topics.Topics;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The two halves of Omega-style shared-state scheduling, each its own Streams application:
 *
 * <ul>
 *   <li>{@link #scheduler}: {@code events} (pods, keyed by pod) and {@code bind-rejections} → the
 *       {@link SchedulingQueue}, with a global store of {@code node-usage} as its view of the
 *       cluster → {@code bind-requests} (keyed by node) and commands (Events, pod conditions). Run
 *       as many as you like: each takes a share of the pod partitions.
 *   <li>{@link #binder}: {@code bind-requests} and {@code events} (nodes and bound pods, re-keyed
 *       by node) → the {@link Binder}'s ledger per node → BIND commands, {@code node-usage}, {@code
 *       bind-rejections}. Partitioned by node, so each node has exactly one ledger keeper.
 * </ul>
 */
public final class SchedulerTopology {

  static final String BY_NODE = "binder-by-node";

  private SchedulerTopology() {}

  public static Topology scheduler(Topics topics, SchedulerConfig config, String schedulerId) {
    StreamsBuilder builder = new StreamsBuilder();
    AvroSerde<QueuedPod> queued = new AvroSerde<>(QueuedPod.class, topics.catalog());
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(SchedulingQueue.QUEUE), Serdes.String(), queued));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(SchedulingQueue.BUDGETS),
            Serdes.String(),
            new AvroSerde<>(PodDisruptionBudget.class, topics.catalog())));
    builder.addGlobalStore(
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(SchedulingQueue.NODES),
                Serdes.String(),
                topics.nodeUsage().valueSerde())
            .withLoggingDisabled(),
        topics.nodeUsage().name(),
        Consumed.with(Serdes.String(), topics.nodeUsage().valueSerde()),
        () -> new GlobalViewUpdater<NodeUsage>(SchedulingQueue.NODES));
    builder.addGlobalStore(
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(SchedulingQueue.VOLUMES),
                Serdes.String(),
                topics.storageObjects().valueSerde())
            .withLoggingDisabled(),
        topics.storageObjects().name(),
        Consumed.with(Serdes.String(), topics.storageObjects().valueSerde()),
        () -> new GlobalViewUpdater<ResourceEvent>(SchedulingQueue.VOLUMES));
    KStream<String, ResourceEvent> events =
        builder.stream(
            topics.events().name(), Consumed.with(Serdes.String(), topics.events().valueSerde()));
    // Claims, volumes and classes of this instance's partitions, for every scheduler's view.
    events
        .filter((key, event) -> event != null && STORAGE.contains(event.getResource()))
        .map(
            (key, event) ->
                KeyValue.pair(
                    storageKey(event), event.getType() == EventType.DELETED ? null : event))
        .to(
            topics.storageObjects().name(),
            Produced.with(Serdes.String(), topics.storageObjects().valueSerde()));
    KStream<String, SpecificRecord> pods =
        events
            .filter(
                (key, event) ->
                    event != null
                        && (KindObjects.of(event) instanceof Pod
                            || KindObjects.of(event) instanceof PodDisruptionBudget))
            .mapValues(event -> (SpecificRecord) event);
    KStream<String, SpecificRecord> rejections =
        builder.stream(
                topics.bindRejections().name(),
                Consumed.with(Serdes.String(), topics.bindRejections().valueSerde()))
            .mapValues(rejection -> (SpecificRecord) rejection);
    // One per instance: every queue task sees what the others have just proposed.
    AssumedPods assumed = new AssumedPods();
    Budgets budgets = new Budgets();
    pods.merge(rejections)
        .process(
            () -> new SchedulingQueue(config, schedulerId, assumed, budgets),
            SchedulingQueue.QUEUE,
            SchedulingQueue.BUDGETS)
        .split()
        .branch(
            (key, value) -> value instanceof BindRequest,
            Branched.withConsumer(
                s ->
                    s.mapValues(v -> (BindRequest) v)
                        .to(
                            topics.bindRequests().name(),
                            Produced.with(Serdes.String(), topics.bindRequests().valueSerde()))))
        .defaultBranch(
            Branched.withConsumer(
                s ->
                    s.mapValues(v -> (ResourceCommand) v)
                        .to(
                            topics.commands().name(),
                            Produced.with(Serdes.String(), topics.commands().valueSerde()))));
    return builder.build();
  }

  public static Topology binder(Topics topics) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(Binder.LEDGER),
            Serdes.String(),
            new AvroSerde<>(NodeLedger.class, topics.catalog())));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(Binder.NODES),
            Serdes.String(),
            topics.nodeUsage().valueSerde()));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(Binder.PODS),
            Serdes.String(),
            new AvroSerde<>(Pod.class, topics.catalog())));
    KStream<String, SpecificRecord> byNode =
        builder.stream(
                topics.events().name(),
                Consumed.with(Serdes.String(), topics.events().valueSerde()))
            .filter((key, event) -> event != null && SchedulerTopology.nodeOf(event) != null)
            .selectKey((key, event) -> nodeOf(event))
            .repartition(
                Repartitioned.<String, ResourceEvent>as(BY_NODE)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(topics.events().valueSerde()))
            .mapValues(event -> (SpecificRecord) event);
    KStream<String, SpecificRecord> requests =
        builder.stream(
                topics.bindRequests().name(),
                Consumed.with(Serdes.String(), topics.bindRequests().valueSerde()))
            .mapValues(request -> (SpecificRecord) request);
    byNode
        .merge(requests)
        .process(Binder::new, Binder.LEDGER, Binder.NODES, Binder.PODS)
        .split()
        .branch(
            (key, value) -> value instanceof ResourceCommand,
            Branched.withConsumer(
                s ->
                    s.mapValues(v -> (ResourceCommand) v)
                        .to(
                            topics.commands().name(),
                            Produced.with(Serdes.String(), topics.commands().valueSerde()))))
        .branch(
            (key, value) -> value instanceof BindRejection,
            Branched.withConsumer(
                s ->
                    s.mapValues(v -> (BindRejection) v)
                        .to(
                            topics.bindRejections().name(),
                            Produced.with(Serdes.String(), topics.bindRejections().valueSerde()))))
        .defaultBranch(
            Branched.withConsumer(
                s ->
                    s.mapValues(v -> (NodeUsage) v)
                        .to(
                            topics.nodeUsage().name(),
                            Produced.with(Serdes.String(), topics.nodeUsage().valueSerde()))));
    return builder.build();
  }

  /** The node an event concerns: a Node's own name, a bound pod's node; else null. */
  static String nodeOf(ResourceEvent event) {
    if (KindObjects.of(event) instanceof Node) {
      return event.getName();
    }
    if (KindObjects.of(event) instanceof Pod pod && pod.getSpec() != null) {
      return pod.getSpec().getNodeName();
    }
    return null;
  }

  /**
   * The resources of the volume binding's view: claims, volumes, StorageClasses, CSIDrivers,
   * CSIStorageCapacities and CSINodes (the volume limits).
   */
  static final Set<String> STORAGE =
      Set.of(
          "persistentvolumeclaims",
          "persistentvolumes",
          "storageclasses",
          "csidrivers",
          "csistoragecapacities",
          "csinodes");

  /** The key of a claim, volume or class in {@code storage-objects}. */
  static String storageKey(ResourceEvent event) {
    return SchedulingQueue.volumeKey(
        event.getResource(),
        event.getNamespace() == null ? "" : event.getNamespace(),
        event.getName());
  }

  /** Keeps a global store equal to its compacted topic. */
  static final class GlobalViewUpdater<V> implements Processor<String, V, Void, Void> {
    private final String store;
    private KeyValueStore<String, V> view;

    GlobalViewUpdater(String store) {
      this.store = store;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      view = context.getStateStore(store);
    }

    @Override
    public void process(Record<String, V> record) {
      if (record.value() == null) {
        view.delete(record.key());
      } else {
        view.put(record.key(), record.value());
      }
    }
  }
}
