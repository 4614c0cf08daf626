package io.streamplane.schema.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every manifest in the repository's {@code examples/} converts to the Avro class of its kind and
 * back to the same JSON, with nothing reported as unknown: the schema models what people apply.
 */
class ExamplesRoundTripTest {

  private static final KubeJson KUBE_JSON = new KubeJson();

  /** Numbers compare by value (an int field parsed as IntNode, a long written as LongNode). */
  private static final Comparator<JsonNode> SAME_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  record Document(String name, JsonNode json) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Document> examples() throws IOException {
    Path examples = repoRoot().resolve("examples");
    List<Document> documents = new ArrayList<>();
    try (Stream<Path> files = Files.list(examples)) {
      for (Path file : files.sorted().toList()) {
        String name = file.getFileName().toString();
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (name.endsWith(".json")) {
          documents.add(new Document(name, KubeJson.parseJson(text)));
        } else if (name.endsWith(".yaml") || name.endsWith(".yml")) {
          List<JsonNode> parsed = KubeJson.parseYaml(text);
          for (int i = 0; i < parsed.size(); i++) {
            documents.add(new Document(name + "#" + i, parsed.get(i)));
          }
        }
      }
    }
    return documents.stream();
  }

  @Test
  void examplesCoverTheKindsTheBriefListsInBothFormats() throws IOException {
    List<String> kinds = examples().map(d -> d.json().path("kind").asText()).distinct().toList();
    assertThat(kinds)
        .contains(
            "Deployment",
            "Pod",
            "Namespace",
            "ConfigMap",
            "Secret",
            "Node",
            "Lease",
            "Event",
            "Role",
            "RoleBinding",
            "ResourceQuota",
            "LimitRange");
    assertThat(examples().filter(d -> d.name().endsWith(".json"))).hasSizeGreaterThanOrEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleRoundTripsThroughTheAvroClassOfItsKind(Document document) {
    Class<? extends SpecificRecord> type = classFor(document.json().path("kind").asText());

    Decoded<? extends SpecificRecord> decoded = KUBE_JSON.toAvro(document.json(), type);
    JsonNode back = KUBE_JSON.toJson(decoded.record());

    assertThat(decoded.record()).isInstanceOf(type);
    assertThat(decoded.unknownFields()).isEmpty();
    assertThat(back.equals(SAME_VALUE, document.json()))
        .as("round trip of %s:%n  in:  %s%n  out: %s", document, document.json(), back)
        .isTrue();
  }

  @Test
  void misspelledFieldsInAManifestAreReportedByPath() throws IOException {
    String text;
    try (var in = getClass().getResourceAsStream("/misspelled-deployment.yaml")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    JsonNode json = KubeJson.parseYaml(text).get(0);

    Decoded<io.streamplane.api.Deployment> decoded =
        KUBE_JSON.toAvro(json, io.streamplane.api.Deployment.class);

    assertThat(decoded.unknownFields())
        .extracting(UnknownField::warning)
        .containsExactly(
            "unknown field \"metadata.lables\"",
            "unknown field \"spec.template.spec.containers[0].imagePullPolcy\"");
    assertThat(decoded.record().getSpec().getReplicas()).isEqualTo(2);
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends SpecificRecord> classFor(String kind) {
    try {
      return (Class<? extends SpecificRecord>) Class.forName("io.streamplane.api." + kind);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("no Avro class for kind " + kind, e);
    }
  }

  private static Path repoRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("examples"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new UncheckedIOException(
        new IOException("no examples/ above " + Path.of("").toAbsolutePath()));
  }
}
