package io.streamplane.schema.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ClusterRole;
import io.streamplane.api.Pod;
import io.streamplane.schema.objects.KindObjects;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A rich, real-world manifest of every stored kind ({@code full-manifests.yaml}: pod and container
 * securityContext, topologySpreadConstraints, readinessGates, schedulingGates, ephemeralContainers,
 * a ClusterRole's aggregationRule, ...) converts to the Avro class of its kind and back to the same
 * JSON, with no field unknown: the generated schemas hold every field Kubernetes defines.
 */
class FullManifestsRoundTripTest {

  private static final KubeJson KUBE_JSON = new KubeJson();

  private static final Comparator<JsonNode> SAME_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  record Manifest(String kind, JsonNode json) {
    @Override
    public String toString() {
      return kind;
    }
  }

  static Stream<Manifest> manifests() throws IOException {
    try (InputStream in =
        FullManifestsRoundTripTest.class.getResourceAsStream("/full-manifests.yaml")) {
      return KubeJson.parseYaml(new String(in.readAllBytes(), StandardCharsets.UTF_8)).stream()
          .map(json -> new Manifest(storedKind(json.path("kind").asText()), json))
          .toList()
          .stream();
    }
  }

  @Test
  void thereIsAManifestOfEveryStoredKind() throws IOException {
    List<String> storedKinds = KindObjects.kinds().stream().map(Schema::getName).toList();

    assertThat(manifests().map(Manifest::kind)).containsExactlyInAnyOrderElementsOf(storedKinds);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("manifests")
  void manifestRoundTripsWithNoUnknownField(Manifest manifest) {
    Class<? extends SpecificRecord> type = classFor(manifest.kind());

    Decoded<? extends SpecificRecord> decoded = KUBE_JSON.toAvro(manifest.json(), type);
    JsonNode back = KUBE_JSON.toJson(decoded.record());

    assertThat(decoded.unknownFields()).isEmpty();
    assertThat(back.equals(SAME_VALUE, manifest.json()))
        .as("round trip of %s:%n  in:  %s%n  out: %s", manifest, manifest.json(), back)
        .isTrue();
  }

  @Test
  void theFieldsHandWrittenSchemasLackedReachTheTypedClasses() throws IOException {
    Pod pod = decode("Pod", Pod.class);
    ClusterRole role = decode("ClusterRole", ClusterRole.class);

    assertThat(pod.getSpec().getSecurityContext().getRunAsUser()).isEqualTo(1000L);
    assertThat(
            pod.getSpec().getContainers().get(0).getSecurityContext().getCapabilities().getDrop())
        .containsExactly("ALL");
    assertThat(pod.getSpec().getTopologySpreadConstraints().get(0).getMaxSkew()).isEqualTo(1);
    assertThat(pod.getSpec().getReadinessGates().get(0).getConditionType())
        .isEqualTo("example.com/load-balancer-ready");
    assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("runc");
    assertThat(pod.getSpec().getSchedulingGates().get(0).getName())
        .isEqualTo("example.com/quota-check");
    assertThat(pod.getSpec().getEphemeralContainers().get(0).getTargetContainerName())
        .isEqualTo("web");
    assertThat(pod.getSpec().getResourceClaims().get(0).getResourceClaimTemplateName())
        .isEqualTo("single-gpu");
    assertThat(role.getAggregationRule().getClusterRoleSelectors().get(0).getMatchLabels())
        .containsEntry("rbac.example.com/aggregate-to-monitoring", "true");
  }

  @Test
  void aMisspelledFieldNextToTheNewOnesIsStillUnknown() throws IOException {
    ObjectNode pod = (ObjectNode) manifest("Pod").deepCopy();
    ObjectNode securityContext = (ObjectNode) pod.path("spec").path("securityContext");
    securityContext.set("runAsUsr", securityContext.remove("runAsUser"));
    ObjectNode constraint =
        (ObjectNode) ((ArrayNode) pod.path("spec").path("topologySpreadConstraints")).get(0);
    constraint.put("maxSkw", 2);

    Decoded<Pod> decoded = KUBE_JSON.toAvro(pod, Pod.class);

    assertThat(decoded.unknownFields())
        .extracting(UnknownField::warning)
        .containsExactlyInAnyOrder(
            "unknown field \"spec.securityContext.runAsUsr\"",
            "unknown field \"spec.topologySpreadConstraints[0].maxSkw\"");
  }

  private static JsonNode manifest(String kind) throws IOException {
    return manifests().filter(m -> m.kind().equals(kind)).findFirst().orElseThrow().json();
  }

  private static <T extends SpecificRecord> T decode(String kind, Class<T> type)
      throws IOException {
    Decoded<T> decoded = KUBE_JSON.toAvro(manifest(kind), type);
    assertThat(decoded.unknownFields()).isEmpty();
    return decoded.record();
  }

  @SuppressWarnings("unchecked")
  /** The stored kind of a manifest: its own, or CustomObject for a kind a definition defines. */
  private static String storedKind(String kind) {
    try {
      Class.forName("io.streamplane.api." + kind);
      return kind;
    } catch (ClassNotFoundException e) {
      return "CustomObject";
    }
  }

  private static Class<? extends SpecificRecord> classFor(String kind) {
    if (kind.equals("CustomObject")) {
      return io.streamplane.log.CustomObject.class;
    }
    try {
      return (Class<? extends SpecificRecord>) Class.forName("io.streamplane.api." + kind);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("no Avro class for kind " + kind, e);
    }
  }
}
