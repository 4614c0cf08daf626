package io.streamplane.schema.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class KindObjectsTest {

  private static ConfigMap configMap(Map<String, String> labels) {
    return ConfigMap.newBuilder()
        .setApiVersion("v1")
        .setKind("ConfigMap")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("settings")
                .setLabels(labels)
                .setCreationTimestamp(Instant.parse("2026-01-02T03:04:05Z"))
                .build())
        .setData(Map.of("k", "v"))
        .build();
  }

  @Test
  void anObjectDecodesAsTheClassOfItsKind() {
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(ObjectMeta.newBuilder().setName("web").build())
            .setSpec(PodSpec.newBuilder().setNodeName("node-0").build())
            .build();

    assertThat(KindObjects.decode(KindObjects.encode(pod))).isEqualTo(pod);
  }

  @Test
  void mapsAreEncodedInKeyOrderWhateverTheOrderTheyWereBuiltIn() {
    Map<String, String> ab = new LinkedHashMap<>();
    ab.put("a", "1");
    ab.put("b", "2");
    Map<String, String> ba = new LinkedHashMap<>();
    ba.put("b", "2");
    ba.put("a", "1");

    assertThat(KindObjects.encode(configMap(ba))).isEqualTo(KindObjects.encode(configMap(ab)));
  }

  @Test
  void theSameBufferDecodesToTheSameInstanceAndAnotherBufferToAnEqualOne() {
    ByteBuffer encoded = KindObjects.encode(configMap(Map.of("app", "web")));

    assertThat(KindObjects.decode(encoded)).isSameAs(KindObjects.decode(encoded));
    ByteBuffer copy = ByteBuffer.wrap(bytes(encoded));
    assertThat(KindObjects.decode(copy))
        .isNotSameAs(KindObjects.decode(encoded))
        .isEqualTo(KindObjects.decode(encoded));
  }

  @Test
  void anUnknownKindSchemaIsAnErrorNamingItsFingerprint() {
    byte[] bytes = bytes(KindObjects.encode(configMap(Map.of())));
    bytes[2] ^= 0x55;

    assertThatThrownBy(() -> KindObjects.decode(ByteBuffer.wrap(bytes)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kind schema is unknown (fingerprint");
  }

  @Test
  void theKindsAreTheRecordsWithApiVersionKindAndMetadata() {
    assertThat(KindObjects.kinds())
        .extracting(Schema::getName)
        .contains("Pod", "Deployment", "Lease", "ClusterRoleBinding")
        .doesNotContain("ObjectMeta", "OwnerReference", "PodTemplateSpec");
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return bytes;
  }
}
