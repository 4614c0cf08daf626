package io.streamplane.controller;

import io.streamplane.api.ObjectMeta;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * What {@link ControllerProcessor} does with its stores: store keys, expectations, ids and metrics.
 */
final class ControllerStores {

  /** Kafka Streams metric group of the controllers' own metrics. */
  static final String METRIC_GROUP = "streamplane-controllers";

  /** Total objects read to build the views reconciled, per task: the controllers' work. */
  static final String OBJECTS_READ = "objects-read-total";

  private ControllerStores() {}

  /** The store key part naming the object of an event. */
  static String target(ResourceEvent event) {
    return Expectations.target(
        event.getResource(), event.getGroup(), event.getNamespace(), event.getName());
  }

  /** Updates the pending writes of {@code key} with what {@code event} shows done. */
  static void observe(KeyValueStore<String, String> store, String key, ResourceEvent event) {
    String encoded = store.get(key);
    if (encoded == null) {
      return;
    }
    Expectations expectations = Expectations.decode(encoded);
    expectations.observe(event);
    String updated = expectations.encode();
    if (!Objects.equals(encoded, updated)) {
      save(store, key, expectations);
    }
  }

  static void save(KeyValueStore<String, String> store, String key, Expectations expectations) {
    String encoded = expectations.encode();
    String current = store.get(key);
    if (Objects.equals(encoded, current)) {
      return;
    }
    if (encoded == null) {
      store.delete(key);
    } else {
      store.put(key, encoded);
    }
  }

  /**
   * Forwards each decision as a command and records it in {@code expectations} as sent at {@code
   * now}; the i-th decision's command id derives from {@code seed} and i. At most {@link
   * Expectations#room()} are sent: the rest are decided again when the key is reconciled after the
   * pending writes are observed.
   */
  static void forward(
      ProcessorContext<String, ResourceCommand> context,
      Expectations expectations,
      List<Controller.Decision> decisions,
      String seed,
      Instant now) {
    int sending = Math.min(decisions.size(), expectations.room());
    for (int i = 0; i < sending; i++) {
      Controller.Decision decision = decisions.get(i);
      ResourceCommand command = decision.intent().toCommand(commandId(seed, i), decision.actor());
      if (!ControllerEvents.isRecorded(decision.intent())) {
        // Nothing routes an Event a controller records back to it: expecting one would only wait.
        expectations.expect(decision.intent(), now.toEpochMilli());
      }
      context.forward(
          new Record<>(ResourceKey.of(command).toString(), command, now.toEpochMilli()));
    }
  }

  /** The position of the record being processed, seeding the ids of the commands it leads to. */
  static String seed(ProcessorContext<?, ?> context, Record<?, ?> record) {
    RecordMetadata position = context.recordMetadata().orElse(null);
    return (position == null
            ? "?"
            : position.topic() + "/" + position.partition() + "/" + position.offset())
        + "/"
        + record.timestamp();
  }

  /** Same seed, same decision index: the same id on every replay. */
  static String commandId(String seed, int index) {
    return UUID.nameUUIDFromBytes((seed + "/" + index).getBytes(StandardCharsets.UTF_8)).toString();
  }

  /** The DELETED event with the time of the deletion in the object's deletionTimestamp. */
  static ResourceEvent deletedAt(ResourceEvent event, long timestamp) {
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    ObjectMeta meta = KubeObjects.meta(object);
    if (meta.getDeletionTimestamp() != null) {
      return event;
    }
    SpecificRecord marked =
        KubeObjects.withMeta(
            object,
            ObjectMeta.newBuilder(meta)
                .setDeletionTimestamp(Instant.ofEpochMilli(timestamp))
                .build());
    return ResourceEvent.newBuilder(event).setEncodedObject(KindObjects.encode(marked)).build();
  }

  /** Counts objects read for a reconcile in the task's {@value #OBJECTS_READ} metric. */
  static void objectsRead(ProcessorContext<?, ?> context, int count) {
    String task = context.taskId().toString();
    Sensor sensor =
        context
            .metrics()
            .addSensor(METRIC_GROUP + "." + task + "." + OBJECTS_READ, Sensor.RecordingLevel.INFO);
    MetricName name =
        new MetricName(
            OBJECTS_READ,
            METRIC_GROUP,
            "objects read to build the views the controllers reconciled",
            Map.of("task-id", task));
    if (!sensor.hasMetrics()) {
      sensor.add(name, new CumulativeSum());
    }
    sensor.record(count);
  }
}
