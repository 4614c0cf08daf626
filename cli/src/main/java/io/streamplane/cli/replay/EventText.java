package io.streamplane.cli.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;
import io.streamplane.log.ResourceEvent;
import java.util.List;

/**
 * A stored {@code ResourceEvent} as YAML lines, and the short unified diff of two of them that a
 * verification shows for a key where a source and the live state differ.
 */
final class EventText {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final YAMLMapper YAML =
      YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .build();
  private static final int CONTEXT = 2;

  private EventText() {}

  /** The whole event (envelope and object) as YAML; Avro's own JSON rendering, re-indented. */
  static String yaml(ResourceEvent event) {
    if (event == null) {
      return "";
    }
    String text = event.toString();
    try {
      JsonNode tree = JSON.readTree(text);
      return YAML.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      return text + "\n";
    }
  }

  /** A unified diff from {@code live} to {@code replayed}, at most {@code maxLines} lines. */
  static String diff(String source, ResourceEvent live, ResourceEvent replayed, int maxLines) {
    List<String> a = yaml(live).lines().toList();
    List<String> b = yaml(replayed).lines().toList();
    Patch<String> patch = DiffUtils.diff(a, b);
    if (patch.getDeltas().isEmpty()) {
      return "  (the decoded events are equal: their encodings differ)\n";
    }
    List<String> lines =
        UnifiedDiffUtils.generateUnifiedDiff("live state", source, a, patch, CONTEXT);
    StringBuilder out = new StringBuilder();
    int shown = Math.min(lines.size(), maxLines);
    for (int i = 0; i < shown; i++) {
      out.append("  ").append(lines.get(i)).append('\n');
    }
    if (shown < lines.size()) {
      out.append("  ... ").append(lines.size() - shown).append(" more lines\n");
    }
    return out.toString();
  }
}
