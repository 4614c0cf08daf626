package io.streamplane.schema.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.Deployment;
import io.streamplane.api.HTTPGetAction;
import io.streamplane.api.LeaseSpec;
import io.streamplane.api.Namespace;
import io.streamplane.api.Node;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.api.RollingUpdateDeployment;
import io.streamplane.api.Secret;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.ResourceCommand;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The conversion rules of {@link KubeJson}, one group per rule. */
class KubeJsonTest {

  private final KubeJson kubeJson = new KubeJson();

  private static JsonNode json(String text) {
    return KubeJson.parseJson(text);
  }

  private static JsonNode yaml(String text) {
    return KubeJson.parseYaml(text).get(0);
  }

  private <T extends org.apache.avro.specific.SpecificRecord> T decode(String text, Class<T> type) {
    Decoded<T> decoded = kubeJson.toAvro(yaml(text), type);
    assertThat(decoded.unknownFields()).isEmpty();
    return decoded.record();
  }

  private ConversionException failure(
      String text, Class<? extends org.apache.avro.specific.SpecificRecord> type) {
    try {
      kubeJson.toAvro(yaml(text), type);
    } catch (ConversionException e) {
      return e;
    }
    throw new AssertionError("expected a ConversionException for " + text);
  }

  @Nested
  class ResourceQuantities {

    @Test
    void yamlNumbersBecomeCanonicalQuantityStrings() {
      ResourceRequirements resources =
          decode(
              "limits: {cpu: 1, memory: 1000, ephemeral: 128974848}\n"
                  + "requests: {cpu: 0.5, gpu: 1.5, tiny: 0.0001}",
              ResourceRequirements.class);

      assertThat(resources.getLimits())
          .containsExactly(
              Map.entry("cpu", "1"),
              Map.entry("memory", "1k"),
              Map.entry("ephemeral", "128974848"));
      assertThat(resources.getRequests())
          .containsExactly(
              Map.entry("cpu", "500m"), Map.entry("gpu", "1500m"), Map.entry("tiny", "100u"));
    }

    @Test
    void quantityStringsAreKeptAsWritten() {
      ResourceRequirements resources =
          decode(
              "limits: {cpu: 250m, memory: 128Mi, storage: \"1e3\"}", ResourceRequirements.class);

      assertThat(resources.getLimits())
          .containsEntry("cpu", "250m")
          .containsEntry("memory", "128Mi");
      assertThat(kubeJson.toJson(resources))
          .isEqualTo(
              json("{\"limits\":{\"cpu\":\"250m\",\"memory\":\"128Mi\",\"storage\":\"1e3\"}}"));
    }

    @Test
    void malformedQuantityIsRejectedWithKubernetesMessageAndPath() {
      ConversionException e = failure("limits: {cpu: lots}", ResourceRequirements.class);

      assertThat(e.path()).isEqualTo("limits[cpu]");
      assertThat(e.problem()).startsWith("quantities must match the regular expression");
    }

    @Test
    void numbersAreNotAcceptedForPlainStrings() {
      ConversionException e = failure("name: web\nimage: 5", Container.class);

      assertThat(e).hasMessage("image: expected string, got number 5");
    }
  }

  @Nested
  class RawJson {

    @Test
    void managedFieldsKeepTheirFieldSetAsJson() {
      String fields = "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{}}";
      ObjectMeta meta =
          decode(
              "{\"name\":\"web\",\"managedFields\":[{\"manager\":\"kubectl\","
                  + "\"operation\":\"Apply\",\"fieldsType\":\"FieldsV1\","
                  + "\"fieldsV1\":"
                  + fields
                  + "}]}",
              ObjectMeta.class);

      assertThat(meta.getManagedFields().get(0).getFieldsV1()).isEqualTo(fields);
      assertThat(kubeJson.toJson(meta).path("managedFields").get(0).path("fieldsV1"))
          .isEqualTo(json(fields));
    }

