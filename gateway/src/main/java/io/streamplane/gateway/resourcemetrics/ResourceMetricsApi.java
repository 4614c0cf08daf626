package io.streamplane.gateway.resourcemetrics;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.cache.StoredObjects;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.gateway.resourcemetrics.MetricsStorage.ContainerUsage;
import io.streamplane.gateway.resourcemetrics.MetricsStorage.PodUsage;
import io.streamplane.gateway.resourcemetrics.MetricsStorage.Usage;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;

/**
 * {@code metrics.k8s.io/v1beta1}, as metrics-server serves it through kube-apiserver's aggregation:
 * {@code nodes} (NodeMetrics) and {@code pods} (PodMetrics), {@code get} and {@code list} with
 * label and field selectors, from the {@link MetricsStorage} the gateway's scraper keeps. As in
 * metrics-server, an object is listed only if it still exists in the cache and has figures; its
 * metadata carries the object's name, namespace and labels and the time of the answer; {@code
 * timestamp} and {@code window} say when and over how long CPU was measured; CPU is in nanocores
 * and memory in bytes, written as canonical quantities. A node or pod without figures is {@code 404
 * nodemetrics.metrics.k8s.io "name" not found} (or {@code podmetrics... "ns/name"}), the words of
 * metrics-server.
 */
public final class ResourceMetricsApi {

  public static final String GROUP = "metrics.k8s.io";
  public static final String VERSION = "v1beta1";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final StoredObjects cache;
  private final MetricsStorage storage;
  private final Clock clock;
  private final ResourceType nodeMetrics;
  private final ResourceType podMetrics;

  public ResourceMetricsApi(
      ResourceRegistry registry, StoredObjects cache, MetricsStorage storage, Clock clock) {
    this.cache = cache;
    this.storage = storage;
    this.clock = clock;
    this.nodeMetrics = registry.byResource(GROUP, "nodes").orElseThrow();
    this.podMetrics = registry.byResource(GROUP, "pods").orElseThrow();
  }

  /** Whether a request is one of this API's. */
  public static boolean serves(RequestInfo request) {
    return request.resourceRequest()
        && GROUP.equals(request.group())
        && VERSION.equals(request.version());
  }

  /** Answers a {@code get} or {@code list}; anything else is 405, an unknown path 404. */
  public ObjectNode answer(RequestInfo request, Map<String, String> query) {
    boolean nodes = "nodes".equals(request.resource());
    if ((!nodes && !"pods".equals(request.resource())) || request.subresource() != null) {
      throw new ApiException(Statuses.notFoundPath());
    }
    ResourceType type = nodes ? nodeMetrics : podMetrics;
    if (nodes && request.namespace() != null) {
      throw new ApiException(Statuses.notFoundPath());
    }
    switch (request.verb()) {
      case "get" -> {
        return nodes ? getNode(request.name()) : getPod(request.namespace(), request.name());
      }
      case "list" -> {
        Selectors.LabelSelector labels = Selectors.parseLabels(query.get("labelSelector"));
        Selectors.FieldSelector fields = Selectors.parseFields(query.get("fieldSelector"), type);
        return nodes ? listNodes(labels, fields) : listPods(request.namespace(), labels, fields);
      }
      default ->
          throw new ApiException(Statuses.methodNotAllowed(GROUP, type.plural(), request.verb()));
    }
  }

  private ObjectNode getNode(String name) {
    return cache
        .get("", "nodes", null, name)
        .flatMap(this::nodeMetrics)
        .orElseThrow(() -> new ApiException(Statuses.notFound(GROUP, "nodemetrics", name)));
  }

  private ObjectNode getPod(String namespace, String name) {
    return cache
        .get("", "pods", namespace, name)
        .flatMap(this::podMetrics)
        .orElseThrow(
            () -> new ApiException(Statuses.notFound(GROUP, "podmetrics", namespace + "/" + name)));
  }

  private ObjectNode listNodes(Selectors.LabelSelector labels, Selectors.FieldSelector fields) {
    ObjectNode list = list("NodeMetricsList");
    ArrayNode items = list.putArray("items");
    for (ObjectNode node : cache.list("", "nodes", null, labels::matches).items()) {
      nodeMetrics(node).filter(fields::matches).ifPresent(items::add);
    }
    return list;
  }

