package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.CustomObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rows of the table of kinds a CustomResourceDefinition defines: one per served version, named
 * by the definition's accepted names, with the status and scale subresources it declares and a
 * {@link CustomResourceStrategy} of that version. The storage version's row is stored; each other
 * served version is a view of it whose conversion only changes {@code apiVersion} (the {@code None}
 * strategy).
 */
public final class CustomResources {

  private CustomResources() {}

  /** Whether the definition's {@code Established} condition is true. */
  public static boolean established(JsonNode crd) {
    return condition(crd, "Established");
  }

  static boolean condition(JsonNode crd, String type) {
    for (JsonNode c : crd.path("status").path("conditions")) {
      if (c.path("type").asText().equals(type)) {
        return c.path("status").asText().equals("True");
      }
    }
    return false;
  }

  /** The rows a definition serves; empty for one not established or being deleted. */
  public static List<ResourceType> rows(JsonNode crd) {
    if (!established(crd) || crd.path("metadata").has("deletionTimestamp")) {
      return List.of();
    }
    return allRows(crd);
  }

  /**
   * The row of the definition's storage version, whether served or not (to delete a deleted
   * definition's objects); null when it has none.
   */
  public static ResourceType storageRow(JsonNode crd) {
    List<ResourceType> rows = allRows(crd);
    if (rows.isEmpty()) {
      return null;
    }
    return rows.get(0).storage();
  }

  private static List<ResourceType> allRows(JsonNode crd) {
    JsonNode spec = crd.path("spec");
    JsonNode names = crd.path("status").path("acceptedNames");
    if (names.path("plural").asText("").isEmpty()) {
      names = spec.path("names");
    }
    String group = spec.path("group").asText();
    String kind = names.path("kind").asText();
    String plural = names.path("plural").asText();
    String singular = names.path("singular").asText(kind.toLowerCase(Locale.ROOT));
    List<String> shortNames = strings(names.path("shortNames"));
    List<String> categories = strings(names.path("categories"));
    boolean namespaced = spec.path("scope").asText().equals("Namespaced");
    ResourceType storage = null;
    List<JsonNode> others = new ArrayList<>();
    for (JsonNode version : spec.path("versions")) {
      if (!version.path("served").asBoolean(false)) {
        continue;
      }
      if (version.path("storage").asBoolean(false)) {
        storage = row(group, kind, plural, singular, shortNames, categories, namespaced, version);
      } else {
        others.add(version);
      }
    }
    if (storage == null) {
      // A storage version that is not served still stores what the served versions write.
      for (JsonNode version : spec.path("versions")) {
        if (version.path("storage").asBoolean(false)) {
          storage = row(group, kind, plural, singular, shortNames, categories, namespaced, version);
        }
      }
    }
    if (storage == null) {
      return List.of();
    }
    List<ResourceType> rows = new ArrayList<>();
    for (JsonNode version : spec.path("versions")) {
      if (version.path("storage").asBoolean(false) && version.path("served").asBoolean(false)) {
        rows.add(storage);
      }
    }
    for (JsonNode version : others) {
      String apiVersion = group + "/" + version.path("name").asText();
      String storageApiVersion = storage.groupVersion();
      rows.add(
          row(group, kind, plural, singular, shortNames, categories, namespaced, version)
              .viewOf(storage, new ApiVersionOnly(apiVersion, storageApiVersion)));
    }
    return rows;
  }

  private static ResourceType row(
      String group,
      String kind,
      String plural,
      String singular,
      List<String> shortNames,
      List<String> categories,
      boolean namespaced,
      JsonNode version) {
    String name = version.path("name").asText();
    List<ResourceType.Subresource> subresources = new ArrayList<>();
    JsonNode declared = version.path("subresources");
    List<String> statusVerbs = List.of("get", "patch", "update");
    if (declared.path("scale").isObject()) {
      subresources.add(
          new ResourceType.Subresource("scale", "autoscaling", "v1", "Scale", statusVerbs));
    }
    if (declared.path("status").isObject()) {
      subresources.add(new ResourceType.Subresource("status", group, name, kind, statusVerbs));
    }
    return new ResourceType(
        group,
        name,
        kind,
        plural,
        singular,
        shortNames,
        namespaced,
        categories,
        ResourceRegistry.ALL_VERBS,
        CustomObject.class,
        subresources,
        new CustomResourceStrategy(version),
        null);
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  /** The {@code None} conversion: the object as it is, under the other version's apiVersion. */
  private record ApiVersionOnly(String served, String storage) implements ResourceType.Conversion {
    @Override
    public ObjectNode toStorage(ObjectNode object) {
      return object.put("apiVersion", storage);
    }

    @Override
    public ObjectNode fromStorage(ObjectNode stored) {
      return stored.deepCopy().put("apiVersion", served);
    }
  }
}
