package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON paths a definition names (printer columns, the scale subresource's replica and selector
 * paths), as kubectl's {@code jsonpath} reads the simple ones: {@code .spec.replicas}, {@code
 * .spec.containers[0].image}, {@code .metadata.labels['app']}, and a filter on a list {@code
 * .status.conditions[?(@.type=="Ready")].status}. Limits: no wildcards, recursive descent, slices
 * or ranges.
 */
final class JsonPaths {

  private static final Pattern STEP =
      Pattern.compile(
          "\\.([A-Za-z0-9_$-]+)|\\[(\\d+)]|\\['([^']*)']|\\[\\?\\(@\\.([A-Za-z0-9_.-]+)\\s*==\\s*"
              + "[\"']([^\"']*)[\"']\\)]");

  private JsonPaths() {}

  /** Whether the path is one this reads: a dot first, then steps only. */
  static boolean valid(String path) {
    return steps(path) != null;
  }

  /** The value at {@code path} in {@code object}, or a missing node. */
  static JsonNode read(JsonNode object, String path) {
    List<Matcher> steps = steps(path);
    if (steps == null) {
      return MissingNode.getInstance();
    }
    JsonNode at = object;
    for (Matcher step : steps) {
      if (step.group(1) != null) {
        at = at.path(step.group(1));
      } else if (step.group(2) != null) {
        at = at.path(Integer.parseInt(step.group(2)));
      } else if (step.group(3) != null) {
        at = at.path(step.group(3));
      } else {
        JsonNode found = MissingNode.getInstance();
        for (JsonNode item : at) {
          JsonNode key = item;
          for (String part : step.group(4).split("\\.")) {
            key = key.path(part);
          }
          if (key.isValueNode() && key.asText().equals(step.group(5))) {
            found = item;
            break;
          }
        }
        at = found;
      }
      if (at.isMissingNode()) {
        return at;
      }
    }
    return at;
  }

  private static List<Matcher> steps(String path) {
    if (path == null || !path.startsWith(".") && !path.startsWith("[")) {
      return null;
    }
    List<Matcher> steps = new ArrayList<>();
    int at = 0;
    while (at < path.length()) {
      Matcher m = STEP.matcher(path);
      m.region(at, path.length());
      if (!m.lookingAt()) {
        return null;
      }
      steps.add(m);
      at = m.end();
      // A matcher is reused by find-less lookingAt; keep this one's groups by copying its result.
      steps.set(steps.size() - 1, copy(m));
    }
    return steps;
  }

  private static Matcher copy(Matcher m) {
    Matcher copy = STEP.matcher(m.group());
    copy.lookingAt();
    return copy;
  }
}
