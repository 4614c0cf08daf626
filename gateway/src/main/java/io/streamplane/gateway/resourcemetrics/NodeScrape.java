package io.streamplane.gateway.resourcemetrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape of a node's {@code /metrics/resource}: the node's cumulative CPU time and working set,
 * and each running container's, with the time each was read. Immutable.
 */
record NodeScrape(String node, Point nodePoint, Map<PodRef, List<ContainerPoint>> pods) {

  /** A cumulative CPU time (core-nanoseconds) and a working set (bytes), read at {@code time}. */
  record Point(Instant time, long cpuNanos, long memoryBytes) {}

  /** A pod by namespace and name. */
  record PodRef(String namespace, String name) {
    @Override
    public String toString() {
      return namespace + "/" + name;
    }
  }

  /** One container's point, and when the container started (a restart resets its CPU time). */
  record ContainerPoint(String name, Instant started, Point point) {}

  NodeScrape {
    Map<PodRef, List<ContainerPoint>> copy = new LinkedHashMap<>();
    pods.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    pods = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * Reads the Prometheus text of the kubelet's {@code /metrics/resource}: the samples {@code
   * node_cpu_usage_seconds_total}, {@code node_memory_working_set_bytes}, {@code
   * container_cpu_usage_seconds_total}, {@code container_memory_working_set_bytes} and {@code
   * container_start_time_seconds} (labels {@code container}, {@code namespace}, {@code pod}), each
   * stamped in milliseconds; a sample without a stamp counts as read at {@code scraped}. Other
   * lines are ignored, as metrics-server ignores them. A container is kept only with both its CPU
   * and its memory; the node only with both of its own.
   *
   * @throws IllegalArgumentException when the node's own samples are missing
   */
  static NodeScrape parse(String node, String text, Instant scraped) {
    Double nodeCpu = null;
    Double nodeMemory = null;
    Instant nodeTime = scraped;
    Map<List<String>, Sample> cpu = new LinkedHashMap<>();
    Map<List<String>, Sample> memory = new LinkedHashMap<>();
    Map<List<String>, Double> started = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      line = line.trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Sample sample = Sample.parse(line, scraped);
      if (sample == null) {
        continue;
      }
      switch (sample.name()) {
        case "node_cpu_usage_seconds_total" -> {
          nodeCpu = sample.value();
          nodeTime = sample.time();
        }
        case "node_memory_working_set_bytes" -> nodeMemory = sample.value();
        case "container_cpu_usage_seconds_total" -> cpu.put(sample.container(), sample);
        case "container_memory_working_set_bytes" -> memory.put(sample.container(), sample);
        case "container_start_time_seconds" -> started.put(sample.container(), sample.value());
        default -> {}
      }
    }
    if (nodeCpu == null || nodeMemory == null) {
      throw new IllegalArgumentException(
          "node "
              + node
              + " reported no node_cpu_usage_seconds_total or node_memory_working_set_bytes");
    }
    Map<PodRef, List<ContainerPoint>> pods = new LinkedHashMap<>();
    for (Map.Entry<List<String>, Sample> c : cpu.entrySet()) {
      Sample m = memory.get(c.getKey());
      if (m == null || c.getKey().contains(null)) {
        continue;
      }
      Double start = started.get(c.getKey());
      PodRef pod = new PodRef(c.getKey().get(1), c.getKey().get(2));
      pods.computeIfAbsent(pod, p -> new ArrayList<>())
          .add(
              new ContainerPoint(
                  c.getKey().get(0),
                  start == null ? null : Instant.ofEpochMilli(Math.round(start * 1000)),
                  new Point(
                      c.getValue().time(),
                      Math.round(c.getValue().value() * 1e9),
                      Math.round(m.value()))));
    }
    return new NodeScrape(
        node, new Point(nodeTime, Math.round(nodeCpu * 1e9), Math.round(nodeMemory)), pods);
  }

  /** One sample line: {@code name{labels} value [timestamp]}. */
  private record Sample(String name, Map<String, String> labels, double value, Instant time) {

    List<String> container() {
      return java.util.Arrays.asList(
          labels.get("container"), labels.get("namespace"), labels.get("pod"));
    }

    static Sample parse(String line, Instant scraped) {
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      if (space < 0) {
        return null;
      }
      String name;
      Map<String, String> labels = new LinkedHashMap<>();
      String rest;
      if (brace >= 0 && brace < space) {
        name = line.substring(0, brace);
        int end = labels(line, brace + 1, labels);
        if (end < 0) {
          return null;
        }
        rest = line.substring(end + 1).trim();
      } else {
        name = line.substring(0, space);
        rest = line.substring(space + 1).trim();
      }
      String[] fields = rest.split("\\s+");
      try {
        double value = Double.parseDouble(fields[0]);
        Instant time =
            fields.length > 1 ? Instant.ofEpochMilli(Long.parseLong(fields[1])) : scraped;
        return new Sample(name, labels, value, time);
      } catch (NumberFormatException e) {
        return null;
      }
    }

    /** Reads {@code a="x",b="y"} from {@code from}; answers the index of the closing brace. */
    private static int labels(String line, int from, Map<String, String> into) {
      int i = from;
      while (i < line.length()) {
        char c = line.charAt(i);
        if (c == '}') {
          return i;
        }
        if (c == ',' || c == ' ') {
          i++;
          continue;
        }
        int eq = line.indexOf('=', i);
        if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
          return -1;
        }
        String key = line.substring(i, eq).trim();
        StringBuilder value = new StringBuilder();
        int j = eq + 2;
        for (; j < line.length() && line.charAt(j) != '"'; j++) {
          char v = line.charAt(j);
          if (v == '\\' && j + 1 < line.length()) {
            char next = line.charAt(++j);
            value.append(next == 'n' ? '\n' : next);
          } else {
            value.append(v);
          }
        }
        into.put(key, value.toString());
        i = j + 1;
      }
      return -1;
    }
  }
}
