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
 * served version is a view of it, converted by a {@link VersionConverter}: {@link
 * VersionConverter#NONE} (the definition's {@code None} strategy: only {@code apiVersion} changes)
 * unless the caller gives the definition's webhook.
 */
public final class CustomResources {

  private CustomResources() {}

  /** Converts a custom object to another served version of its kind. */
  @FunctionalInterface
  public interface VersionConverter {
    /** The {@code None} strategy: the same object under the other {@code apiVersion}. */
    VersionConverter NONE = (object, apiVersion) -> object.deepCopy().put("apiVersion", apiVersion);

    /**
     * {@code object} as {@code apiVersion} ({@code group/version}) shows it: a new object, the
     * argument unchanged. Fails with a runtime exception the caller answers as a Status.
     */
    ObjectNode convert(ObjectNode object, String apiVersion);
  }

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

  /**
   * The rows a definition serves, other versions converted with {@link VersionConverter#NONE};
   * empty for one not established or being deleted.
   */
  public static List<ResourceType> rows(JsonNode crd) {
    return rows(crd, VersionConverter.NONE);
  }

  /** The rows a definition serves, other versions converted by {@code converter}. */
  public static List<ResourceType> rows(JsonNode crd, VersionConverter converter) {
    if (!established(crd) || crd.path("metadata").has("deletionTimestamp")) {
      return List.of();
    }
    return allRows(crd, converter);
  }

  /** Whether the definition converts its versions through a webhook. */
  public static boolean convertsByWebhook(JsonNode crd) {
    return crd.path("spec").path("conversion").path("strategy").asText("None").equals("Webhook");
  }

  /**
   * The row of the definition's storage version, whether served or not (to delete a deleted
   * definition's objects); null when it has none.
   */
  public static ResourceType storageRow(JsonNode crd) {
    List<ResourceType> rows = allRows(crd, VersionConverter.NONE);
    if (rows.isEmpty()) {
      return null;
    }
    return rows.get(0).storage();
  }

  private static List<ResourceType> allRows(JsonNode crd, VersionConverter converter) {
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
        storage =
            row(group, kind, plural, singular, shortNames, categories, namespaced, version, spec);
      } else {
        others.add(version);
      }
    }
    if (storage == null) {
      // A storage version that is not served still stores what the served versions write.
      for (JsonNode version : spec.path("versions")) {
        if (version.path("storage").asBoolean(false)) {
          storage =
              row(group, kind, plural, singular, shortNames, categories, namespaced, version, spec);
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
          row(group, kind, plural, singular, shortNames, categories, namespaced, version, spec)
              .viewOf(storage, new Converted(apiVersion, storageApiVersion, converter)));
    }
    // The preferred version first, as discovery lists a definition's versions.
    rows.sort((a, b) -> KubeVersions.compare(b.version(), a.version()));
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
      JsonNode version,
      JsonNode spec) {
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
        new CustomResourceStrategy(version, deprecationWarning(spec, version)),
        null);
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  /**
   * The warning every request to a deprecated version gets: its {@code deprecationWarning}, or
   * apiextensions' default, naming the newest served version newer than it that is not deprecated.
   */
  static String deprecationWarning(JsonNode spec, JsonNode version) {
    if (!version.path("deprecated").asBoolean(false)) {
      return null;
    }
    if (version.hasNonNull("deprecationWarning")) {
      return version.path("deprecationWarning").asText();
    }
    String group = spec.path("group").asText();
    String kind = spec.path("names").path("kind").asText();
    String name = version.path("name").asText();
    String message = group + "/" + name + " " + kind + " is deprecated";
    String newest = null;
    for (JsonNode v : spec.path("versions")) {
      String other = v.path("name").asText();
      if (v.path("served").asBoolean(false)
          && !v.path("deprecated").asBoolean(false)
          && KubeVersions.compare(name, other) < 0
          && (newest == null || KubeVersions.compare(other, newest) > 0)) {
        newest = other;
      }
    }
    return newest == null ? message : message + "; use " + group + "/" + newest + " " + kind;
  }

  /** A served version other than the storage one, converted to and from it by {@code converter}. */
  private record Converted(String served, String storage, VersionConverter converter)
      implements ResourceType.Conversion {
    @Override
    public ObjectNode toStorage(ObjectNode object) {
      return storage.equals(object.path("apiVersion").asText())
          ? object
          : converter.convert(object, storage);
    }

    @Override
    public ObjectNode fromStorage(ObjectNode stored) {
      return served.equals(stored.path("apiVersion").asText())
          ? stored.deepCopy()
          : converter.convert(stored, served);
    }
  }
}