  private ObjectNode listPods(
      String namespace, Selectors.LabelSelector labels, Selectors.FieldSelector fields) {
    ObjectNode list = list("PodMetricsList");
    ArrayNode items = list.putArray("items");
    for (ObjectNode pod : cache.list("", "pods", namespace, labels::matches).items()) {
      podMetrics(pod).filter(fields::matches).ifPresent(items::add);
    }
    return list;
  }

  private ObjectNode list(String kind) {
    ObjectNode list = JSON.objectNode();
    list.put("kind", kind);
    list.put("apiVersion", GROUP + "/" + VERSION);
    list.putObject("metadata");
    return list;
  }

  private Optional<ObjectNode> nodeMetrics(ObjectNode node) {
    String name = node.path("metadata").path("name").asText();
    Optional<Usage> usage = storage.node(name);
    if (usage.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode m = object("NodeMetrics", node);
    m.put("timestamp", usage.get().timestamp().truncatedTo(ChronoUnit.SECONDS).toString());
    m.put("window", window(usage.get().window()));
    usage(m.putObject("usage"), usage.get().nanoCores(), usage.get().memoryBytes());
    return Optional.of(m);
  }

  private Optional<ObjectNode> podMetrics(ObjectNode pod) {
    String namespace = pod.path("metadata").path("namespace").asText();
    String name = pod.path("metadata").path("name").asText();
    Optional<PodUsage> usage = storage.pod(namespace, name);
    if (usage.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode m = object("PodMetrics", pod);
    m.put("timestamp", usage.get().timestamp().truncatedTo(ChronoUnit.SECONDS).toString());
    m.put("window", window(usage.get().window()));
    ArrayNode containers = m.putArray("containers");
    for (ContainerUsage c : usage.get().containers()) {
      ObjectNode container = containers.addObject();
      container.put("name", c.name());
      usage(container.putObject("usage"), c.nanoCores(), c.memoryBytes());
    }
    return Optional.of(m);
  }

  private ObjectNode object(String kind, ObjectNode of) {
    ObjectNode m = JSON.objectNode();
    m.put("kind", kind);
    m.put("apiVersion", GROUP + "/" + VERSION);
    ObjectNode metadata = m.putObject("metadata");
    metadata.put("name", of.path("metadata").path("name").asText());
    if (of.path("metadata").has("namespace")) {
      metadata.put("namespace", of.path("metadata").path("namespace").asText());
    }
    metadata.put("creationTimestamp", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    if (of.path("metadata").path("labels").isObject()) {
      metadata.set("labels", of.path("metadata").path("labels").deepCopy());
    }
    return m;
  }

  private static void usage(ObjectNode into, long nanoCores, long memoryBytes) {
    into.put("cpu", cpu(nanoCores));
    into.put("memory", memory(memoryBytes));
  }

  /** Nanocores as the canonical decimal quantity: {@code 250000000} is {@code 250m}. */
  static String cpu(long nanoCores) {
    if (nanoCores == 0) {
      return "0";
    }
    String[] suffixes = {"n", "u", "m", ""};
    long value = nanoCores;
    int i = 0;
    while (i < 3 && value % 1000 == 0) {
      value /= 1000;
      i++;
    }
    return value + suffixes[i];
  }

  /** Bytes as the canonical binary quantity: {@code 67108864} is {@code 64Mi}. */
  static String memory(long bytes) {
    if (bytes == 0) {
      return "0";
    }
    String[] suffixes = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    long value = bytes;
    int i = 0;
    while (i < 6 && value % 1024 == 0) {
      value /= 1024;
      i++;
    }
    return value + suffixes[i];
  }

  /** A Go duration as metav1.Duration writes it: {@code 15.002s}, {@code 1m0.5s}. */
  static String window(Duration d) {
    long millis = d.toMillis();
    long minutes = millis / 60_000;
    long rest = millis % 60_000;
    String seconds = java.math.BigDecimal.valueOf(rest, 3).stripTrailingZeros().toPlainString();
    return (minutes > 0 ? minutes + "m" : "") + seconds + "s";
  }
}
