package io.streamplane.node;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.streamplane.api.Pod;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodRuntime.ContainerUsage;
import io.streamplane.node.runtime.RuntimeContainer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The kubelet's read-only API besides logs and streams, on the node server, which the gateway's
 * {@code nodes/{name}/proxy} reaches: {@code /stats/summary} (the Summary API: the node's and each
 * running pod's and container's CPU and memory, as the kubelet's stats provider reports them),
 * {@code /metrics/resource} (the same figures as cumulative counters and gauges in the Prometheus
 * text format, the kubelet's resource metrics endpoint that metrics-server and the gateway's
 * resource metrics scrape), {@code /metrics} (the node process's Prometheus metrics), {@code
 * /configz} (the node's configuration as a {@code KubeletConfiguration}) and {@code /logs/} (the
 * host's {@code /var/log}, as the kubelet serves it).
 *
 * <p>Which node: one server serves every node of its process, so a request names its node in {@code
 * X-Streamplane-Node} (the gateway sets it); without it, a server of one node answers for that
 * node. Figures are real: the machine's from {@code /proc/stat} and {@code /proc/meminfo} (every
 * node of one host reports the host), the containers' from their processes ({@link
 * PodRuntime#usage}); {@code usageNanoCores} is measured over 200 ms.
 */
public final class NodeApi {

  static final String NODE_HEADER = "X-Streamplane-Node";
  private static final Set<String> PATHS =
      Set.of("/stats/summary", "/metrics", "/metrics/resource", "/configz");
  private static final Path LOGS = Path.of("/var/log");
  private static final long SAMPLE_MILLIS = 200;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, NodeAgent> agents;
  private final PodRuntime runtime;
  private final KubeletConfig kubelet;
  private final Clock clock;
  private final Instant started;

  NodeApi(List<NodeAgent> agents, PodRuntime runtime, KubeletConfig kubelet, Clock clock) {
    this.agents = new HashMap<>();
    agents.forEach(a -> this.agents.put(a.name(), a));
    this.runtime = runtime;
    this.kubelet = kubelet;
    this.clock = clock;
    this.started = clock.instant();
  }

  /** Whether a path is one of this API's. */
  public static boolean serves(String path) {
    return PATHS.contains(path) || path.equals("/logs") || path.startsWith("/logs/");
  }

  /** Answers one request; {@code path} is one {@link #serves} accepts. */
  public void handle(HttpExchange exchange, String path) throws IOException {
    if (!exchange.getRequestMethod().equals("GET")) {
      text(exchange, 405, "405: Method Not Allowed\n");
      return;
    }
    if (path.equals("/metrics")) {
      metrics(exchange);
      return;
    }
    if (path.equals("/logs") || path.startsWith("/logs/")) {
      logs(exchange, path.equals("/logs") ? "" : path.substring("/logs/".length()));
      return;
    }
    Optional<NodeAgent> node = node(exchange);
    if (node.isEmpty()) {
      text(
          exchange,
          400,
          "name the node in " + NODE_HEADER + ": one of " + new TreeSet<>(agents.keySet()) + "\n");
      return;
    }
    if (path.equals("/metrics/resource")) {
      byte[] bytes = resourceMetrics(node.get()).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
      return;
    }
    ObjectNode body = path.equals("/configz") ? configz(node.get()) : summary(node.get());
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private Optional<NodeAgent> node(HttpExchange exchange) {
    String named = exchange.getRequestHeaders().getFirst(NODE_HEADER);
    if (named != null) {
      return Optional.ofNullable(agents.get(named));
    }
    return agents.size() == 1 ? agents.values().stream().findFirst() : Optional.empty();
  }

  // ---------------------------------------------------------------- /stats/summary

  private ObjectNode summary(NodeAgent node) {
    List<PodWorker.Running> pods = node.running();
    long machineBefore = machineCpuNanos();
    Map<String, Map<String, ContainerUsage>> before = new HashMap<>();
    pods.forEach(p -> before.put(key(p.pod()), runtime.usage(p.pod(), p.sandbox())));
    long wallBefore = System.nanoTime();
    try {
      Thread.sleep(SAMPLE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long wall = Math.max(1, System.nanoTime() - wallBefore);
    long machineAfter = machineCpuNanos();
    String now = clock.instant().toString();

    ObjectNode summary = JSON.createObjectNode();
    ObjectNode n = summary.putObject("node");
    n.put("nodeName", node.name());
    n.put("startTime", started.toString());
    n.set("cpu", cpu(now, machineAfter, rate(machineAfter - machineBefore, wall)));
    Map<String, Long> meminfo = meminfo();
    long total = meminfo.getOrDefault("MemTotal", 0L);
    long available = meminfo.getOrDefault("MemAvailable", 0L);
    ObjectNode memory = memory(now, total - available);
    memory.put("availableBytes", available);
    n.set("memory", memory);

    ArrayNode podStats = summary.putArray("pods");
    for (PodWorker.Running running : pods) {
      Pod pod = running.pod();
      Map<String, ContainerUsage> after = runtime.usage(pod, running.sandbox());
      Map<String, ContainerUsage> earlier = before.getOrDefault(key(pod), Map.of());
      ObjectNode p = podStats.addObject();
      p.putObject("podRef")
          .put("name", pod.getMetadata().getName())
          .put("namespace", pod.getMetadata().getNamespace())
          .put("uid", pod.getMetadata().getUid());
      p.put("startTime", running.sandbox().createdAt().toString());
      ArrayNode containers = p.putArray("containers");
      long podCpu = 0;
      long podCpuRate = 0;
      long podMemory = 0;
      for (RuntimeContainer c : running.sandbox().containers()) {
        ContainerUsage use = after.get(c.name());
        if (use == null) {
          continue;
        }
        ContainerUsage was = earlier.getOrDefault(c.name(), use);
        long cpuRate = rate(use.cpuNanos() - was.cpuNanos(), wall);
        ObjectNode container = containers.addObject();
        container.put("name", c.name());
        container.put("startTime", c.startedAt() == null ? now : c.startedAt().toString());
        container.set("cpu", cpu(now, use.cpuNanos(), cpuRate));
        container.set("memory", memory(now, use.memoryBytes()));
        podCpu += use.cpuNanos();
        podCpuRate += cpuRate;
        podMemory += use.memoryBytes();
      }
      p.set("cpu", cpu(now, podCpu, podCpuRate));
      p.set("memory", memory(now, podMemory));
    }
    return summary;
  }

  // ---------------------------------------------------------------- /metrics/resource

  /**
   * The kubelet's {@code /metrics/resource}: the node's and each running container's cumulative CPU
   * time and working set, each sample stamped with the time it was read (milliseconds), as
   * metrics-server reads them; no sampling wait, since a reader takes the rate between two scrapes.
   */
  String resourceMetrics(NodeAgent node) {
    long now = clock.millis();
    StringBuilder text = new StringBuilder();
    StringBuilder containerCpu = new StringBuilder();
    StringBuilder containerMemory = new StringBuilder();
    StringBuilder containerStart = new StringBuilder();
    StringBuilder podCpu = new StringBuilder();
    StringBuilder podMemory = new StringBuilder();
    for (PodWorker.Running running : node.running()) {
      Pod pod = running.pod();
      String podLabels =
          "namespace=\""
              + escape(pod.getMetadata().getNamespace())
              + "\",pod=\""
              + escape(pod.getMetadata().getName())
              + "\"";
      Map<String, ContainerUsage> usage = runtime.usage(pod, running.sandbox());
      long read = clock.millis();
      long cpu = 0;
      long memory = 0;
      for (RuntimeContainer c : running.sandbox().containers()) {
        ContainerUsage use = usage.get(c.name());
        if (use == null) {
          continue;
        }
        String labels = "{container=\"" + escape(c.name()) + "\"," + podLabels + "}";
        // A simulated container's CPU time is exact at its own moment: stamped with it, two
        // scrapes give exactly the annotated rate.
        long at = use.at() == null ? read : use.at().toEpochMilli();
        sample(containerCpu, "container_cpu_usage_seconds_total", labels, use.cpuNanos() / 1e9, at);
        sample(
            containerMemory, "container_memory_working_set_bytes", labels, use.memoryBytes(), at);
        Instant started = c.startedAt() == null ? running.sandbox().createdAt() : c.startedAt();
        sample(
            containerStart,
            "container_start_time_seconds",
            labels,
            started.toEpochMilli() / 1e3,
            started.toEpochMilli());
        cpu += use.cpuNanos();
        memory += use.memoryBytes();
      }
      sample(podCpu, "pod_cpu_usage_seconds_total", "{" + podLabels + "}", cpu / 1e9, read);
      sample(podMemory, "pod_memory_working_set_bytes", "{" + podLabels + "}", memory, read);
    }
    family(
        text,
        "container_cpu_usage_seconds_total",
        "counter",
        "Cumulative cpu time consumed by the container in core-seconds",
        containerCpu);
    family(
        text,
        "container_memory_working_set_bytes",
        "gauge",
        "Current working set of the container in bytes",
        containerMemory);
    family(
        text,
        "container_start_time_seconds",
        "gauge",
        "Start time of the container since unix epoch in seconds",
        containerStart);
    StringBuilder nodeCpu = new StringBuilder();
    sample(nodeCpu, "node_cpu_usage_seconds_total", "", machineCpuNanos() / 1e9, now);
    family(
        text,
        "node_cpu_usage_seconds_total",
        "counter",
        "Cumulative cpu time consumed by the node in core-seconds",
        nodeCpu);
    Map<String, Long> meminfo = meminfo();
    StringBuilder nodeMemory = new StringBuilder();
    sample(
        nodeMemory,
        "node_memory_working_set_bytes",
        "",
        meminfo.getOrDefault("MemTotal", 0L) - meminfo.getOrDefault("MemAvailable", 0L),
        now);
    family(
        text,
        "node_memory_working_set_bytes",
        "gauge",
        "Current working set of the node in bytes",
        nodeMemory);
    family(
        text,
        "pod_cpu_usage_seconds_total",
        "counter",
        "Cumulative cpu time consumed by the pod in core-seconds",
        podCpu);
    family(
        text,
        "pod_memory_working_set_bytes",
        "gauge",
        "Current working set of the pod in bytes",
        podMemory);
    StringBuilder error = new StringBuilder();
    sample(error, "resource_scrape_error", "", 0, -1);
    family(
        text,
        "resource_scrape_error",
        "gauge",
        "1 if there was an error while getting container metrics, 0 otherwise",
        error);
    return text.toString();
  }

  private static void family(
      StringBuilder text, String name, String type, String help, StringBuilder samples) {
    text.append("# HELP ").append(name).append(" [STABLE] ").append(help).append('\n');
    text.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    text.append(samples);
  }

  private static void sample(
      StringBuilder into, String name, String labels, double value, long timestampMillis) {
    into.append(name).append(labels).append(' ').append(value);
    if (timestampMillis >= 0) {
      into.append(' ').append(timestampMillis);
    }
    into.append('\n');
  }

  private static String escape(String label) {
    return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  private static long rate(long cpuNanos, long wallNanos) {
    return Math.max(0, cpuNanos) * 1_000_000_000L / wallNanos;
  }

  private static ObjectNode cpu(String time, long coreNanoSeconds, long nanoCores) {
    return JSON.createObjectNode()
        .put("time", time)
        .put("usageNanoCores", nanoCores)
        .put("usageCoreNanoSeconds", coreNanoSeconds);
  }

  private static ObjectNode memory(String time, long bytes) {
    return JSON.createObjectNode()
        .put("time", time)
        .put("usageBytes", bytes)
        .put("workingSetBytes", bytes)
        .put("rssBytes", bytes);
  }

  /** The machine's busy CPU time: {@code /proc/stat}'s first line but idle and iowait. */
  private static long machineCpuNanos() {
    try {
      String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < fields.length && i <= 8; i++) {
        if (i != 4 && i != 5) { // idle, iowait
          busy += Long.parseLong(fields[i]);
        }
      }
      return busy * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** {@code /proc/meminfo} in bytes, by field. */
  private static Map<String, Long> meminfo() {
    Map<String, Long> values = new HashMap<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        String[] parts = line.split(":\\s+");
        if (parts.length == 2) {
          String[] amount = parts[1].trim().split("\\s+");
          long value = Long.parseLong(amount[0]);
          values.put(parts[0], amount.length > 1 && amount[1].equals("kB") ? value * 1024 : value);
        }
      }
    } catch (IOException | RuntimeException e) {
      // no /proc: nothing to report
    }
    return values;
  }

  // ---------------------------------------------------------------- /configz, /metrics, /logs

  private ObjectNode configz(NodeAgent node) {
    NodeOptions options = node.options();
    ObjectNode config = JSON.createObjectNode();
    ObjectNode k = config.putObject("kubeletconfig");
    k.put("kind", "KubeletConfiguration");
    k.put("apiVersion", "kubelet.config.k8s.io/v1beta1");
    k.put("port", options.kubeletPort());
    k.put("podCIDR", options.podCIDR());
    k.put("maxPods", options.pods());
    k.put("syncFrequency", kubelet.syncPeriod().toSeconds() + "s");
    k.put("nodeStatusUpdateFrequency", NodeAgent.LEASE_PERIOD.toSeconds() + "s");
    k.put("nodeLeaseDurationSeconds", 40);
    k.putObject("crashLoopBackOff")
        .put("maxContainerRestartPeriod", kubelet.backOffMax().toSeconds() + "s");
    return config;
  }

  private static void metrics(HttpExchange exchange) throws IOException {
    ExpositionFormatWriter writer =
        ExpositionFormats.init().findWriter(exchange.getRequestHeaders().getFirst("Accept"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writer.write(out, PrometheusRegistry.defaultRegistry.scrape());
    exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
    exchange.sendResponseHeaders(200, out.size());
    try (OutputStream body = exchange.getResponseBody()) {
      out.writeTo(body);
    }
  }

  /** A file of {@code /var/log}, or a directory's listing as the kubelet's file server lists it. */
  private static void logs(HttpExchange exchange, String relative) throws IOException {
    Path target = LOGS.resolve(relative).normalize();
    if (!target.startsWith(LOGS) || !Files.exists(target)) {
      text(exchange, 404, "404 page not found\n");
      return;
    }
    if (Files.isDirectory(target)) {
      StringBuilder html = new StringBuilder("<pre>\n");
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(target)) {
        new TreeSet<>(
                java.util.stream.StreamSupport.stream(entries.spliterator(), false)
                    .map(e -> e.getFileName() + (Files.isDirectory(e) ? "/" : ""))
                    .toList())
            .forEach(
                n -> html.append("<a href=\"").append(n).append("\">").append(n).append("</a>\n"));
      }
      html.append("</pre>\n");
      byte[] bytes = html.toString().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
      return;
    }
    if (!Files.isReadable(target)) {
      text(exchange, 403, "403 Forbidden\n");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(200, Files.size(target));
    try (OutputStream out = exchange.getResponseBody()) {
      Files.copy(target, out);
    }
  }

  private static void text(HttpExchange exchange, int code, String message) throws IOException {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
