package io.streamplane.schema.convert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * The one place Kubernetes JSON (and YAML) becomes Avro and back, for every kind, driven only by
 * the schema and the conventions in the header of {@code kubernetes.avdl}: JSON field names are
 * Avro field names, optional fields are {@code [null, T]}, {@code k8s-quantity} strings also take
 * numbers, int-or-string is {@code [null, int, string]}, metav1.Time and MicroTime are {@code
 * timestamp-millis} and {@code timestamp-micros}, {@code []byte} is {@code bytes} in base64. A
 * union of several records picks its branch by the object's {@code kind}.
 *
 * <p>Contract: {@code toAvro} never fails on a field the schema does not model; it drops it and
 * reports it as an {@link UnknownField}, and the caller applies its validation level. Any other
 * mismatch is a {@link ConversionException} with a Kubernetes-style field path. {@code
 * toJson(toAvro(json))} equals {@code json} when {@code json} uses canonical forms (quantities as
 * strings, timestamps in the wire precision) and has no unknown fields. Records are the generated
 * specific classes whenever one exists for the schema. Immutable and thread-safe.
 *
 * <p>Limits: Go's decoding quirks are not all reproduced: JSON null inside a list or map is an
 * error rather than a zero value, duplicate keys are resolved by the parser (last wins) instead of
 * being reported, and quantity strings are validated but not canonicalised.
 */
public final class KubeJson {

  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
  private static final YAMLMapper YAML =
      YAMLMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  private final RecordFactory records = new RecordFactory();
  private final AvroToJson writer = new AvroToJson();

  /** Converts a JSON object to the generated class {@code type}. */
  public <T extends SpecificRecord> Decoded<T> toAvro(JsonNode json, Class<T> type) {
    Decoded<GenericRecord> decoded = toAvro(json, SpecificData.get().getSchema(type));
    if (!type.isInstance(decoded.record())) {
      throw new IllegalArgumentException(type.getName() + " is not a generated Avro record class");
    }
    return new Decoded<>(type.cast(decoded.record()), decoded.unknownFields());
  }

  /**
   * Converts a JSON object to a record of {@code schema}: the generated class when one exists for
   * exactly that schema, a {@code GenericData.Record} otherwise.
   */
  public Decoded<GenericRecord> toAvro(JsonNode json, Schema schema) {
    Objects.requireNonNull(json, "json");
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("not a record schema: " + schema.getFullName());
    }
    JsonToAvro conversion = new JsonToAvro(records);
    GenericRecord record = conversion.record(json, schema);
    return new Decoded<>(record, conversion.unknownFields());
  }

  /** Writes a record as Kubernetes JSON, leaving out null fields. */
  public ObjectNode toJson(IndexedRecord record) {
    return writer.record(Objects.requireNonNull(record, "record"), FieldPath.ROOT);
  }

  /** Parses one JSON document. Fractions are kept exact, so a quantity like 0.1 stays 0.1. */
  public static JsonNode parseJson(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ConversionException("", "invalid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Parses a YAML stream (JSON is YAML too) into its documents, in order, skipping empty ones such
   * as the one after a trailing {@code ---}, as kubectl does.
   */
  public static List<JsonNode> parseYaml(String text) {
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(text)) {
      while (it.hasNextValue()) {
        JsonNode document = it.nextValue();
        if (document != null && !document.isNull() && !document.isMissingNode()) {
          documents.add(document);
        }
      }
    } catch (IOException | RuntimeException e) {
      // Jackson wraps parse errors met while iterating in RuntimeJsonMappingException.
      throw new ConversionException("", "invalid YAML: " + e.getMessage(), e);
    }
    return documents;
  }

  /** Writes JSON compactly, for HTTP bodies and logs. */
  public static String writeJson(JsonNode json) {
    try {
      return JSON.writeValueAsString(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JsonNode tree always serialises", e);
    }
  }
}
