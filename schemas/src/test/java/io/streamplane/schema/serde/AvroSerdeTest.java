package io.streamplane.schema.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.log.BindRequest;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.history.ShippedSchemas;
import io.streamplane.schema.objects.KindObjects;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {

  private final InMemorySchemaCatalog catalog = new InMemorySchemaCatalog();

  @Test
  void aCommandCarryingAPodSurvivesTheRoundTrip() {
    AvroSerde<ResourceCommand> serde = new AvroSerde<>(ResourceCommand.class, catalog);
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("web")
                    .setNamespace("default")
                    .setLabels(Map.of("app", "web"))
                    .setCreationTimestamp(Instant.parse("2026-01-02T03:04:05Z"))
                    .build())
            .build();
    ResourceCommand command =
        ResourceCommand.newBuilder()
            .setId("c-1")
            .setVerb(CommandVerb.CREATE)
            .setResource("pods")
            .setNamespace("default")
            .setName("web")
            .setEncodedObject(KindObjects.encode(pod))
            .setActor(UserInfo.newBuilder().setUsername("alice").build())
            .build();

    byte[] bytes = serde.serializer().serialize("t", command);

    assertThat(bytes[0]).as("single-object encoding marker").isEqualTo((byte) 0xC3);
    assertThat(bytes[1]).isEqualTo((byte) 0x01);
    assertThat(serde.deserializer().deserialize("t", bytes)).isEqualTo(command);
  }

  @Test
  void aRecordWrittenWithAnOlderSchemaDecodesWithTheNewFieldsDefaulted() throws Exception {
    Schema older =
        new Schema.Parser()
            .parse(
                """
                {"type":"record","name":"BindRequest","namespace":"io.streamplane.log","fields":[
                  {"name":"podKey","type":"string"},{"name":"podUid","type":"string"},
                  {"name":"namespace","type":"string"},{"name":"podName","type":"string"},
                  {"name":"nodeName","type":"string"},{"name":"schedulerId","type":"string"}]}
                """);
    GenericRecord old = new GenericData.Record(older);
    old.put("podKey", "pods/default/web");
    old.put("podUid", "u1");
    old.put("namespace", "default");
    old.put("podName", "web");
    old.put("nodeName", "node-1");
    old.put("schedulerId", "s1");
    ByteBuffer encoded =
        new BinaryMessageEncoder<GenericRecord>(GenericData.get(), older).encode(old);
    catalog.register(older);

    BindRequest decoded = new AvroSerde<>(BindRequest.class, catalog).decode(toBytes(encoded));

    assertThat(decoded.getNodeName()).isEqualTo("node-1");
    assertThat(decoded.getAttempt()).isZero();
    assertThat(decoded.getRequests()).isEmpty();
  }

  @Test
  void anEventWrittenWhenEnvelopesHeldAUnionOfKindsDecodesWithItsObjectEncoded() throws Exception {
    // The last version of ResourceEvent that carried its object in a union of kinds.
    Schema legacy =
        ShippedSchemas.byName().get(ResourceEvent.getClassSchema().getFullName()).stream()
            .filter(s -> s.getField("object") != null)
            .reduce((a, b) -> b)
            .orElseThrow();
    GenericRecord written =
        new KubeJson()
            .toAvro(
                KubeJson.parseYaml(
                        """
                        type: MODIFIED
                        resource: pods
                        namespace: default
                        name: web
                        resourceVersion: 42
                        commandId: c-9
                        actor: {username: alice}
                        object:
                          kind: Pod
                          apiVersion: v1
                          metadata: {name: web, namespace: default, labels: {app: web}}
                          spec: {containers: [{name: c, image: nginx}]}
                        """)
                    .get(0),
                legacy)
            .record();
    byte[] bytes =
        toBytes(new BinaryMessageEncoder<GenericRecord>(GenericData.get(), legacy).encode(written));

    ResourceEvent event = new AvroSerde<>(ResourceEvent.class, catalog).decode(bytes);

    assertThat(event.getName()).isEqualTo("web");
    assertThat(event.getResourceVersion()).isEqualTo(42L);
    assertThat(event.getActor().getUsername()).isEqualTo("alice");
    Pod pod = (Pod) KindObjects.of(event);
    assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx");
    assertThat(event.getEncodedObject())
        .as("the same bytes the current build writes for that Pod")
        .isEqualTo(KindObjects.encode(pod));
  }

  @Test
  void aRecordWithAnUnknownSchemaFailsWithAClearError() throws Exception {
    Schema unknown =
        new Schema.Parser()
            .parse(
                "{\"type\":\"record\",\"name\":\"BindRequest\",\"namespace\":\"x\",\"fields\":"
                    + "[{\"name\":\"zzz\",\"type\":\"string\"}]}");
    GenericRecord record = new GenericData.Record(unknown);
    record.put("zzz", "?");
    byte[] bytes =
        toBytes(new BinaryMessageEncoder<GenericRecord>(GenericData.get(), unknown).encode(record));

    assertThatThrownBy(() -> new AvroSerde<>(BindRequest.class, catalog).decode(bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("cannot decode a BindRequest");
  }

  @Test
  void nullIsATombstoneBothWays() {
    AvroSerde<Pod> serde = new AvroSerde<>(Pod.class, catalog);
    assertThat(serde.encode(null)).isNull();
    assertThat(serde.decode(null)).isNull();
  }

  private static byte[] toBytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }
}
