package io.streamplane.cli.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamplane.api.ObjectMeta;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.CustomObject;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;

/**
 * How {@code replay --until} shows the cluster it rebuilt: a table with one row per object (kind,
 * namespace, name, resourceVersion, creation time), or a Kubernetes {@code List} of the whole
 * objects as JSON or YAML, each with its {@code apiVersion} and {@code kind}, as the gateway serves
 * them.
 */
final class ClusterView {

  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
  private static final YAMLMapper YAML =
      YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
          .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
          .build();

  private final ResourceRegistry registry;
  private final KubeJson kubeJson = new KubeJson();

  ClusterView(ResourceRegistry registry) {
    this.registry = registry;
  }

  /** The table, objects in key order (by resource, then namespace and name). */
  String table(Map<String, KeyState> state) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"KIND", "NAMESPACE", "NAME", "RESOURCEVERSION", "CREATED"});
    for (KeyState s : state.values()) {
      ResourceEvent event = s.event();
      ObjectMeta meta = KubeObjects.meta((SpecificRecord) KindObjects.of(event));
      Instant created = meta.getCreationTimestamp();
      rows.add(
          new String[] {
            kind(event),
            event.getNamespace() == null ? "" : event.getNamespace(),
            event.getName(),
            meta.getResourceVersion() == null ? "" : meta.getResourceVersion(),
            created == null ? "" : created.toString()
          });
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 3));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** A {@code v1 List} of every object, at the list resourceVersion {@code version}. */
  String list(Map<String, KeyState> state, String version, boolean asYaml) {
    ObjectNode list = JsonNodeFactory.instance.objectNode();
    list.put("apiVersion", "v1");
    list.put("kind", "List");
    list.putObject("metadata").put("resourceVersion", version);
    ArrayNode items = list.putArray("items");
    for (KeyState s : state.values()) {
      items.add(object(s.event()));
    }
    try {
      return asYaml ? YAML.writeValueAsString(list) : JSON.writeValueAsString(list) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JsonNode tree always serialises", e);
    }
  }

  private ObjectNode object(ResourceEvent event) {
    ObjectNode body = kubeJson.toJson((SpecificRecord) KindObjects.of(event));
    Optional<ResourceType> type = type(event);
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object.put(
        "apiVersion",
        body.path("apiVersion").asText(type.map(ResourceType::groupVersion).orElse("")));
    object.put("kind", body.path("kind").asText(type.map(ResourceType::kind).orElse("")));
    object.setAll(body);
    return object;
  }

  private String kind(ResourceEvent event) {
    // A custom object names its kind itself: the replayed registry has no definitions.
    if (KindObjects.of(event) instanceof CustomObject custom) {
      return custom.getKind();
    }
    return type(event)
        .map(ResourceType::kind)
        .orElse(event.getResource() + (event.getGroup().isEmpty() ? "" : "." + event.getGroup()));
  }

  private Optional<ResourceType> type(ResourceEvent event) {
    return registry.byResource(event.getGroup(), event.getResource());
  }
}
