package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.DeleteOptions;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller's write executed as kube-controller-manager's requests are by kube-apiserver: the
 * command a controller put on {@code controller-requests} goes through this gateway's registry —
 * decoding, defaulting, the whole admission chain (LimitRanger, ServiceAccount, PodSecurity,
 * webhooks, ResourceQuota) — as the controller's own service account, its managedFields recorded
 * under {@code kube-controller-manager}. So a Deployment's pods get a LimitRange's defaults and a
 * mutating webhook's changes, and are charged to quotas, like any pod.
 *
 * <p>A refusal is the controller's to see, as Kubernetes shows it: a create refused by admission or
 * validation leaves a {@code FailedCreate} Warning event on the object's controller owner ({@code
 * Error creating: <the refusal>}), one event per owner and refusal whose count grows when it
 * repeats. Conflicts, AlreadyExists and NotFound are the controllers' optimistic concurrency
 * working (they carry the version or uid they decided on) and are dropped: the controller decides
 * again from what it sees next. A request the store did not answer (a timeout, the store
 * unavailable, too many requests) is no refusal: {@link #execute} says so, and its caller tries it
 * again, as a controller of Kubernetes requeues a write that failed; a controller learns nothing of
 * it otherwise and would wait for its expectation to expire.
 */
public final class ControllerRequests {

  private static final Logger LOG = LoggerFactory.getLogger(ControllerRequests.class);
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String MERGE_PATCH = "application/merge-patch+json";

  private final ResourceService service;
  private final ResourceRegistry registry;
  private final KubeJson json;
  private final Clock clock;
  private final ResourceType events;

  public ControllerRequests(
      ResourceService service, ResourceRegistry registry, KubeJson json, Clock clock) {
    this.service = service;
    this.registry = registry;
    this.json = json;
    this.clock = clock;
    this.events = registry.byResource("", "events").orElseThrow();
  }

  /**
   * Executes one request, reporting a refusal as Kubernetes does; false if the store did not answer
   * and {@code lastAttempt} is not set, so that the request may be tried again (nothing is reported
   * then). Tried again, a write that was applied after all is answered AlreadyExists, NotFound or
   * Conflict, which are dropped.
   */
  public boolean execute(ResourceCommand request, boolean lastAttempt) {
    Optional<ResourceType> found = registry.byResource(request.getGroup(), request.getResource());
    if (found.isEmpty()) {
      LOG.warn(
          "a controller asked to {} {}.{}, which this gateway does not serve",
          request.getVerb(),
          request.getResource(),
          request.getGroup());
      return true;
    }
    ResourceType type = found.get();
    WriteOptions options =
        new WriteOptions(
            request.getActor(),
            request.getDryRun(),
            "Strict",
            request.getAuditId(),
            AdmissionControllers.MANAGER,
            null,
            null);
    SpecificRecord object = KindObjects.of(request);
    try {
      switch (request.getVerb()) {
        case CREATE -> service.create(type, request.getNamespace(), body(type, object), options);
        case UPDATE ->
            service.update(
                type, request.getNamespace(), request.getName(), body(type, object), options);
        case UPDATE_STATUS ->
            service.updateStatus(
                type, request.getNamespace(), request.getName(), body(type, object), options);
        case DELETE ->
            service.delete(
                type, request.getNamespace(), request.getName(), deleteOptions(request), options);
        default ->
            LOG.warn(
                "a controller asked for {}, which goes to the store directly", request.getVerb());
      }
    } catch (ApiException e) {
      if (!lastAttempt && unanswered(e.code())) {
        LOG.debug(
            "{} of {} {} not answered, to be tried again: {}",
            request.getVerb(),
            type.plural(),
            request.getName(),
            e.getMessage());
        return false;
      }
      if (e.code() == 409 || e.code() == 404) {
        LOG.debug(
            "{} of {} {}: {}", request.getVerb(), type.plural(), request.getName(), e.getMessage());
      } else if (request.getVerb() == CommandVerb.CREATE && object != null) {
        failedCreate(type, object, request, e.getMessage());
      } else {
        LOG.info(
            "{} of {} {}/{} by {} refused: {}",
            request.getVerb(),
            type.plural(),
            request.getNamespace(),
            request.getName(),
            request.getActor().getUsername(),
            e.getMessage());
      }
    }
    return true;
  }

  /** A timeout, the store unavailable or too many requests: no answer, not a refusal. */
  private static boolean unanswered(int code) {
    return code == 504 || code == 503 || code == 429;
  }

  private ObjectNode body(ResourceType type, SpecificRecord object) {
    ObjectNode body = json.toJson(object);
    body.put("apiVersion", type.groupVersion());
    body.put("kind", type.kind());
    return body;
  }

  private static ObjectNode deleteOptions(ResourceCommand request) {
    ObjectNode options = JSON.objectNode();
    DeleteOptions delete = request.getDeleteOptions();
    if (delete != null && delete.getPropagationPolicy() != null) {
      options.put("propagationPolicy", delete.getPropagationPolicy());
    }
    if (delete != null && delete.getGracePeriodSeconds() != null) {
      options.put("gracePeriodSeconds", delete.getGracePeriodSeconds());
    }
    Preconditions preconditions = request.getPreconditions();
    if (preconditions != null) {
      ObjectNode p = options.putObject("preconditions");
      if (preconditions.getUid() != null) {
        p.put("uid", preconditions.getUid());
      }
      if (preconditions.getResourceVersion() != null) {
        p.put("resourceVersion", preconditions.getResourceVersion());
      }
    }
    return options;
  }

  /**
   * The replicaset controller's {@code FailedCreate} event on the owner of a refused create: named
   * after the owner and the refusal, so the same refusal again raises the count of one event.
   */
  private void failedCreate(
      ResourceType type, SpecificRecord object, ResourceCommand request, String refusal) {
    JsonNode owner = controllerOf(json.toJson(object));
    if (owner == null) {
      LOG.info("create of {} {} refused: {}", type.plural(), request.getName(), refusal);
      return;
    }
    String namespace = request.getNamespace();
    String message = "Error creating: " + refusal;
    String component = component(request.getActor().getUsername());
    String name =
        owner.path("name").asText()
            + "."
            + digest(owner.path("uid").asText() + "\n" + message).substring(0, 16);
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    WriteOptions options =
        new WriteOptions(
            request.getActor(),
            false,
            "Strict",
            request.getAuditId(),
            AdmissionControllers.MANAGER,
            null,
            null);
    try {
      ObjectNode existing = service.get(events, namespace, name);
      ObjectNode patch = JSON.objectNode();
      patch.put("count", existing.path("count").asInt(1) + 1);
      patch.put("lastTimestamp", now);
      service.patch(events, namespace, name, null, MERGE_PATCH, patch, options);
      return;
    } catch (ApiException e) {
      if (e.code() != 404) {
        LOG.warn(
            "could not record FailedCreate on {}: {}", owner.path("name").asText(), e.getMessage());
        return;
      }
    }
    ObjectNode event = JSON.objectNode();
    event.put("apiVersion", "v1").put("kind", "Event");
    event.putObject("metadata").put("name", name).put("namespace", namespace);
    ObjectNode involved = event.putObject("involvedObject");
    involved.put("apiVersion", owner.path("apiVersion").asText());
    involved.put("kind", owner.path("kind").asText());
    involved.put("name", owner.path("name").asText());
    involved.put("namespace", namespace);
    involved.put("uid", owner.path("uid").asText());
    event.put("reason", "FailedCreate");
    event.put("message", message);
    event.put("type", "Warning");
    event.putObject("source").put("component", component);
    event.put("reportingComponent", component);
    event.put("firstTimestamp", now);
    event.put("lastTimestamp", now);
    event.put("count", 1);
    try {
      service.create(events, namespace, event, options);
    } catch (ApiException e) {
      LOG.warn(
          "could not record FailedCreate on {}: {}", owner.path("name").asText(), e.getMessage());
    }
  }

  /** The ownerReference with {@code controller: true}, or null. */
  private static JsonNode controllerOf(ObjectNode object) {
    for (JsonNode reference : object.path("metadata").path("ownerReferences")) {
      if (reference.path("controller").asBoolean(false)) {
        return reference;
      }
    }
    return null;
  }

  /**
   * {@code replicaset-controller} for {@code
   * system:serviceaccount:kube-system:replicaset-controller}.
   */
  private static String component(String username) {
    return username.substring(username.lastIndexOf(':') + 1);
  }

  private static String digest(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
