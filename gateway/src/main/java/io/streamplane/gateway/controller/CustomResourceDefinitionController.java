package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.conversion.ConversionWebhook;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.gateway.webhook.WebhookClient;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.kinds.apiextensions.CustomResourceDefinitionStrategy;
import io.streamplane.kinds.apiextensions.CustomResources;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What apiextensions-apiserver's controllers do with CustomResourceDefinitions, run by every
 * gateway over its own cache: the naming controller (a definition's names are accepted, {@code
 * NamesAccepted}, unless another definition of the group already accepted its kind, or one of its
 * short names, list kind or singular; {@code acceptedNames}), the establishing controller ({@code
 * Established} once the names are accepted; {@code storedVersions}), the handler's table of served
 * kinds (this gateway's {@link ResourceRegistry#serveCustom}, replaced whenever a definition
 * changes, so a kind is served as soon as this gateway sees its definition Established; the
 * versions of a definition with {@code Webhook} conversion converted by its {@link
 * ConversionWebhook}), and the finalizer controller (a deleted definition's objects are all
 * deleted, then the {@code customresourcecleanup.apiextensions.k8s.io} finalizer is removed).
 *
 * <p>Every change of a definition queues one pass over all of them, on one thread; a pass that
 * waits for objects to go looks again after {@link #RETRY}. Status writes go through the {@link
 * ResourceService} with the version read as precondition: of two gateways writing the same
 * conditions, the second gets a Conflict and finds them written. A converged cluster writes
 * nothing.
 */
public final class CustomResourceDefinitionController implements AutoCloseable {

  private static final Logger LOG =
      LoggerFactory.getLogger(CustomResourceDefinitionController.class);
  static final String GROUP = "apiextensions.k8s.io";
  static final String RESOURCE = "customresourcedefinitions";
  private static final long RETRY = 500;

  private final WatchCache cache;
  private final ResourceService service;
  private final ResourceRegistry registry;
  private final ResourceType definitions;
  private final WriteOptions options;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final AtomicBoolean queued = new AtomicBoolean();
  private final WebhookClient webhooks = new WebhookClient();
  private WatchCache.Registration watch;

