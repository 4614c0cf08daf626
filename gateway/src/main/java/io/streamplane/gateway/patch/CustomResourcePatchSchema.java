package io.streamplane.gateway.patch;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.apiextensions.CustomResourceStrategy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The {@link PatchSchema} server-side apply reads for a custom resource, derived from the markers
 * of its version's {@code openAPIV3Schema} as structured-merge-diff reads them from the schema
 * apiextensions-apiserver gives it: {@code x-kubernetes-list-type: map} with its {@code
 * x-kubernetes-list-map-keys} (an associative list, one owner per element), {@code set} (a set of
 * values), {@code atomic} or none (one leaf); {@code x-kubernetes-map-type: atomic} (an object
 * owned whole); {@code additionalProperties} for the values of a map; {@code metadata} as
 * ObjectMeta's, at the root and in embedded resources.
 *
 * <p>Limits: a list-map key field an element omits is not filled from the schema's {@code default}
 * (the gateway defaults the object before it is written, not the applied configuration); {@code
 * allOf}/{@code anyOf}/{@code oneOf} carry no markers, as structural schemas forbid them there.
 */
public final class CustomResourcePatchSchema {

  /** Per served version's strategy, which a changed definition replaces (identity keys). */
  private static final Map<CustomResourceStrategy, PatchSchema> BY_STRATEGY =
      Collections.synchronizedMap(new WeakHashMap<>());

  private CustomResourcePatchSchema() {}

  /** The apply metadata of a served version, worked out once per definition generation. */
  public static PatchSchema of(CustomResourceStrategy version) {
    return BY_STRATEGY.computeIfAbsent(version, v -> of(v.openApiSchema()));
  }

  /** The apply metadata of the objects {@code openApiSchema} describes. */
  public static PatchSchema of(JsonNode openApiSchema) {
    return object(openApiSchema, true);
  }

  private static PatchSchema object(JsonNode schema, boolean withObjectMeta) {
    PatchSchema.Builder builder = PatchSchema.builder();
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> property = it.next();
      String name = property.getKey();
      JsonNode value = property.getValue();
      if (withObjectMeta && name.equals("metadata")) {
        continue;
      }
      if (atomicMap(value)) {
        builder.atomicStruct(name);
      } else {
        builder.field(name, field(value));
      }
    }
    if (withObjectMeta) {
      builder.nested("metadata", PatchSchema.OBJECT_META);
    }
    JsonNode additional = schema.path("additionalProperties");
    if (additional.isObject()) {
      builder.otherFields(field(additional), atomicMap(additional));
    }
    return builder.build();
  }

  private static PatchSchema.Field field(JsonNode schema) {
    JsonNode items = schema.path("items");
    if (items.isObject()) {
      String listType = schema.path("x-kubernetes-list-type").asText("atomic");
      if (listType.equals("map")) {
        List<String> keys = new ArrayList<>();
        schema.path("x-kubernetes-list-map-keys").forEach(k -> keys.add(k.asText()));
        return new PatchSchema.Field(false, false, "", element(items), "map", keys);
      }
      if (listType.equals("set")) {
        return new PatchSchema.Field(false, false, "", PatchSchema.EMPTY, "set", List.of());
      }
      return new PatchSchema.Field(false, false, "", PatchSchema.EMPTY, "atomic", List.of());
    }
    return new PatchSchema.Field(false, false, "", element(schema), "", List.of());
  }

  private static PatchSchema element(JsonNode schema) {
    return object(schema, schema.path("x-kubernetes-embedded-resource").asBoolean(false));
  }

  private static boolean atomicMap(JsonNode schema) {
    return schema.path("x-kubernetes-map-type").asText("").equals("atomic");
  }
}
