package io.streamplane.gateway.testing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Pod;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A cluster's topics on the embedded broker, and pod events written to {@code events} directly, in
 * place of the store: for the readers of the log (watch cache, history index) tested alone.
 */
public final class EventsFixture {

  private static final KubeJson JSON = new KubeJson();

  private EventsFixture() {}

  /** Fresh topics of a cluster whose name starts with {@code prefix}. */
  public static Topics topics(EmbeddedKafkaBroker broker, String prefix) {
    Topics topics =
        new Topics(
            TopicLayout.singleBroker(KafkaBrokerExtension.uniqueName(prefix)),
            new InMemorySchemaCatalog());
    try (Admin admin = Admin.create(broker.clientProperties())) {
      new TopicInitializer(admin).ensure(topics.all());
    }
    return topics;
  }

  public static KafkaProducer<String, ResourceEvent> producer(
      EmbeddedKafkaBroker broker, Topics topics) {
    return new KafkaProducer<>(
        broker.clientProperties(),
        new StringSerializer(),
        topics.events().valueSerde().serializer());
  }

  /** The key of pod {@code name} in namespace {@code default}. */
  public static ResourceKey podKey(String name) {
    return new ResourceKey("pods", "", "default", name);
  }

  /** Appends an event of pod {@code default/name} with {@code labels}, and waits for the ack. */
  public static void appendPod(
      KafkaProducer<String, ResourceEvent> events,
      Topics topics,
      EventType type,
      String name,
      Map<String, String> labels)
      throws Exception {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode metadata = json.putObject("metadata").put("name", name).put("namespace", "default");
    if (!labels.isEmpty()) {
      ObjectNode labelsNode = metadata.putObject("labels");
      labels.forEach(labelsNode::put);
    }
    Pod pod = JSON.toAvro(json, Pod.class).record();
    ResourceEvent event =
        ResourceEvent.newBuilder()
            .setType(type)
            .setResource("pods")
            .setNamespace("default")
            .setName(name)
            .setEncodedObject(KindObjects.encode(pod))
            .setResourceVersion(0)
            .setCommandId(UUID.randomUUID().toString())
            .setActor(UserInfo.newBuilder().setUsername("test").build())
            .build();
    events.send(new ProducerRecord<>(topics.events().name(), podKey(name).toString(), event)).get();
  }
}
