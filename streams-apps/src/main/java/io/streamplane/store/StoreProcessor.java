package io.streamplane.store;

import io.streamplane.api.Pod;
import io.streamplane.log.CommandResult;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.topics.BindingKey;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The thin shell around {@link StoreLogic}: reads the key's state, applies the command, writes the
 * new state and forwards the event, the result and the bindings projection. Runs under
 * exactly_once_v2, so the state change, the event and the result commit together or not at all.
 */
final class StoreProcessor implements Processor<String, ResourceCommand, String, Object> {

  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, ResourceEvent> objects;

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.objects = context.getStateStore(StoreTopology.OBJECTS);
  }

  @Override
  public void process(Record<String, ResourceCommand> record) {
    if (record.value() == null) {
      return;
    }
    RecordMetadata metadata =
        context
            .recordMetadata()
            .orElseThrow(() -> new IllegalStateException("a command without a log position"));
    CommandPosition at =
        new CommandPosition(
            metadata.partition(), metadata.offset(), Instant.ofEpochMilli(record.timestamp()));
    ResourceEvent current = objects.get(record.key());
    Outcome outcome = StoreLogic.apply(record.value(), at, current);
    if (outcome.changed()) {
      if (outcome.state() == null) {
        objects.delete(record.key());
      } else {
        objects.put(record.key(), outcome.state());
      }
      context.forward(record.withValue((Object) outcome.event()), StoreTopology.EVENTS_SINK);
      project(record, current, outcome.state());
    }
    if (record.value().getReplyPartition() != null) {
      // The result is this command's own, made for it: set in place rather than deep-copied with
      // the object it carries.
      CommandResult result = outcome.result();
      result.setReplyPartition(record.value().getReplyPartition());
      context.forward(
          new Record<String, Object>(record.value().getId(), result, record.timestamp()),
          StoreTopology.RESULTS_SINK);
    }
  }

  /**
   * The bindings projection: a pod bound to a node is published under {@code node/key}, and a
   * tombstone replaces it when the pod is removed or moves off that node.
   */
  private void project(
      Record<String, ResourceCommand> record, ResourceEvent before, ResourceEvent after) {
    String oldNode = nodeOf(before);
    String newNode = nodeOf(after);
    if (oldNode != null && !oldNode.equals(newNode)) {
      context.forward(
          new Record<String, Object>(
              BindingKey.of(oldNode, record.key()), null, record.timestamp()),
          StoreTopology.BINDINGS_SINK);
    }
    if (newNode != null) {
      context.forward(
          new Record<String, Object>(
              BindingKey.of(newNode, record.key()), KindObjects.of(after), record.timestamp()),
          StoreTopology.BINDINGS_SINK);
    }
  }

  private static String nodeOf(ResourceEvent state) {
    if (state == null || !(KindObjects.of(state) instanceof Pod pod) || pod.getSpec() == null) {
      return null;
    }
    return pod.getSpec().getNodeName();
  }
}
