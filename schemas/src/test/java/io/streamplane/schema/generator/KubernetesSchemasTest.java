package io.streamplane.schema.generator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1beta1Rbac;
import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.EmptyDirVolumeSource;
import io.streamplane.api.Event;
import io.streamplane.api.HTTPGetAction;
import io.streamplane.api.LeaseSpec;
import io.streamplane.api.ManagedFieldsEntry;
import io.streamplane.api.NodeSystemInfo;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSecurityContext;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PolicyRule;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.api.RoleRef;
import io.streamplane.api.RollingUpdateDeployment;
import io.streamplane.api.Secret;
import io.streamplane.schema.history.ShippedSchemas;
import io.streamplane.schema.objects.KindObjects;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The records generated from Kubernetes' definitions (module schemas-generator), checked on the
 * compiled classes the rest of Streamplane uses: each mapping rule, the required fields taken from
 * the official Java client, the naming of shared names, and that no field of the official models is
 * missing.
 */
class KubernetesSchemasTest {

  /** The one non-null branch of an optional field's union. */
  private static Schema typeOf(Schema record, String field) {
    Schema.Field f = record.getField(field);
    assertThat(f).as("%s.%s", record.getName(), field).isNotNull();
    assertThat(f.defaultVal()).as("default of %s.%s", record.getName(), field).isNotNull();
    List<Schema> branches = f.schema().getTypes();
    assertThat(branches.get(0).getType()).isEqualTo(Schema.Type.NULL);
    return branches.size() == 2 ? branches.get(1) : f.schema();
  }

  private static String logicalType(Schema schema) {
    return schema.getProp("logicalType");
  }

  @Nested
  class Mapping {

    @Test
    void quantitiesAreStringsTaggedK8sQuantity() {
      Schema sizeLimit = typeOf(EmptyDirVolumeSource.getClassSchema(), "sizeLimit");
      Schema limits = typeOf(ResourceRequirements.getClassSchema(), "limits");

      assertThat(sizeLimit.getType()).isEqualTo(Schema.Type.STRING);
      assertThat(logicalType(sizeLimit)).isEqualTo("k8s-quantity");
      assertThat(limits.getType()).isEqualTo(Schema.Type.MAP);
      assertThat(logicalType(limits.getValueType())).isEqualTo("k8s-quantity");
    }

    @Test
    void intOrStringIsAUnionOfNullIntAndString() {
      for (Schema.Field field :
          List.of(
              HTTPGetAction.getClassSchema().getField("port"),
              RollingUpdateDeployment.getClassSchema().getField("maxSurge"))) {
        assertThat(field.schema().getTypes())
            .extracting(Schema::getType)
            .containsExactly(Schema.Type.NULL, Schema.Type.INT, Schema.Type.STRING);
      }
    }

    @Test
    void timeIsTimestampMillisAndMicroTimeTimestampMicros() {
      Schema created = typeOf(ObjectMeta.getClassSchema(), "creationTimestamp");
      Schema renewed = typeOf(LeaseSpec.getClassSchema(), "renewTime");
      Schema eventTime = typeOf(Event.getClassSchema(), "eventTime");
      Schema lastTimestamp = typeOf(Event.getClassSchema(), "lastTimestamp");

      assertThat(created.getType()).isEqualTo(Schema.Type.LONG);
      assertThat(created.getLogicalType().getName()).isEqualTo("timestamp-millis");
      assertThat(lastTimestamp.getLogicalType().getName()).isEqualTo("timestamp-millis");
      assertThat(renewed.getLogicalType().getName()).isEqualTo("timestamp-micros");
      assertThat(eventTime.getLogicalType().getName()).isEqualTo("timestamp-micros");
    }

