package io.streamplane.gateway.podautoscaler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.cache.StoredObjects;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.ContainerMetrics;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.Memory;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.Outcome;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.Target;
import io.streamplane.gateway.resourcemetrics.MetricsStorage;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.ObjectEvents;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The horizontal pod autoscaler controller, run by a gateway: every {@code syncPeriod} (15 s, as
 * kube-controller-manager's {@code --horizontal-pod-autoscaler-sync-period}; the JVM property
 * {@value #SYNC_PERIOD_PROPERTY} sets it) it reconciles each HorizontalPodAutoscaler of the cache
 * ({@link HorizontalReconciler}) with its target's Scale, the pods the Scale's selector selects and
 * their figures from the gateway's resource metrics, and writes what changed: the target's {@code
 * scale} subresource when the replicas change, the autoscaler's {@code status} when it differs from
 * the stored one. A converged autoscaler writes nothing. Writes go through the API as {@code
 * system:serviceaccount:kube-system:horizontal-pod-autoscaler}, with its admission.
 *
 * <p>Only the gateway that {@code leads} says runs it (with several gateways, the live one whose
 * address sorts first), so one autoscaler is decided in one place. Its recommendations and scale
 * events are in memory, as kube-controller-manager keeps them: a gateway taking over starts with
 * none, so a scale-down waits a full stabilization window again.
 */
public final class HorizontalPodAutoscalerController implements AutoCloseable {

  private static final Logger LOG =
      LoggerFactory.getLogger(HorizontalPodAutoscalerController.class);

  /** The JVM property that sets the sync period (ISO-8601, {@code PT15S}). */
  public static final String SYNC_PERIOD_PROPERTY =
      "streamplane.horizontal-pod-autoscaler-sync-period";

  private static final String GROUP = "autoscaling";
  private static final String RESOURCE = "horizontalpodautoscalers";
  private static final KubeJson EVENT_JSON = new KubeJson();

  private final StoredObjects cache;
  private final ResourceService service;
  private final ResourceRegistry registry;
  private final ResourceType type;
  private final ResourceType events;
  private final MetricsStorage metrics;
  private final WriteOptions options;
  private final Clock clock;
  private final BooleanSupplier leads;
  private final Map<String, Memory> memory = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "horizontal-pod-autoscaler");
            t.setDaemon(true);
            return t;
          });

  public HorizontalPodAutoscalerController(
      StoredObjects cache,
      ResourceService service,
      ResourceRegistry registry,
      MetricsStorage metrics,
      WriteOptions options,
      Clock clock,
      BooleanSupplier leads) {
    this.cache = cache;
    this.service = service;
    this.registry = registry;
    this.type = registry.byResource(GROUP, RESOURCE).orElseThrow();
    this.events = registry.byResource("", "events").orElseThrow();
    this.metrics = metrics;
    this.options = options;
    this.clock = clock;
    this.leads = leads;
  }

  /** The sync period the JVM property sets, else 15 s. */
  public static Duration configuredSyncPeriod() {
    String value = System.getProperty(SYNC_PERIOD_PROPERTY);
    return value == null ? Duration.ofSeconds(15) : Duration.parse(value);
  }

  public HorizontalPodAutoscalerController start(Duration period) {
    timer.scheduleWithFixedDelay(
        () -> {
          try {
            if (leads.getAsBoolean()) {
              syncAll();
            }
          } catch (RuntimeException e) {
            LOG.warn("the horizontal pod autoscaler pass failed: {}", e.toString());
          }
        },
        period.toMillis(),
        period.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
  }

  /** One pass over every autoscaler. */
  void syncAll() {
    List<ObjectNode> all = cache.list(GROUP, RESOURCE, null, o -> true).items();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (ObjectNode hpa : all) {
      String key = key(hpa);
      seen.add(key);
      try {
        sync(hpa);
      } catch (RuntimeException e) {
        LOG.info("autoscaler {}: {}", key, e.toString());
      }
    }
    memory.keySet().retainAll(seen);
  }

  private static String key(JsonNode hpa) {
    return hpa.path("metadata").path("namespace").asText()
        + "/"
        + hpa.path("metadata").path("name").asText();
  }

  private void sync(ObjectNode hpa) {
    String namespace = hpa.path("metadata").path("namespace").asText();
    String key = key(hpa);
    JsonNode ref = hpa.path("spec").path("scaleTargetRef");
    Target target;
    ResourceType targetType = null;
    List<JsonNode> pods = List.of();
    try {
      targetType = targetType(ref);
      ObjectNode scale = service.scale(targetType, namespace, ref.path("name").asText());
      target = new Target(scale, null);
      if (HorizontalReconciler.invalidSelector(scale) == null) {
        Selectors.LabelSelector selector =
            Selectors.parseLabels(scale.path("status").path("selector").asText());
        pods = new ArrayList<>(cache.list("", "pods", namespace, selector::matches).items());
      }
    } catch (ApiException e) {
      target = new Target(null, e.getMessage());
    }
    Map<String, ContainerMetrics> figures = new LinkedHashMap<>();
    for (JsonNode pod : pods) {
      String name = pod.path("metadata").path("name").asText();
      metrics
          .pod(namespace, name)
          .ifPresent(
              usage -> {
                Map<String, Long> cpu = new HashMap<>();
                Map<String, Long> memoryUse = new HashMap<>();
                usage
                    .containers()
                    .forEach(
                        c -> {
                          cpu.put(c.name(), (c.nanoCores() + 999_999) / 1_000_000);
                          memoryUse.put(c.name(), c.memoryBytes() * 1000);
                        });
                figures.put(
                    name, new ContainerMetrics(cpu, memoryUse, usage.timestamp(), usage.window()));
              });
    }
    Outcome outcome =
        HorizontalReconciler.reconcile(
            hpa, target, pods, figures, memory.getOrDefault(key, Memory.EMPTY), clock.instant());
    if (outcome.scaleTo() != null) {
      try {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("apiVersion", "autoscaling/v1").put("kind", "Scale");
        body.putObject("metadata")
            .put("name", ref.path("name").asText())
            .put("namespace", namespace);
        body.putObject("spec").put("replicas", outcome.scaleTo());
        service.updateScale(targetType, namespace, ref.path("name").asText(), null, body, options);
        recordRescale(hpa, namespace, outcome);
      } catch (ApiException e) {
        LOG.info("autoscaler {} could not rescale: {}", key, e.getMessage());
        return; // the next pass decides again from what is then stored
      }
    }
    memory.put(key, outcome.memory());
    if (!outcome.status().equals(hpa.path("status"))) {
      ObjectNode updated = hpa.deepCopy();
      updated.set("status", outcome.status());
      service.updateStatus(
          type, namespace, hpa.path("metadata").path("name").asText(), updated, options);
    }
  }

  /**
   * {@code SuccessfulRescale}, {@code New size: <n>; reason: <why>}, once the target's scale is
   * written, as kube-controller-manager records it; an Event that cannot be written is only logged.
   */
  private void recordRescale(JsonNode hpa, String namespace, Outcome outcome) {
    try {
      ObjectMeta meta =
          ObjectMeta.newBuilder()
              .setName(meta(hpa).path("name").asText())
              .setNamespace(namespace)
              .setUid(meta(hpa).path("uid").asText(null))
              .setResourceVersion(meta(hpa).path("resourceVersion").asText(null))
              .build();
      Event event =
          ObjectEvents.about(
              "HorizontalPodAutoscaler",
              "autoscaling/v2",
              meta,
              EventSource.newBuilder().setComponent("horizontal-pod-autoscaler").build(),
              "Normal",
              "SuccessfulRescale",
              "New size: " + outcome.scaleTo() + "; reason: " + outcome.rescaleReason(),
              clock.instant(),
              meta.getUid() + "/" + meta.getResourceVersion() + "/" + outcome.scaleTo());
      service.create(events, namespace, EVENT_JSON.toJson(event), options);
    } catch (ApiException e) {
      LOG.info(
          "autoscaler {}/{} could not record its rescale: {}",
          namespace,
          meta(hpa).path("name").asText(),
          e.getMessage());
    }
  }

  private static JsonNode meta(JsonNode object) {
    return object.path("metadata");
  }

  /** The stored resource a {@code scaleTargetRef} names, if it has a {@code scale} subresource. */
  private ResourceType targetType(JsonNode ref) {
    String apiVersion = ref.path("apiVersion").asText("");
    String kind = ref.path("kind").asText();
    Optional<ResourceType> found = registry.byApiVersionKind(apiVersion, kind);
    if (found.isEmpty()) {
      int slash = apiVersion.indexOf('/');
      found = registry.byKind(slash < 0 ? "" : apiVersion.substring(0, slash), kind);
    }
    ResourceType t =
        found
            .filter(ResourceType::stored)
            .filter(r -> r.subresource("scale").isPresent())
            .orElseThrow(
                () -> new ApiException(io.streamplane.gateway.api.Statuses.notFoundPath()));
    return t;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
