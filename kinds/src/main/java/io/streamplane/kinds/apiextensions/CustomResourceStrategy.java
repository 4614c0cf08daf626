package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Cells;
import io.streamplane.kinds.printers.Column;
import io.streamplane.kinds.printers.HumanDuration;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.printers.Row;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.log.CustomObject;
import io.streamplane.log.StatusCause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * The behaviour of one served version of a custom resource, from its definition, as the gateway
 * applies it (apiextensions-apiserver's customresource strategy, table convertor and scale
 * subresource): the schema's defaults, pruning and validation ({@link StructuralSchema}), the
 * {@code additionalPrinterColumns} (Name first; Age alone when the version names none), and the
 * scale subresource's paths. The store applies {@link CustomObjectStrategy} to the same objects.
 */
public final class CustomResourceStrategy implements KindStrategy {

  private final JsonNode openApiSchema;
  private final StructuralSchema schema;
  private final boolean statusSubresource;
  private final JsonNode scale;
  private final Printer printer;
  private final String deprecationWarning;
  private final Map<String, Function<JsonNode, String>> selectableFields;

  /**
   * {@code version}: one entry of the definition's {@code spec.versions}; {@code
   * deprecationWarning}: the warning of a deprecated version, else null.
   */
  public CustomResourceStrategy(JsonNode version, String deprecationWarning) {
    this.deprecationWarning = deprecationWarning;
    this.openApiSchema = version.path("schema").path("openAPIV3Schema");
    this.schema = new StructuralSchema(openApiSchema);
    this.statusSubresource = version.path("subresources").path("status").isObject();
    this.scale = version.path("subresources").path("scale");
    this.printer = printer(version.path("additionalPrinterColumns"));
    this.selectableFields = selectableFields(version.path("selectableFields"));
  }

  /**
   * {@code metadata.name}, {@code metadata.namespace} and the version's {@code selectableFields},
   * each named by its path without the leading dot ({@code spec.color}) and read as a string, an
   * integer's or a boolean's text, or "" when absent (the strategy's {@code GetAttrs}).
   */
  private static Map<String, Function<JsonNode, String>> selectableFields(JsonNode declared) {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    for (JsonNode field : declared) {
      String jsonPath = field.path("jsonPath").asText("");
      if (jsonPath.startsWith(".")) {
        fields.put(
            jsonPath.substring(1),
            object -> {
              JsonNode value = JsonPaths.read(object, jsonPath);
              return value.isValueNode() && !value.isNull() ? value.asText() : "";
            });
      }
    }
    return Map.copyOf(fields);
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    return selectableFields;
  }

  /** As kube-apiserver's conversion of a custom resource's field labels words it. */
  @Override
  public String unknownFieldLabel(String label) {
    return "\""
        + label
        + "\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
  }

  /** The version's {@code openAPIV3Schema} as the definition gives it (shared: do not change). */
  public JsonNode openApiSchema() {
    return openApiSchema;
  }