    @Test
    void aFieldSetMustBeAnObject() {
      ConversionException e = failure("managedFields: [{fieldsV1: \"f:spec\"}]", ObjectMeta.class);

      assertThat(e).hasMessage("managedFields[0].fieldsV1: expected object, got string \"f:spec\"");
    }
  }

  @Nested
  class IntOrString {

    @Test
    void numberTakesTheIntBranchAndStringTheStringBranch() {
      RollingUpdateDeployment rolling =
          decode("maxSurge: 1\nmaxUnavailable: 25%", RollingUpdateDeployment.class);

      assertThat(rolling.getMaxSurge()).isEqualTo(1);
      assertThat(rolling.getMaxUnavailable()).isEqualTo("25%");
    }

    @Test
    void eachBranchIsWrittenBackAsItsJsonType() {
      HTTPGetAction named = decode("port: http", HTTPGetAction.class);
      HTTPGetAction numbered = decode("port: 8080", HTTPGetAction.class);

      assertThat(kubeJson.toJson(named).get("port").isTextual()).isTrue();
      assertThat(kubeJson.toJson(numbered).get("port").isInt()).isTrue();
    }

    @Test
    void aFractionFitsNeitherBranch() {
      ConversionException e = failure("port: 80.5", HTTPGetAction.class);

      assertThat(e).hasMessage("port: expected integer or string, got number 80.5");
    }
  }

  @Nested
  class Timestamps {

    @Test
    void metav1TimeIsReadWithAnyOffsetAndWrittenInUtcSeconds() {
      ObjectMeta meta =
          decode("creationTimestamp: 2024-05-01T12:00:00.750+02:00", ObjectMeta.class);

      assertThat(meta.getCreationTimestamp()).isEqualTo(Instant.parse("2024-05-01T10:00:00Z"));
      assertThat(kubeJson.toJson(meta).get("creationTimestamp").textValue())
          .isEqualTo("2024-05-01T10:00:00Z");
    }

    @Test
    void microTimeKeepsMicrosecondsAndIsWrittenWithSixDigits() {
      LeaseSpec spec =
          decode(
              "renewTime: 2024-05-01T10:00:00.123456789Z\nacquireTime: 2024-05-01T10:00:00Z",
              LeaseSpec.class);

      assertThat(spec.getRenewTime()).isEqualTo(Instant.parse("2024-05-01T10:00:00.123456Z"));
      JsonNode back = kubeJson.toJson(spec);
      assertThat(back.get("renewTime").textValue()).isEqualTo("2024-05-01T10:00:00.123456Z");
      assertThat(back.get("acquireTime").textValue()).isEqualTo("2024-05-01T10:00:00.000000Z");
    }

    @Test
    void genericRecordsHoldEpochLongs() {
      Schema schema =
          new Schema.Parser()
              .parse(
                  """
                  {"type": "record", "name": "Stamped", "namespace": "test.generic", "fields": [
                    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                    {"name": "micro", "type": {"type": "long", "logicalType": "timestamp-micros"}}
                  ]}""");
      JsonNode input =
          json("{\"at\":\"2024-05-01T10:00:00Z\",\"micro\":\"2024-05-01T10:00:00.000001Z\"}");

      GenericRecord record = kubeJson.toAvro(input, schema).record();

      assertThat(record).isInstanceOf(GenericData.Record.class);
      assertThat(record.get("at")).isEqualTo(1714557600000L);
      assertThat(record.get("micro")).isEqualTo(1714557600000001L);
      assertThat(kubeJson.toJson(record)).isEqualTo(input);
    }

    @Test
    void unparsableTimestampNamesTheField() {
      ConversionException e = failure("creationTimestamp: yesterday", ObjectMeta.class);

      assertThat(e)
          .hasMessage("creationTimestamp: cannot parse \"yesterday\" as an RFC 3339 timestamp");
    }
  }

  @Nested
  class Bytes {

