package io.streamplane.cli.history;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;
import io.streamplane.gateway.history.ObjectVersion;
import io.streamplane.gateway.history.VersionsJson;
import io.streamplane.kinds.ResourceType;
import io.streamplane.schema.convert.KubeJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How {@code streamplane history} shows the versions of one object: as text, each version's header
 * (time, change, resourceVersion, actor, uid) followed by a unified diff of its YAML against the
 * previous version (the first shown whole); or as JSON or YAML, one entry per version with those
 * fields and the whole object.
 *
 * <p>Objects are the Kubernetes JSON the gateway serves ({@link KubeJson}), with {@code apiVersion}
 * and {@code kind} filled in from the resource type when a stored object lacks them. A version
 * whose uid differs from the previous one's is an object deleted and created again under the same
 * name; its header says so.
 */
public final class HistoryView {

  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
  private static final YAMLMapper YAML =
      YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
          .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
          .build();
  private static final int DIFF_CONTEXT = 3;

  private final KubeJson kubeJson = new KubeJson();
  private final ResourceType type;

  public HistoryView(ResourceType type) {
    this.type = type;
  }

  /** The entries of {@code versions} read from the log, as the gateway's endpoint answers them. */
  public ArrayNode entries(List<ObjectVersion> versions) {
    return VersionsJson.entries(kubeJson, type, versions);
  }

  /** The human view of entries ({@link VersionsJson}): headers and diffs, oldest first. */
  public String text(ArrayNode entries) {
    StringBuilder out = new StringBuilder();
    String previousYaml = null;
    String previousUid = null;
    String previousVersion = null;
    for (JsonNode entry : entries) {
      JsonNode object = entry.get("object");
      String uid = entry.path("uid").isTextual() ? entry.path("uid").asText() : null;
      String version = entry.path("resourceVersion").asText("");
      List<String> groups = new ArrayList<>();
      entry.path("actor").path("groups").forEach(g -> groups.add(g.asText()));
      out.append("=== ")
          .append(entry.path("type").asText())
          .append("  ")
          .append(entry.path("time").asText())
          .append("  resourceVersion ")
          .append(version)
          .append('\n');
      out.append("actor: ")
          .append(entry.path("actor").path("username").asText())
          .append("  groups: ")
          .append(groups)
          .append('\n');
      out.append("uid:   ").append(uid == null ? "(none)" : uid);
      if (previousUid != null && !Objects.equals(previousUid, uid)) {
        out.append("  (new object: was ").append(previousUid).append(')');
      }
      out.append('\n');
      String yaml = object == null || !object.isObject() ? "" : yaml((ObjectNode) object);
      if (previousYaml == null) {
        out.append(yaml);
      } else {
        out.append(diff(previousYaml, yaml, previousVersion, version));
      }
      out.append('\n');
      previousYaml = yaml;
      previousUid = uid;
      previousVersion = version;
    }
    return out.toString();
  }

  /** The machine view, {@code json} or {@code yaml}: a list with one entry per version. */
  public String machine(ArrayNode entries, boolean asYaml) {
    try {
      return asYaml ? YAML.writeValueAsString(entries) : JSON.writeValueAsString(entries) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JsonNode tree always serialises", e);
    }
  }

  private static String yaml(ObjectNode object) {
    try {
      return YAML.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JsonNode tree always serialises", e);
    }
  }

  private static String diff(
      String before, String after, String beforeVersion, String afterVersion) {
    List<String> a = before.lines().toList();
    List<String> b = after.lines().toList();
    Patch<String> patch = DiffUtils.diff(a, b);
    if (patch.getDeltas().isEmpty()) {
      return "(object unchanged)\n";
    }
    List<String> lines =
        UnifiedDiffUtils.generateUnifiedDiff(
            "resourceVersion " + beforeVersion,
            "resourceVersion " + afterVersion,
            a,
            patch,
            DIFF_CONTEXT);
    return String.join("\n", lines) + "\n";
  }
}