    @Test
    void bytesStayBytesAndProtoMapsAreMapsWithStringKeys() {
      Schema secretData = typeOf(Secret.getClassSchema(), "data");
      Schema binaryData = typeOf(ConfigMap.getClassSchema(), "binaryData");
      Schema labels = typeOf(ObjectMeta.getClassSchema(), "labels");

      assertThat(secretData.getType()).isEqualTo(Schema.Type.MAP);
      assertThat(secretData.getValueType().getType()).isEqualTo(Schema.Type.BYTES);
      assertThat(binaryData.getValueType().getType()).isEqualTo(Schema.Type.BYTES);
      assertThat(labels.getValueType().getType()).isEqualTo(Schema.Type.STRING);
    }

    @Test
    void repeatedFieldsAreArraysOfNonNullItems() {
      Schema containers = typeOf(PodSpec.getClassSchema(), "containers");

      assertThat(containers.getType()).isEqualTo(Schema.Type.ARRAY);
      assertThat(containers.getElementType().getFullName())
          .isEqualTo("io.streamplane.api.Container");
    }

    @Test
    void managedFieldsEntryIsTheOneShippedWithFieldsV1AsK8sJson() {
      Schema shipped =
          shippedRecord("io.streamplane.api.Pod", "io.streamplane.api.ManagedFieldsEntry");
      Schema generated = ManagedFieldsEntry.getClassSchema();

      assertThat(describe(generated)).isEqualTo(describe(shipped));
      assertThat(logicalType(typeOf(generated, "fieldsV1"))).isEqualTo("k8s-json");
    }

    @Test
    void rawExtensionIsK8sJsonLikeFieldsV1() {
      Schema revision = generated(V1Apps.ControllerRevision.getDescriptor(), "ControllerRevision");

      Schema data = typeOf(revision, "data");
      assertThat(data.getType()).isEqualTo(Schema.Type.STRING);
      assertThat(logicalType(data)).isEqualTo("k8s-json");
    }

    @Test
    void kindsCarryApiVersionAndKindFirstAndTheirPartsDoNot() {
      assertThat(Pod.getClassSchema().getFields().subList(0, 3))
          .extracting(Schema.Field::name)
          .containsExactly("apiVersion", "kind", "metadata");
      assertThat(PodSpec.getClassSchema().getField("kind")).isNull();
    }

    @Test
    void goEmbeddedStructsAreFlattenedAsInJson() {
      // VolumeSource is embedded in Volume, ProbeHandler in Probe, EphemeralContainerCommon in
      // EphemeralContainer: their fields are the outer object's in JSON.
      assertThat(io.streamplane.api.Volume.getClassSchema().getField("emptyDir")).isNotNull();
      assertThat(io.streamplane.api.Volume.getClassSchema().getField("volumeSource")).isNull();
      assertThat(io.streamplane.api.Probe.getClassSchema().getField("httpGet")).isNotNull();
      assertThat(io.streamplane.api.EphemeralContainer.getClassSchema().getField("image"))
          .isNotNull();
      assertThat(
              io.streamplane.api.EphemeralContainer.getClassSchema()
                  .getField("targetContainerName"))
          .isNotNull();
    }

    @Test
    void fieldsOnlyTheOfficialModelsKnowAreTypedFromThem() {
      // Absent from client-java-proto 24.0.0, present in client-java-api 24.0.0.
      assertThat(typeOf(PodSecurityContext.getClassSchema(), "supplementalGroupsPolicy").getType())
          .isEqualTo(Schema.Type.STRING);
      Schema image = typeOf(io.streamplane.api.Volume.getClassSchema(), "image");
      assertThat(image.getFullName()).isEqualTo("io.streamplane.api.ImageVolumeSource");
      assertThat(image.getField("reference")).isNotNull();
    }
  }

  @Nested
  class AlwaysWritten {

    @Test
    void everyFieldTaggedByHandBeforeGenerationIsStillTagged() {
      // The fields kubernetes.avdl tagged @k8s-always(true) when it was written by hand.
      assertThat(always(NodeSystemInfo.getClassSchema()))
          .containsAll(
              List.of(
                  "machineID",
                  "systemUUID",
                  "bootID",
                  "kernelVersion",
                  "osImage",
                  "containerRuntimeVersion",
                  "kubeletVersion",
                  "kubeProxyVersion",
                  "operatingSystem",
                  "architecture"));
    }