    @Test
    void secretDataIsBase64InJsonAndRawBytesInAvro() {
      Secret secret = decode("data: {password: czNjcjN0IQ==}", Secret.class);

      ByteBuffer password = secret.getData().get("password");
      assertThat(StandardCharsets.UTF_8.decode(password.duplicate()).toString())
          .isEqualTo("s3cr3t!");
      assertThat(kubeJson.toJson(secret))
          .isEqualTo(json("{\"data\":{\"password\":\"czNjcjN0IQ==\"}}"));
      assertThat(password.position()).as("writing JSON leaves the buffer unread").isZero();
    }

    @Test
    void invalidBase64IsATypeErrorAtTheMapKey() {
      ConversionException e = failure("data: {password: \"not base64!\"}", Secret.class);

      assertThat(e.path()).isEqualTo("data[password]");
      assertThat(e.problem()).startsWith("illegal base64 data");
    }
  }

  @Nested
  class UnionsOfRecords {

    /**
     * A record holding a union of kinds, as envelopes of the log did before they encoded objects.
     */
    private final Schema holder =
        SchemaBuilder.record("Holder")
            .namespace("io.streamplane.test")
            .fields()
            .name("object")
            .type(
                Schema.createUnion(
                    Schema.create(Schema.Type.NULL),
                    Namespace.getClassSchema(),
                    Pod.getClassSchema(),
                    Deployment.getClassSchema()))
            .withDefault(null)
            .endRecord();

    private GenericRecord object(String text) {
      Decoded<GenericRecord> decoded = kubeJson.toAvro(yaml(text), holder);
      assertThat(decoded.unknownFields()).isEmpty();
      return (GenericRecord) decoded.record().get("object");
    }

    private ConversionException failure(String text) {
      try {
        kubeJson.toAvro(yaml(text), holder);
      } catch (ConversionException e) {
        return e;
      }
      throw new AssertionError("expected a ConversionException for " + text);
    }

    @Test
    void theObjectsKindPicksTheBranch() {
      GenericRecord pod = object("object: {kind: Pod, metadata: {name: web}}");

      assertThat(pod.getSchema().getName()).isEqualTo("Pod");
      assertThat(((GenericRecord) pod.get("metadata")).get("name").toString()).isEqualTo("web");
    }

    @Test
    void aMissingKindIsAClearError() {
      ConversionException e = failure("object: {metadata: {name: web}}");

      assertThat(e.path()).isEqualTo("object");
      assertThat(e.problem()).startsWith("\"kind\" is required").contains("Pod", "Deployment");
    }

    @Test
    void aKindOutsideTheUnionIsAClearError() {
      ConversionException e = failure("object: {kind: Service}");

      assertThat(e)
          .hasMessageStartingWith("object: kind \"Service\", expected one of: Namespace, Pod");
    }
  }

  @Nested
  class UnknownFields {

    @Test
    void unknownFieldsAreDroppedAndReportedWithKubernetesPaths() {
      Decoded<Deployment> decoded =
          kubeJson.toAvro(
              yaml(
                  """
                  kind: Deployment
                  colour: blue
                  spec:
                    replicas: 1
                    template:
                      spec:
                        containers:
                        - name: a
                        - name: b
                          imagePullPolcy: Always
                          extra: {nested: {deep: 1}}
                  """),
              Deployment.class);

      assertThat(decoded.unknownFields())
          .extracting(UnknownField::path)
          .containsExactly(
              "colour",
              "spec.template.spec.containers[1].imagePullPolcy",
              "spec.template.spec.containers[1].extra");
      assertThat(kubeJson.toJson(decoded.record()).toString()).doesNotContain("colour", "Polcy");
    }

