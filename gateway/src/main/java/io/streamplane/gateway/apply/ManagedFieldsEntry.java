package io.streamplane.gateway.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One entry of {@code metadata.managedFields}: a manager, the operation it last did ({@code Apply}
 * or {@code Update}), the API version and subresource it wrote through, when, and the fields it
 * owns. Entries are identified as kube-apiserver identifies them: an applier by (manager,
 * subresource), an updater by (manager, apiVersion, subresource).
 */
public record ManagedFieldsEntry(
    String manager,
    String operation,
    String apiVersion,
    Instant time,
    String subresource,
    FieldSet fields) {

  public static final String APPLY = "Apply";
  public static final String UPDATE = "Update";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  public ManagedFieldsEntry {
    manager = Objects.requireNonNullElse(manager, "");
    operation = Objects.requireNonNullElse(operation, "");
    apiVersion = Objects.requireNonNullElse(apiVersion, "");
    subresource = Objects.requireNonNullElse(subresource, "");
    fields = Objects.requireNonNullElseGet(fields, FieldSet::new);
  }

  /** What makes two entries the same manager (kube-apiserver's manager identifier). */
  public record Id(String manager, String operation, String apiVersion, String subresource) {}

  public Id id() {
    return new Id(manager, operation, operation.equals(APPLY) ? "" : apiVersion, subresource);
  }

  public boolean applied() {
    return operation.equals(APPLY);
  }

  public ManagedFieldsEntry withFields(FieldSet fields) {
    return new ManagedFieldsEntry(manager, operation, apiVersion, time, subresource, fields);
  }

  /**
   * The entries of an object's {@code metadata.managedFields}; throws IllegalArgumentException when
   * they are not valid (an unknown operation, bad field sets), as kube-apiserver's decoding fails.
   */
  public static List<ManagedFieldsEntry> decode(JsonNode object) {
    JsonNode list = object == null ? null : object.path("metadata").get("managedFields");
    List<ManagedFieldsEntry> entries = new ArrayList<>();
    if (list == null || list.isNull()) {
      return entries;
    }
    if (!list.isArray()) {
      throw new IllegalArgumentException("managedFields must be a list");
    }
    for (JsonNode e : list) {
      String operation = e.path("operation").asText("");
      if (!operation.isEmpty() && !operation.equals(APPLY) && !operation.equals(UPDATE)) {
        throw new IllegalArgumentException("invalid operation " + operation);
      }
      String fieldsType = e.path("fieldsType").asText("");
      if (!fieldsType.isEmpty() && !fieldsType.equals("FieldsV1")) {
        throw new IllegalArgumentException("invalid fieldsType " + fieldsType);
      }
      entries.add(
          new ManagedFieldsEntry(
              e.path("manager").asText(""),
              operation,
              e.path("apiVersion").asText(""),
              time(e.get("time")),
              e.path("subresource").asText(""),
              FieldSet.fromFieldsV1(e.get("fieldsV1"))));
    }
    return entries;
  }

  private static Instant time(JsonNode time) {
    if (time == null || time.isNull() || time.asText().isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time.asText()).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("invalid time " + time.asText());
    }
  }

  /**
   * The JSON list of {@code managedFields}, sorted as kube-apiserver sorts it: by operation, time,
   * manager, apiVersion, subresource; entries owning nothing are left out.
   */
  public static ArrayNode encode(List<ManagedFieldsEntry> entries) {
    List<ManagedFieldsEntry> sorted = new ArrayList<>(entries);
    sorted.removeIf(e -> e.fields().isEmpty());
    sorted.sort(
        Comparator.comparing(ManagedFieldsEntry::operation)
            .thenComparing(e -> e.time() == null ? 0 : e.time().getEpochSecond())
            .thenComparing(ManagedFieldsEntry::manager)
            .thenComparing(ManagedFieldsEntry::apiVersion)
            .thenComparing(ManagedFieldsEntry::subresource));
    ArrayNode list = JSON.arrayNode();
    for (ManagedFieldsEntry e : sorted) {
      ObjectNode json = list.addObject();
      json.put("manager", e.manager());
      json.put("operation", e.operation());
      if (!e.apiVersion().isEmpty()) {
        json.put("apiVersion", e.apiVersion());
      }
      if (e.time() != null) {
        json.put("time", e.time().truncatedTo(ChronoUnit.SECONDS).toString());
      }
      json.put("fieldsType", "FieldsV1");
      json.set("fieldsV1", e.fields().toFieldsV1());
      if (!e.subresource().isEmpty()) {
        json.put("subresource", e.subresource());
      }
    }
    return list;
  }
}