    @Test
    void requiredFieldsOfTheOfficialModelsAreTaggedAndOnlyThose() {
      assertThat(always(Container.getClassSchema())).containsExactly("name");
      assertThat(always(PolicyRule.getClassSchema())).containsExactly("verbs");
      assertThat(always(RoleRef.getClassSchema()))
          .containsExactlyInAnyOrder("apiGroup", "kind", "name");
      assertThat(always(ObjectMeta.getClassSchema())).isEmpty();
      assertThat(always(PodSpec.getClassSchema())).containsExactly("containers");
    }

    @Test
    void theTagFollowsApiModelPropertyRequiredOnEveryModelReached() throws Exception {
      List<String> mismatches = new ArrayList<>();
      for (Schema record : storedRecords()) {
        Class<?> model = modelOf(record);
        if (model == null) {
          continue;
        }
        Set<String> required = new TreeSet<>();
        for (Method getter : model.getMethods()) {
          io.swagger.annotations.ApiModelProperty property =
              getter.getAnnotation(io.swagger.annotations.ApiModelProperty.class);
          if (property != null && property.required()) {
            required.add(jsonNameOfGetter(model, getter));
          }
        }
        if (!required.equals(always(record))) {
          mismatches.add(record.getName() + ": model " + required + ", schema " + always(record));
        }
      }
      assertThat(mismatches).isEmpty();
    }
  }

  @Nested
  class Completeness {

    @Test
    void everyRecordHasEveryFieldOfItsOfficialModel() {
      List<String> missing = new ArrayList<>();
      int checked = 0;
      for (Schema record : storedRecords()) {
        Class<?> model = modelOf(record);
        if (model == null) {
          continue;
        }
        checked++;
        Set<String> names = new HashSet<>();
        record.getFields().forEach(f -> names.add(f.name()));
        for (String field : openapiFields(model)) {
          if (!names.contains(field)) {
            missing.add(record.getName() + "." + field);
          }
        }
      }
      assertThat(checked).isGreaterThan(150);
      assertThat(missing).isEmpty();
    }

    @Test
    void everyStoredKindIsAKindTheLogCarries() {
      List<String> kinds =
          new java.util.ArrayList<>(
              StoredKinds.all().stream().map(d -> "io.streamplane.api." + d.getName()).toList());
      // Every custom object, of whatever definition, is stored as this one hand-written kind.
      kinds.add("io.streamplane.log.CustomObject");

      assertThat(KindObjects.kinds())
          .extracting(Schema::getFullName)
          .containsExactlyInAnyOrderElementsOf(kinds);
    }
  }

  @Nested
  class Names {

    @Test
    void aSharedSimpleNameStaysWithThePackageOfHigherPrecedence() {
      var names =
          new RecordNames(
              List.of(V1beta1Rbac.Subject.getDescriptor(), V1Rbac.Subject.getDescriptor()));

      assertThat(names.of(V1Rbac.Subject.getDescriptor())).isEqualTo("Subject");
      assertThat(names.of(V1beta1Rbac.Subject.getDescriptor())).isEqualTo("RbacV1beta1Subject");
    }

    @Test
    void coreKeepsItsNameAgainstAnyOtherGroup() {
      var names =
          new RecordNames(
              List.of(
                  V1beta1Rbac.Role.getDescriptor(),
                  V1.Event.getDescriptor(),
                  V1.Pod.getDescriptor()));

      assertThat(names.of(V1.Event.getDescriptor())).isEqualTo("Event");
      assertThat(names.of(V1beta1Rbac.Role.getDescriptor())).isEqualTo("Role");
      assertThat(RecordNames.qualified(V1beta1Rbac.Role.getDescriptor()))
          .isEqualTo("RbacV1beta1Role");
    }