    @Test
    void unknownFieldsInsideMapValuesUseTheKeyInBrackets() {
      Schema schema =
          new Schema.Parser()
              .parse(
                  """
                  {"type": "record", "name": "Holder", "namespace": "test.generic", "fields": [
                    {"name": "byName", "type": {"type": "map", "values":
                      {"type": "record", "name": "Item", "fields": [{"name": "n", "type": "int"}]}}}
                  ]}""");

      Decoded<GenericRecord> decoded =
          kubeJson.toAvro(json("{\"byName\":{\"a.b\":{\"n\":1,\"m\":2}}}"), schema);

      assertThat(decoded.unknownFields()).containsExactly(new UnknownField("byName[a.b].m"));
      assertThat(decoded.unknownFields().get(0).warning())
          .isEqualTo("unknown field \"byName[a.b].m\"");
    }
  }

  @Nested
  class TypeErrors {

    @Test
    void aStringWhereAnIntegerBelongsNamesPathAndValue() {
      ConversionException e = failure("spec: {replicas: two}", Deployment.class);

      assertThat(e.path()).isEqualTo("spec.replicas");
      assertThat(e).hasMessage("spec.replicas: expected integer, got string \"two\"");
    }

    @Test
    void errorsInsideListsCarryTheIndex() {
      ConversionException e =
          failure(
              "spec: {containers: [{name: a}, {name: b, ports: [{containerPort: \"80\"}]}]}",
              Pod.class);

      assertThat(e)
          .hasMessage(
              "spec.containers[1].ports[0].containerPort: expected integer, got string \"80\"");
    }

    @Test
    void structuralMismatchesAreTypeErrors() {
      assertThat(failure("spec: {containers: {name: a}}", Pod.class))
          .hasMessage("spec.containers: expected array, got object");
      assertThat(failure("metadata: [a]", Pod.class))
          .hasMessage("metadata: expected object, got array");
      assertThat(failure("spec: {hostNetwork: \"yes\"}", Pod.class))
          .hasMessage("spec.hostNetwork: expected boolean, got string \"yes\"");
    }

    @Test
    void integersOutsideInt32AreRejected() {
      assertThat(failure("spec: {replicas: 3000000000}", Deployment.class))
          .hasMessage("spec.replicas: value 3000000000 overflows int32");
    }

    @Test
    void aDocumentThatIsNotAnObjectIsATypeErrorAtTheRoot() {
      assertThatThrownBy(() -> kubeJson.toAvro(json("[1, 2]"), Pod.class))
          .isInstanceOf(ConversionException.class)
          .hasMessage("expected object, got array");
    }

    @Test
    void missingRequiredFieldsAreNamed() {
      ConversionException e =
          failure(
              "verb: CREATE\nresource: pods\nname: web\nactor: {username: a}",
              ResourceCommand.class);

      assertThat(e.path()).isEqualTo("id");
      assertThat(e).hasMessage("id: Required value");
    }

    @Test
    void unknownEnumSymbolsListTheSupportedValues() {
      ConversionException e =
          failure(
              "id: c\nverb: PATCH\nresource: pods\nname: web\nactor: {username: a}",
              ResourceCommand.class);

      assertThat(e)
          .hasMessageStartingWith(
              "verb: Unsupported value: \"PATCH\": supported values: \"UNKNOWN\", \"CREATE\"");
    }

    @Test
    void requiredTimestampsAreRequiredToo() {
      assertThatThrownBy(() -> kubeJson.toAvro(json("{\"level\":\"Metadata\"}"), AuditEvent.class))
          .isInstanceOf(ConversionException.class)
          .hasMessageEndingWith(": Required value");
    }
  }

  @Nested
  class NullAbsentAndEmpty {

    @Test
    void absentAndNullAreBothNullAndLeftOutOfTheJson() {
      ObjectMeta absent = decode("name: a", ObjectMeta.class);
      ObjectMeta explicitNull = decode("name: a\nlabels: null", ObjectMeta.class);

      assertThat(absent.getLabels()).isNull();
      assertThat(explicitNull.getLabels()).isNull();
      assertThat(kubeJson.toJson(explicitNull)).isEqualTo(json("{\"name\":\"a\"}"));
    }