  @Override
  public Optional<String> deprecationWarning() {
    return Optional.ofNullable(deprecationWarning);
  }

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    schema.applyDefaults(object);
  }

  @Override
  public ObjectNode defaultedOnRead(ObjectNode stored) {
    if (!schema.hasDefaults()) {
      return stored;
    }
    ObjectNode defaulted = stored.deepCopy();
    schema.applyDefaults(defaulted);
    return defaulted.equals(stored) ? stored : defaulted;
  }

  @Override
  public List<String> prune(ObjectNode object) {
    return schema.prune(object);
  }

  @Override
  public List<StatusCause> validateSchema(JsonNode object, JsonNode old) {
    return schema.validate(object, old);
  }

  @Override
  public SpecificRecord stored(SpecificRecord decoded) {
    if (statusSubresource
        || !(decoded instanceof CustomObject custom)
        || custom.getStatus() == null) {
      return decoded;
    }
    ObjectNode content = CustomObjects.parse(custom.getContent());
    content.set("status", CustomObjects.parse(custom.getStatus()));
    return CustomObject.newBuilder(custom)
        .setStatus(null)
        .setContent(CustomObjects.write(content))
        .build();
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public Object spec(SpecificRecord object) {
    return CustomObjectStrategy.STORED.spec(object);
  }

  @Override
  public Printer printer() {
    return printer;
  }

  @Override
  public boolean acceptsStrategicMergePatch() {
    return false;
  }

  @Override
  public ObjectNode scaleOf(ObjectNode object) {
    return scale.isObject() ? toScale(object) : null;
  }

  @Override
  public ObjectNode withScaleReplicas(ObjectNode object, int replicas) {
    return scale.isObject() ? withReplicas(object, replicas) : null;
  }

  /**
   * The object's autoscaling/v1 Scale: replicas read at {@code specReplicasPath} and {@code
   * statusReplicasPath}, the selector string at {@code labelSelectorPath}.
   */
  private ObjectNode toScale(ObjectNode object) {
    ObjectNode result = JsonNodeFactory.instance.objectNode();
    result.put("kind", "Scale").put("apiVersion", "autoscaling/v1");
    ObjectNode metadata = result.putObject("metadata");
    for (String field :
        List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      if (object.path("metadata").has(field)) {
        metadata.set(field, object.path("metadata").get(field));
      }
    }
    result
        .putObject("spec")
        .put("replicas", JsonPaths.read(object, scale.path("specReplicasPath").asText()).asInt(0));
    ObjectNode status = result.putObject("status");
    status.put(
        "replicas", JsonPaths.read(object, scale.path("statusReplicasPath").asText()).asInt(0));
    String selectorPath = scale.path("labelSelectorPath").asText("");
    if (!selectorPath.isEmpty()) {
      JsonNode selector = JsonPaths.read(object, selectorPath);
      if (selector.isTextual()) {
        status.put("selector", selector.asText());
      }
    }
    return result;
  }

  /** The object with {@code replicas} at the version's {@code specReplicasPath}. */
  private ObjectNode withReplicas(ObjectNode object, int replicas) {
    ObjectNode updated = object.deepCopy();
    String[] parts = scale.path("specReplicasPath").asText().substring(1).split("\\.");
    ObjectNode at = updated;
    for (int i = 0; i < parts.length - 1; i++) {
      at = at.with(parts[i]);
    }
    at.put(parts[parts.length - 1], replicas);
    return updated;
  }

  private static Printer printer(JsonNode definitions) {
    List<Column> columns = new ArrayList<>();
    columns.add(Cells.name());
    if (definitions.isEmpty()) {
      columns.add(new Column("Age", "date", "", Cells.AGE_DESCRIPTION, 0));
    }
    for (JsonNode d : definitions) {
      columns.add(
          new Column(
              d.path("name").asText(),
              d.path("type").asText(),
              d.path("format").asText(""),
              d.path("description").asText(""),
              d.path("priority").asInt(0)));
    }
    return new Printer() {
      @Override
      public List<Column> columns() {
        return columns;
      }

      @Override
      public Row row(JsonNode object, Instant now) {
        List<Object> cells = new ArrayList<>();
        cells.add(Cells.name(object));
        if (definitions.isEmpty()) {
          cells.add(Cells.age(object, now));
        }
        for (JsonNode d : definitions) {
          cells.add(
              cell(
                  d.path("type").asText(),
                  JsonPaths.read(object, d.path("jsonPath").asText()),
                  now));
        }
        return new Row(cells, List.of());
      }
    };
  }

  /** A cell as apiextensions' table convertor makes it: null when absent or of another type. */
  private static Object cell(String type, JsonNode value, Instant now) {
    if (value.isMissingNode() || value.isNull()) {
      return null;
    }
    return switch (type) {
      case "integer" -> value.isIntegralNumber() ? value.asLong() : null;
      case "number" -> value.isNumber() ? value.asDouble() : null;
      case "boolean" -> value.isBoolean() ? value.asBoolean() : null;
      case "date" -> value.isTextual() ? HumanDuration.since(value, now) : null;
      default -> value.isValueNode() ? value.asText() : value.toString();
    };
  }
}