    @Test
    void theGeneratedIdlNamesEveryRecordOnce() throws Exception {
      List<Schema> records = KubernetesSchemas.stored();
      Set<String> names = new HashSet<>();
      records.forEach(r -> assertThat(names.add(r.getFullName())).as(r.getFullName()).isTrue());
      assertThat(GenerateKubernetesIdl.idl(records)).contains("record PodSpec {");
    }
  }

  // ---------------------------------------------------------------- helpers

  private static Set<String> always(Schema record) {
    Set<String> tagged = new TreeSet<>();
    for (Schema.Field field : record.getFields()) {
      if (Boolean.TRUE.equals(field.getObjectProp("k8s-always"))) {
        tagged.add(field.name());
      }
    }
    return tagged;
  }

  /** Every record of the stored kinds, as compiled. */
  private static List<Schema> storedRecords() {
    Map<String, Schema> records = new LinkedHashMap<>();
    KindObjects.kinds().forEach(kind -> collect(kind, records));
    return List.copyOf(records.values());
  }

  private static void collect(Schema schema, Map<String, Schema> records) {
    switch (schema.getType()) {
      case RECORD -> {
        if (records.putIfAbsent(schema.getFullName(), schema) == null) {
          schema.getFields().forEach(f -> collect(f.schema(), records));
        }
      }
      case UNION -> schema.getTypes().forEach(t -> collect(t, records));
      case ARRAY -> collect(schema.getElementType(), records);
      case MAP -> collect(schema.getValueType(), records);
      default -> {}
    }
  }

  /** The client-java-api model of a record, by the client's name for it, or null. */
  private static Class<?> modelOf(Schema record) {
    // A record of autoscaling/v2 has its own models (V2MetricSpec); V1HorizontalPodAutoscalerSpec
    // is autoscaling/v1's, another shape.
    List<String> candidates =
        record.getDoc() != null && record.getDoc().contains(".v2.")
            ? List.of("V2" + record.getName())
            : List.of(
                "V1" + record.getName(), "CoreV1" + record.getName(), "RbacV1" + record.getName());
    for (String name : candidates) {
      try {
        return Class.forName(KubernetesModels.MODELS + name);
      } catch (ClassNotFoundException e) {
        // next candidate
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private static Set<String> openapiFields(Class<?> model) {
    try {
      return (Set<String>) model.getField("openapiFields").get(null);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  /** The JSON name of a model getter: the {@code @SerializedName} of the field it returns. */
  private static String jsonNameOfGetter(Class<?> model, Method getter) throws Exception {
    String property = getter.getName().replaceFirst("^(get|is)", "");
    for (var field : model.getDeclaredFields()) {
      if (field.getName().equalsIgnoreCase(property)) {
        return field.getAnnotation(com.google.gson.annotations.SerializedName.class).value();
      }
    }
    throw new AssertionError("no field behind " + model.getSimpleName() + "." + getter.getName());
  }

  private static Schema shippedRecord(String topLevel, String fullName) {
    List<Schema> versions = ShippedSchemas.byName().get(topLevel);
    Map<String, Schema> records = new LinkedHashMap<>();
    collect(versions.get(versions.size() - 1), records);
    return records.get(fullName);
  }

  /** Field names with their types, logical types and defaults, docs and string props left out. */
  private static List<String> describe(Schema record) {
    List<String> fields = new ArrayList<>();
    for (Schema.Field field : record.getFields()) {
      StringBuilder type = new StringBuilder(field.name()).append(':');
      for (Schema branch : field.schema().getTypes()) {
        type.append(branch.getType()).append('/').append(logicalType(branch)).append(' ');
      }
      fields.add(type.append("default=").append(field.defaultVal()).toString());
    }
    return fields;
  }

  private static Schema generated(com.google.protobuf.Descriptors.Descriptor kind, String name) {
    return KubernetesSchemas.of(List.of(kind)).stream()
        .filter(r -> r.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