    @Test
    void emptyOptionalMapsAndListsAreReadButWrittenAsAbsentLikeOmitempty() {
      ConfigMap configMap =
          decode("metadata: {labels: {}, finalizers: []}\ndata: {}", ConfigMap.class);

      assertThat(configMap.getData()).isEmpty();
      assertThat(configMap.getMetadata().getFinalizers()).isEmpty();
      assertThat(kubeJson.toJson(configMap)).isEqualTo(json("{\"metadata\":{}}"));
    }

    @Test
    void everyNodeSystemInfoFieldIsWrittenEvenWhenEmptyAsKubernetesDoes() {
      Node node = decode("status: {nodeInfo: {kubeletVersion: v1.32.0}}", Node.class);

      JsonNode nodeInfo = kubeJson.toJson(node).path("status").path("nodeInfo");

      assertThat(nodeInfo.path("kubeletVersion").asText()).isEqualTo("v1.32.0");
      assertThat(nodeInfo.path("kubeProxyVersion").isTextual()).isTrue();
      assertThat(nodeInfo.path("kubeProxyVersion").asText()).isEmpty();
      List<String> written = new java.util.ArrayList<>();
      nodeInfo.fieldNames().forEachRemaining(written::add);
      assertThat(written)
          .containsExactlyInAnyOrder(
              "machineID",
              "systemUUID",
              "bootID",
              "kernelVersion",
              "osImage",
              "containerRuntimeVersion",
              "kubeletVersion",
              "kubeProxyVersion",
              "operatingSystem",
              "architecture");
    }

    @Test
    void aRequiredListIsWrittenEvenWhenEmptyAndAnOptionalOneIsNot() {
      io.streamplane.api.ClusterRole role =
          decode("rules: [{verbs: [], apiGroups: []}]", io.streamplane.api.ClusterRole.class);

      assertThat(kubeJson.toJson(role)).isEqualTo(json("{\"rules\":[{\"verbs\":[]}]}"));
    }

    @Test
    void requiredScalarsAreWrittenAsGoZeroValues() {
      Pod pod = decode("status: {containerStatuses: [{name: web}]}", Pod.class);

      assertThat(kubeJson.toJson(pod).path("status").path("containerStatuses").get(0))
          .isEqualTo(
              json(
                  "{\"name\":\"web\",\"ready\":false,\"restartCount\":0,\"image\":\"\","
                      + "\"imageID\":\"\"}"));
    }

    @Test
    void nullOnAFieldWithANonNullDefaultMeansTheDefault() {
      ResourceCommand command =
          decode(
              "id: c\nverb: CREATE\nresource: pods\nname: web\ngroup: null\nactor: {username: a, groups: null}",
              ResourceCommand.class);

      assertThat(command.getGroup()).isEmpty();
      assertThat(command.getActor().getGroups()).isEmpty();
    }
  }

  @Nested
  class Parsing {

    @Test
    void multiDocumentYamlYieldsEachNonEmptyDocument() {
      List<JsonNode> documents = KubeJson.parseYaml("---\nkind: A\n---\nkind: B\n---\n");

      assertThat(documents).extracting(d -> d.get("kind").asText()).containsExactly("A", "B");
    }

    @Test
    void malformedInputIsAConversionException() {
      assertThatThrownBy(() -> KubeJson.parseJson("{\"a\":"))
          .isInstanceOf(ConversionException.class);
      assertThatThrownBy(() -> KubeJson.parseYaml("a: [1,\nb: }"))
          .isInstanceOf(ConversionException.class);
    }

    @Test
    void specificClassesAreUsedForNestedRecords() {
      Pod pod = decode("metadata: {name: web}\nspec: {containers: [{name: c}]}", Pod.class);

      assertThat(pod.getMetadata()).isInstanceOf(ObjectMeta.class);
      assertThat(pod.getSpec().getContainers().get(0)).isInstanceOf(Container.class);
    }
  }
}