  CustomResourceDefinitionController(
      WatchCache cache,
      ResourceService service,
      ResourceRegistry registry,
      WriteOptions options,
      Clock clock) {
    this.cache = cache;
    this.service = service;
    this.registry = registry;
    this.definitions = registry.byResource(GROUP, RESOURCE).orElseThrow();
    this.options = options;
    this.clock = clock;
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "customresourcedefinitions-controller");
              t.setDaemon(true);
              return t;
            });
  }

  CustomResourceDefinitionController start() {
    watch = cache.watch(GROUP, RESOURCE, null, change -> true, change -> queue(0));
    queue(0);
    return this;
  }

  private void queue(long delayMillis) {
    if (queued.compareAndSet(false, true)) {
      executor.schedule(
          () -> {
            queued.set(false);
            try {
              if (!sync()) {
                queue(RETRY);
              }
            } catch (RuntimeException e) {
              LOG.warn("the CustomResourceDefinition controller failed: {}", e.toString());
              queue(RETRY);
            }
          },
          delayMillis,
          TimeUnit.MILLISECONDS);
    }
  }

  /** One pass over every definition; false when something is left to do (objects to delete). */
  boolean sync() {
    List<ObjectNode> crds = cache.list(GROUP, RESOURCE, null, o -> true).items();
    List<ResourceType> rows = new ArrayList<>();
    crds.forEach(crd -> rows.addAll(CustomResources.rows(crd, converter(crd))));
    registry.serveCustom(rows);
    boolean done = true;
    for (ObjectNode crd : crds) {
      try {
        if (crd.path("metadata").has("deletionTimestamp")) {
          done &= finalize(crd);
        } else {
          accept(crd, crds);
        }
      } catch (ApiException e) {
        if (e.code() != 409 && e.code() != 404) {
          LOG.warn(
              "CustomResourceDefinition {}: {}",
              crd.path("metadata").path("name").asText(),
              e.getMessage());
        }
        done = false;
      }
    }
    return done;
  }

  /** The definition's conversion: None, or its webhook. */
  private CustomResources.VersionConverter converter(JsonNode crd) {
    return CustomResources.convertsByWebhook(crd)
        ? new ConversionWebhook(webhooks, crd)
        : CustomResources.VersionConverter.NONE;
  }

  /** Writes NamesAccepted, Established, acceptedNames and storedVersions when they differ. */
  private void accept(ObjectNode crd, List<ObjectNode> all) {
    JsonNode spec = crd.path("spec");
    JsonNode names = spec.path("names");
    String conflict = conflict(crd, all);
    ObjectNode status =
        crd.path("status").isObject()
            ? ((ObjectNode) crd.get("status")).deepCopy()
            : JsonNodeFactory.instance.objectNode();
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    if (conflict == null) {
      status.set("acceptedNames", names.deepCopy());
      condition(status, "NamesAccepted", "True", "NoConflicts", "no conflicts found", now);
      if (!CustomResources.established(crd)) {
        condition(
            status,
            "Established",
            "True",
            "InitialNamesAccepted",
            "the initial names have been accepted",
            now);
      }
    } else {
      condition(status, "NamesAccepted", "False", "MultipleNamesNotAllowed", conflict, now);
      if (!CustomResources.established(crd)) {
        condition(status, "Established", "False", "NotAccepted", "not all names are accepted", now);
      }
    }
    ArrayNode stored = status.withArray("storedVersions");
    for (JsonNode version : spec.path("versions")) {
      String name = version.path("name").asText();
      boolean present = false;
      for (JsonNode v : stored) {
        present |= v.asText().equals(name);
      }
      if (version.path("storage").asBoolean(false) && !present) {
        stored.add(name);
      }
    }
    if (status.equals(crd.path("status"))) {
      return;
    }
    ObjectNode updated = crd.deepCopy();
    updated.set("status", status);
    service.updateStatus(
        definitions, null, crd.path("metadata").path("name").asText(), updated, options);
  }

  /** Why another definition of the group holds one of this one's names, or null. */
  private static String conflict(ObjectNode crd, List<ObjectNode> all) {
    String group = crd.path("spec").path("group").asText();
    String name = crd.path("metadata").path("name").asText();
    JsonNode names = crd.path("spec").path("names");
    for (ObjectNode other : all) {
      if (other.path("metadata").path("name").asText().equals(name)
          || !other.path("spec").path("group").asText().equals(group)) {
        continue;
      }
      JsonNode taken = other.path("status").path("acceptedNames");
      if (names.path("kind").asText().equals(taken.path("kind").asText())) {
        return "\"" + names.path("kind").asText() + "\" is already in use";
      }
      Set<String> takenShort = new HashSet<>();
      taken.path("shortNames").forEach(s -> takenShort.add(s.asText()));
      takenShort.add(taken.path("plural").asText());
      takenShort.add(taken.path("singular").asText());
      for (JsonNode shortName : names.path("shortNames")) {
        if (takenShort.contains(shortName.asText())) {
          return "\"" + shortName.asText() + "\" is already in use";
        }
      }
    }
    return null;
  }

  private static void condition(
      ObjectNode status, String type, String value, String reason, String message, Instant now) {
    ArrayNode conditions = status.withArray("conditions");
    for (JsonNode c : conditions) {
      if (c.path("type").asText().equals(type)) {
        ObjectNode existing = (ObjectNode) c;
        if (!existing.path("status").asText().equals(value)) {
          existing.put("lastTransitionTime", now.toString());
        }
        existing.put("status", value).put("reason", reason).put("message", message);
        return;
      }
    }
    conditions
        .addObject()
        .put("type", type)
        .put("status", value)
        .put("lastTransitionTime", now.toString())
        .put("reason", reason)
        .put("message", message);
  }

  /**
   * A deleted definition: its objects are deleted, then its cleanup finalizer removed; true once
   * nothing is left to wait for.
   */
  private boolean finalize(ObjectNode crd) {
    boolean holds = false;
    for (JsonNode f : crd.path("metadata").path("finalizers")) {
      holds |= f.asText().equals(CustomResourceDefinitionStrategy.CLEANUP_FINALIZER);
    }
    if (!holds) {
      return true;
    }
    ResourceType type = CustomResources.storageRow(crd);
    if (type != null) {
      List<ObjectNode> remaining = cache.list(type.group(), type.plural(), null, o -> true).items();
      if (!remaining.isEmpty()) {
        for (ObjectNode object : remaining) {
          if (object.path("metadata").has("deletionTimestamp")) {
            continue;
          }
          try {
            service.delete(
                type,
                type.namespaced() ? object.path("metadata").path("namespace").asText() : null,
                object.path("metadata").path("name").asText(),
                JsonNodeFactory.instance.objectNode(),
                options);
          } catch (ApiException e) {
            if (e.code() != 404) {
              throw e;
            }
          }
        }
        return false;
      }
    }
    ObjectNode updated = crd.deepCopy();
    ArrayNode finalizers = JsonNodeFactory.instance.arrayNode();
    for (JsonNode f : crd.path("metadata").path("finalizers")) {
      if (!f.asText().equals(CustomResourceDefinitionStrategy.CLEANUP_FINALIZER)) {
        finalizers.add(f);
      }
    }
    ((ObjectNode) updated.get("metadata")).set("finalizers", finalizers);
    service.update(definitions, null, crd.path("metadata").path("name").asText(), updated, options);
    return true;
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    executor.shutdownNow();
  }
}
