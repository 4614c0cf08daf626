package io.streamplane.gateway.storage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.AdmissionRequest;
import io.streamplane.gateway.admission.Defaults;
import io.streamplane.gateway.admission.Operation;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.GoValues;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.apply.ApplyStatuses;
import io.streamplane.gateway.apply.FieldManager;
import io.streamplane.gateway.apply.ObjectFields;
import io.streamplane.gateway.cache.CacheUnavailableException;
import io.streamplane.gateway.cache.ListVersion;
import io.streamplane.gateway.cache.StoredObjects;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.history.HistoryIndex;
import io.streamplane.gateway.history.ObjectVersion;
import io.streamplane.gateway.history.VersionsJson;
import io.streamplane.gateway.metrics.GatewayMetrics;
import io.streamplane.gateway.patch.CustomResourcePatchSchema;
import io.streamplane.gateway.patch.JsonMergePatch;
import io.streamplane.gateway.patch.JsonPatch;
import io.streamplane.gateway.patch.PatchException;
import io.streamplane.gateway.patch.PatchSchema;
import io.streamplane.gateway.patch.StrategicMergePatch;
import io.streamplane.gateway.write.CommandLog;
import io.streamplane.kinds.ResourceType;
import io.streamplane.kinds.apiextensions.CustomResourceStrategy;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.log.CommandResult;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.DeleteOptions;
import io.streamplane.log.EventType;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.convert.ConversionException;
import io.streamplane.schema.convert.Decoded;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.convert.UnknownField;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.avro.specific.SpecificRecord;

/**
 * The registry behind the gateway's REST handlers: reads the {@link StoredObjects} (after catching
 * up with the log, so every acknowledged write is visible), writes as commands to the {@link
 * CommandLog}, and does what kube-apiserver does around storage — decoding with field validation,
 * defaulting, the admission chain ({@link Admission}), generateName, patches applied as
 * optimistic-concurrency updates (retried on conflict), server-side apply and the managedFields of
 * every write ({@link FieldManager}, worked out against the version the write is conditioned on),
 * and the scale subresource.
 *
 * <p>A read-only service ({@link #readOnly}) has no command client: it serves reads and answers
 * every write 405 MethodNotAllowed, saying why.
 */
public final class ResourceService {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  public static final String HISTORY_API_VERSION = "history.streamplane.io/v1";

  /**
   * Attempts of a write the server works out from the object it read (an update's managedFields, a
   * patch, an apply, a scale): the client asked for no version, so like kube-apiserver's
   * GuaranteedUpdate it is done again on every concurrent change, up to this bound.
   */
  private static final int GUARANTEED_UPDATE_ATTEMPTS = 20;

  private static final int GENERATE_NAME_ATTEMPTS = 8;

  /** The subresources a patch writes through, each changing only its part of the object. */
  private static final Set<String> PARTIAL_WRITES =
      Set.of("status", "approval", "ephemeralcontainers");

  private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private final StoredObjects cache;
  private final HistoryIndex history;
  private final CommandLog commands;
  private final KubeJson json;
  private final Duration timeout;
  private final String readOnlyReason;
  private final Admission admission;
  private final SecureRandom random = new SecureRandom();
  private volatile boolean caughtUp;

  public ResourceService(
      StoredObjects cache,
      HistoryIndex history,
      CommandLog commands,
      KubeJson json,
      Duration timeout,
      Admission admission) {
    this(cache, history, commands, json, timeout, null, admission);
  }

  private ResourceService(
      StoredObjects cache,
      HistoryIndex history,
      CommandLog commands,
      KubeJson json,
      Duration timeout,
      String readOnlyReason,
      Admission admission) {
    this.cache = cache;
    this.admission = admission;
    this.history = history;
    this.commands = commands;
    this.json = json;
    this.timeout = timeout;
    this.readOnlyReason = readOnlyReason;
  }

  /**
   * A service that only reads: every write is answered 405 MethodNotAllowed with {@code reason}
   * (such as "this API serves the cluster as it was at ... and is read-only") in its message. It
   * has no history index: it serves one moment, and reads at other versions are 400.
   */
  public static ResourceService readOnly(
      StoredObjects cache, KubeJson json, Duration timeout, String reason) {
    return new ResourceService(cache, null, null, json, timeout, reason, Admission.none());
  }

  /** Throws the 405 Status a write ({@code verb}) gets when this service is read-only. */
  public void checkWritable(String group, String resource, String verb) {
    if (readOnlyReason != null) {
      throw new ApiException(
          Statuses.failure(
              405,
              "MethodNotAllowed",
              readOnlyReason + ": " + verb + " is not allowed",
              Statuses.details(group, resource, "")));
    }
  }

  // ---------------------------------------------------------------- reads

  public ObjectNode get(ResourceType type, String namespace, String name) {
    return get(type, namespace, name, ReadAt.latest());
  }

  /** A get at the state {@code at} names; see {@link ReadAt}. */
  public ObjectNode get(ResourceType type, String namespace, String name, ReadAt at) {
    return type.fromStorage(getStored(type.storage(), namespace, name, at));
  }

  /** A get of the storage version's object. */
  private ObjectNode getStored(ResourceType type, String namespace, String name, ReadAt at) {
    ResourceKey key = new ResourceKey(type.plural(), type.group(), namespace, name);
    if (at instanceof ReadAt.Exact exact) {
      awaitHistory(exact.version());
      return history
          .at(key, exact.version())
          .map(v -> toJson(v.event()))
          .orElseThrow(() -> notFound(type, name));
    }
    if (at instanceof ReadAt.ExactObject exact) {
      catchUp();
      awaitHistory(cache.version());
      ObjectNode found = null;
      for (ObjectVersion version : history.versions(key)) {
        if (version.event().getResourceVersion() + 1 <= exact.resourceVersion()) {
          found = version.event().getType() == EventType.DELETED ? null : toJson(version.event());
        }
      }
      if (found == null) {
        throw notFound(type, name);
      }
      return found;
    }
    readCache(at);
    return cache
        .get(type.group(), type.plural(), namespace, name)
        .map(ObjectNode::deepCopy)
        .orElseThrow(() -> notFound(type, name));
  }

  /**
   * A list as Kubernetes answers it: {@code {kind: PodList, metadata: {resourceVersion}, items}}.
   * Pages after the first read the state the first page was read at, from the history index: a
   * {@code continue} token carries the last key and the list version.
   */
  public ObjectNode list(
      ResourceType type,
      String namespace,
      Selectors.LabelSelector labels,
      Selectors.FieldSelector fields,
      long limit,
      String continueToken,
      ReadAt at) {
    Continue after =
        continueToken == null || continueToken.isBlank() ? null : Continue.decode(continueToken);
    if (after != null && after.version() != null && history != null) {
      // Without a history index the cache serves one moment only (a read-only past), and every
      // page is read at it.
      at = new ReadAt.Exact(after.version());
    }
    ResourceType storage = type.storage();
    Predicate<ObjectNode> filter =
        o ->
            labels.matches(o)
                && (fields.isEverything() || fields.matches(type.fromStorage(o)))
                && (after == null || key(o).compareTo(after.key()) > 0);
    List<ObjectNode> all;
    ListVersion version;
    if (at instanceof ReadAt.Exact exact) {
      awaitHistory(exact.version());
      all = new ArrayList<>();
      for (ObjectVersion v :
          history.list(storage.plural(), storage.group(), namespace, exact.version())) {
        ObjectNode object = toJson(v.event());
        if (filter.test(object)) {
          all.add(object);
        }
      }
      version = exact.version();
    } else {
      readCache(at);
      WatchCache.Snapshot snapshot =
          cache.list(storage.group(), storage.plural(), namespace, filter);
      all = snapshot.items();
      version = snapshot.version();
    }
    ObjectNode list = JSON.objectNode();
    list.put("apiVersion", type.groupVersion());
    list.put("kind", type.listKind());
    ObjectNode metadata = list.putObject("metadata");
    metadata.put("resourceVersion", version.toString());
    ArrayNode items = list.putArray("items");
    int count = limit > 0 ? (int) Math.min(limit, all.size()) : all.size();
    for (int i = 0; i < count; i++) {
      ObjectNode item = type.fromStorage(all.get(i));
      items.add(item == all.get(i) ? item.deepCopy() : item);
    }
    if (count < all.size()) {
      metadata.put("continue", new Continue(key(all.get(count - 1)), version).encode());
      metadata.put("remainingItemCount", all.size() - count);
    }
    return list;
  }

  /**
   * Every version of one object the log holds, oldest first, with {@code time} in [since, until]
   * (either may be null): {@code {apiVersion: history.streamplane.io/v1, kind: ObjectHistory,
   * metadata: {resourceVersion}, items: [...]}} with the entries of {@link VersionsJson}. Deleted
   * objects and ones created again under the same name are included.
   */
  public ObjectNode history(
      ResourceType type, String namespace, String name, Instant since, Instant until) {
    catchUp();
    ListVersion version = cache.version();
    awaitHistory(version);
    List<ObjectVersion> versions = new ArrayList<>();
    for (ObjectVersion v :
        history.versions(
            new ResourceKey(type.storage().plural(), type.storage().group(), namespace, name))) {
      if ((since == null || !v.time().isBefore(since))
          && (until == null || !v.time().isAfter(until))) {
        versions.add(v);
      }
    }
    ObjectNode answer = JSON.objectNode();
    answer.put("apiVersion", HISTORY_API_VERSION);
    answer.put("kind", "ObjectHistory");
    answer.putObject("metadata").put("resourceVersion", version.toString());
    answer.set("items", VersionsJson.entries(json, type, versions));
    return answer;
  }

  // ---------------------------------------------------------------- writes

  public Written create(
      ResourceType type, String namespace, ObjectNode body, WriteOptions options) {
    return create(type, namespace, body, options, true);
  }

  /**
   * A create; {@code manage}: record the writer in managedFields (false when server-side apply has
   * already done so).
   */
  private Written create(
      ResourceType type, String namespace, ObjectNode body, WriteOptions options, boolean manage) {
    checkTypeMeta(type, body);
    ObjectNode object = body.deepCopy();
    ObjectNode metadata = object.with("metadata");
    if (type.namespaced()) {
      String given = metadata.path("namespace").asText("");
      if (!given.isEmpty() && namespace != null && !given.equals(namespace)) {
        throw new ApiException(
            Statuses.badRequest(
                "the namespace of the provided object does not match the namespace sent on the"
                    + " request"));
      }
      metadata.put("namespace", namespace);
    } else {
      metadata.remove("namespace");
    }
    Defaults.apply(type, object, true);
    List<String> admitted =
        admission.admit(
            new AdmissionRequest(
                Operation.CREATE,
                type,
                "",
                namespace,
                metadata.path("name").asText(""),
                object,
                null,
                options.actor(),
                options.dryRun(),
                options.auditAnnotations()));
    Defaults.prepareForCreate(type, object, options.actor());
    if (manage) {
      object =
          FieldManager.update(
              null, object, schema(type), scope(type, ""), writer(type, "", options));
      metadata = object.with("metadata");
    }
    String name = metadata.path("name").asText("");
    List<StatusCause> invalid = type.strategy().validateVersionedCreate(object);
    if (!invalid.isEmpty()) {
      throw new ApiException(
          Statuses.failure(
              422,
              "Invalid",
              FieldErrors.message(type.qualifiedKind(), name, invalid),
              details(type, name, 422, invalid)));
    }
    String generateName = metadata.path("generateName").asText("");
    boolean generated = name.isEmpty() && !generateName.isEmpty();
    for (int attempt = 0; ; attempt++) {
      if (generated) {
        name = generateName + randomSuffix();
        metadata.put("name", name);
      }
      Decoded<? extends SpecificRecord> decoded = decode(type, object, null, options);
      CommandResult result =
          execute(command(CommandVerb.CREATE, type, namespace, name, decoded.record(), options));
      if (generated && result.getCode() == 409 && attempt < GENERATE_NAME_ATTEMPTS) {
        continue;
      }
      return answer(type, name, result, warnings(type, object, decoded, options, admitted));
    }
  }

  /**
   * An update with the whole object. Its managedFields are worked out against the object as it is
   * now, so the write carries that version as a precondition (the client's own, if it sent one) and
   * is done again if the object changed meanwhile, as kube-apiserver's GuaranteedUpdate.
   */
  public Written update(
      ResourceType type, String namespace, String name, ObjectNode body, WriteOptions options) {
    return guaranteedUpdate(type, namespace, name, "", body, options);
  }

  /**
   * An update through a subresource that writes part of the object: {@code status}, {@code
   * approval} (a CertificateSigningRequest's: the conditions of the body's status replace the
   * object's, nothing else changes) or {@code ephemeralcontainers} (a pod's, as its strategy says).
   */
  public Written updateSubresource(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      ObjectNode body,
      WriteOptions options) {
    return guaranteedUpdate(type, namespace, name, subresource, body, options);
  }

  public Written updateStatus(
      ResourceType type, String namespace, String name, ObjectNode body, WriteOptions options) {
    return updateSubresource(type, namespace, name, "status", body, options);
  }

  private Written guaranteedUpdate(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      ObjectNode body,
      WriteOptions options) {
    checkTypeMeta(type, body);
    boolean userPrecondition = !unset(body.path("metadata").path("resourceVersion").asText(""));
    return guaranteedUpdate(
        type,
        namespace,
        name,
        live -> {
          ObjectNode object = body.deepCopy();
          if (live != null && !userPrecondition) {
            object.with("metadata").put("resourceVersion", resourceVersion(live));
          }
          return new Attempt(
              () -> writeUpdate(type, namespace, name, subresource, live, object, options, true),
              !userPrecondition && live != null);
        });
  }

  /** A guaranteed update of an object that must exist: 404 NotFound when it does not. */
  private Written guaranteedUpdateOfExisting(
      ResourceType type, String namespace, String name, Function<ObjectNode, Attempt> work) {
    return guaranteedUpdate(
        type,
        namespace,
        name,
        live -> {
          if (live == null) {
            throw notFound(type, name);
          }
          return work.apply(live);
        });
  }

  /** One try of a guaranteed update: the write, and whether a conflict makes it try again. */
  private record Attempt(Supplier<Written> write, boolean againOnConflict) {}

  /**
   * kube-apiserver's GuaranteedUpdate, the one retry loop of every write worked out from the live
   * object: reads the object (null when there is none), lets {@code work} make the write from it,
   * and on a 409 Conflict — the object changed between the read and the write — reads and works
   * again, unless the attempt says a conflict is final (the client named the version itself), up to
   * {@link #GUARANTEED_UPDATE_ATTEMPTS}.
   */
  private Written guaranteedUpdate(
      ResourceType type, String namespace, String name, Function<ObjectNode, Attempt> work) {
    for (int attempt = 1; ; attempt++) {
      Attempt next = work.apply(find(type, namespace, name));
      try {
        return next.write().get();
      } catch (ApiException e) {
        if (e.code() != 409 || !next.againOnConflict() || attempt >= GUARANTEED_UPDATE_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Writes {@code object} over {@code live} (null when not found: the store answers 404) through
   * the main resource or a subresource ({@code ""}, {@code status}, {@code scale}); {@code manage}:
   * record the writer in managedFields.
   */
  private Written writeUpdate(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      ObjectNode live,
      ObjectNode object,
      WriteOptions options,
      boolean manage) {
    checkName(type, name, object);
    if ("approval".equals(subresource) && live != null) {
      object = withConditionsOf(live, object);
      Defaults.apply(type, object, false);
    }
    boolean status = "status".equals(subresource) || "approval".equals(subresource);
    if (status) {
      object.put("apiVersion", type.groupVersion()).put("kind", type.kind());
    } else {
      if (type.namespaced()) {
        object.with("metadata").put("namespace", namespace);
      }
      Defaults.apply(type, object, false);
    }
    List<String> admitted =
        admission.admit(
            new AdmissionRequest(
                Operation.UPDATE,
                type,
                subresource,
                namespace,
                name,
                object,
                live,
                options.actor(),
                options.dryRun(),
                options.auditAnnotations()));
    if (manage && live != null) {
      object =
          FieldManager.update(
              live,
              object,
              schema(type),
              scope(type, subresource),
              writer(type, subresource, options));
    }
    Decoded<? extends SpecificRecord> decoded = decode(type, object, live, options);
    ResourceCommand command =
        command(
            status ? CommandVerb.UPDATE_STATUS : CommandVerb.UPDATE,
            type,
            namespace,
            name,
            decoded.record(),
            options);
    if (!status && PARTIAL_WRITES.contains(subresource)) {
      command.setSubresource(subresource);
    }
    CommandResult result = execute(command);
    return answer(
        type,
        name,
        result,
        status
            ? warnings(decoded, options, admitted)
            : warnings(type, object, decoded, options, admitted));
  }

  /**
   * The live object with the status conditions of {@code written} and its resourceVersion (the
   * precondition), what an approval may change.
   */
  private static ObjectNode withConditionsOf(ObjectNode live, ObjectNode written) {
    ObjectNode object = live.deepCopy();
    JsonNode version = written.path("metadata").path("resourceVersion");
    if (version.isTextual()) {
      object.with("metadata").set("resourceVersion", version);
    }
    JsonNode conditions = written.path("status").path("conditions");
    if (conditions.isMissingNode() || conditions.isNull()) {
      object.with("status").remove("conditions");
    } else {
      object.with("status").set("conditions", conditions.deepCopy());
    }
    return object;
  }

  /**
   * Server-side apply ({@code application/apply-patch+yaml}): the configuration is merged into the
   * object by {@link FieldManager#apply} and written with the version it was merged into as
   * precondition, again on a concurrent change; an object that does not exist is created from it.
   * {@code options.force()} takes over the fields other managers own; without it they are a 409.
   */
  public Written apply(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      JsonNode body,
      WriteOptions options) {
    if (!(body instanceof ObjectNode config)) {
      throw new ApiException(Statuses.badRequest("the apply patch must be an object"));
    }
    String apiVersion = config.path("apiVersion").asText("");
    if (!apiVersion.equals(type.groupVersion())) {
      throw new ApiException(
          Statuses.badRequest(
              "Incorrect version specified in apply patch. Specified patch version: "
                  + apiVersion
                  + ", expected: "
                  + type.groupVersion()));
    }
    checkTypeMeta(type, config);
    if (config.path("metadata").has("managedFields")
        && !config.path("metadata").path("managedFields").isNull()) {
      throw new ApiException(Statuses.badRequest("metadata.managedFields must be nil"));
    }
    String given = config.path("metadata").path("name").asText("");
    if (!given.isEmpty() && !given.equals(name)) {
      throw new ApiException(
          Statuses.badRequest(
              "the name of the object ("
                  + given
                  + ") does not match the name on the URL ("
                  + name
                  + ")"));
    }
    String sub = subresource == null ? "" : subresource;
    boolean userPrecondition = !unset(config.path("metadata").path("resourceVersion").asText(""));
    boolean force = Boolean.TRUE.equals(options.force());
    return guaranteedUpdate(
        type,
        namespace,
        name,
        live -> {
          if (live == null && !sub.isEmpty()) {
            throw notFound(type, name);
          }
          ObjectNode merged;
          try {
            merged =
                FieldManager.apply(
                    live,
                    config,
                    schema(type),
                    scope(type, sub),
                    writer(type, sub, options),
                    force);
          } catch (FieldManager.ConflictException e) {
            throw new ApiException(ApplyStatuses.conflict(e.conflicts()));
          } catch (ObjectFields.ShapeException e) {
            throw new ApiException(
                Statuses.badRequest(
                    "failed to create typed patch object ("
                        + (namespace == null ? "" : namespace + "/")
                        + name
                        + "; "
                        + type.groupVersion()
                        + ", Kind="
                        + type.kind()
                        + "): "
                        + e.getMessage()));
          }
          FieldManager.syncLastApplied(merged, config, writer(type, sub, options));
          merged.with("metadata").put("name", name);
          if (live != null && !userPrecondition) {
            merged.with("metadata").put("resourceVersion", resourceVersion(live));
          }
          return new Attempt(
              () ->
                  live == null
                      ? create(type, namespace, merged, options, false)
                      : writeUpdate(type, namespace, name, sub, live, merged, options, false),
              !userPrecondition);
        });
  }

  /**
   * Applies a patch to the current object and writes the result with the current resourceVersion as
   * precondition; a concurrent change makes it read and patch again, as kube-apiserver's
   * GuaranteedUpdate does.
   */
  public Written patch(
      ResourceType type,
      String namespace,
      String name,
      String subresource,
      String contentType,
      JsonNode patch,
      WriteOptions options) {
    return guaranteedUpdateOfExisting(
        type,
        namespace,
        name,
        current -> {
          String version = current.path("metadata").path("resourceVersion").asText();
          ObjectNode patched = applyPatch(type, current, contentType, patch);
          String patchedVersion = patched.path("metadata").path("resourceVersion").asText("");
          if (patchedVersion.isEmpty() || patchedVersion.equals("0")) {
            // As kube-apiserver: "0" (or none) in the patched object names no precondition.
            patched.with("metadata").put("resourceVersion", version);
          }
          boolean userPrecondition =
              !patched.path("metadata").path("resourceVersion").asText().equals(version);
          checkTypeMeta(type, patched);
          return new Attempt(
              () ->
                  restoreErrorsOf(
                      contentType,
                      patch,
                      () ->
                          writeUpdate(
                              type,
                              namespace,
                              name,
                              subresource != null && PARTIAL_WRITES.contains(subresource)
                                  ? subresource
                                  : "",
                              current,
                              patched,
                              options,
                              true)),
              !userPrecondition);
        });
  }

  /**
   * A strategic merge patch whose result does not decode as the kind is kube-apiserver's 422 on the
   * patch itself, worded by its unstructured converter ({@code "" is invalid: patch: Invalid value:
   * "map[metadata:map[labels:x]]": cannot restore map from string}); other failures pass.
   */
  private static Written restoreErrorsOf(
      String contentType, JsonNode patch, Supplier<Written> write) {
    try {
      return write.get();
    } catch (ApiException e) {
      if (contentType != null
          && contentType.startsWith("application/strategic-merge-patch+json")
          && e.getCause() instanceof ConversionException c
          && c.restoreError() != null) {
        throw new ApiException(
            Statuses.invalid(
                "",
                "",
                "",
                List.of(FieldError.invalid("patch", GoValues.format(patch), c.restoreError()))));
      }
      throw e;
    }
  }

  public Written delete(
      ResourceType type,
      String namespace,
      String name,
      JsonNode deleteOptions,
      WriteOptions options) {
    admission.admit(
        new AdmissionRequest(
            Operation.DELETE,
            type,
            "",
            namespace,
            name,
            null,
            current(type, namespace, name),
            options.actor(),
            options.dryRun(),
            options.auditAnnotations()));
    DeleteOptions.Builder delete = DeleteOptions.newBuilder();
    if (deleteOptions.hasNonNull("gracePeriodSeconds")) {
      delete.setGracePeriodSeconds(deleteOptions.get("gracePeriodSeconds").asLong());
    }
    if (deleteOptions.hasNonNull("propagationPolicy")) {
      String policy = deleteOptions.get("propagationPolicy").asText();
      if (!List.of("Orphan", "Background", "Foreground").contains(policy)) {
        throw new ApiException(
            Statuses.badRequest(
                "propagationPolicy: Unsupported value: \""
                    + policy
                    + "\": supported values: \"Foreground\", \"Background\", \"Orphan\""));
      }
      delete.setPropagationPolicy(policy);
    } else if (deleteOptions.has("orphanDependents")) {
      delete.setPropagationPolicy(
          deleteOptions.get("orphanDependents").asBoolean() ? "Orphan" : "Background");
    }
    ResourceCommand command = command(CommandVerb.DELETE, type, namespace, name, null, options);
    command.setDeleteOptions(delete.build());
    JsonNode preconditions = deleteOptions.path("preconditions");
    if (preconditions.isObject()) {
      command.setPreconditions(
          Preconditions.newBuilder()
              .setUid(preconditions.hasNonNull("uid") ? preconditions.get("uid").asText() : null)
              .setResourceVersion(
                  preconditions.hasNonNull("resourceVersion")
                      ? preconditions.get("resourceVersion").asText()
                      : null)
              .build());
    }
    return answer(type, name, execute(command), List.of());
  }

  /**
   * deletecollection, as kube-apiserver's registry does it: lists what matches the selectors,
   * deletes each item with an ordinary delete (the same options, preconditions and finalizers as
   * one by one; an item already gone is skipped) and answers the list as it was read. The first
   * other failure ends the request with its Status; items deleted before it stay deleted, as in
   * Kubernetes.
   */
  public ObjectNode deleteCollection(
      ResourceType type,
      String namespace,
      Selectors.LabelSelector labels,
      Selectors.FieldSelector fields,
      JsonNode deleteOptions,
      WriteOptions options) {
    ObjectNode list = list(type, namespace, labels, fields, 0, null, null);
    for (JsonNode item : list.path("items")) {
      String name = item.path("metadata").path("name").asText();
      try {
        delete(type, type.namespaced() ? namespace : null, name, deleteOptions, options);
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
    }
    return list;
  }

  // ---------------------------------------------------------------- scale subresource

  /** The autoscaling/v1 Scale of a Deployment, ReplicaSet or ReplicationController. */
  public ObjectNode scale(ResourceType type, String namespace, String name) {
    return toScale(type, get(type, namespace, name));
  }

  public Written updateScale(
      ResourceType type,
      String namespace,
      String name,
      String contentType,
      JsonNode body,
      WriteOptions options) {
    return guaranteedUpdateOfExisting(
        type,
        namespace,
        name,
        current -> {
          ObjectNode wanted =
              contentType == null
                  ? (ObjectNode) body
                  : (ObjectNode) applyPatch(null, toScale(type, current), contentType, body);
          if (!wanted.path("spec").path("replicas").canConvertToInt()) {
            throw new ApiException(Statuses.badRequest("spec.replicas: Required value"));
          }
          ObjectNode updated =
              type.strategy()
                  .withScaleReplicas(current, wanted.path("spec").path("replicas").asInt());
          if (updated == null) {
            updated = current.deepCopy();
            updated.with("spec").put("replicas", wanted.path("spec").path("replicas").asInt());
          }
          ObjectNode write = updated;
          return new Attempt(
              () -> {
                Written written =
                    writeUpdate(type, namespace, name, "scale", current, write, options, true);
                return new Written(
                    written.code(), toScale(type, written.object()), written.warnings());
              },
              true);
        });
  }

  private static ObjectNode toScale(ResourceType type, ObjectNode object) {
    ObjectNode own = type.strategy().scaleOf(object);
    if (own != null) {
      return own;
    }
    ObjectNode scale = JSON.objectNode();
    scale.put("kind", "Scale");
    scale.put("apiVersion", "autoscaling/v1");
    ObjectNode metadata = scale.putObject("metadata");
    JsonNode source = object.path("metadata");
    for (String field :
        List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      if (source.has(field)) {
        metadata.set(field, source.get(field));
      }
    }
    scale.putObject("spec").put("replicas", object.path("spec").path("replicas").asInt(0));
    ObjectNode status = scale.putObject("status");
    status.put("replicas", object.path("status").path("replicas").asInt(0));
    status.put("selector", selectorString(object.path("spec").path("selector")));
    return scale;
  }

  private static String selectorString(JsonNode selector) {
    List<String> parts = new ArrayList<>();
    TreeMap<String, String> labels = new TreeMap<>();
    selector
        .fields()
        .forEachRemaining(
            e -> labels.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : null));
    if (!labels.isEmpty() && !labels.containsValue(null)) {
      // A ReplicationController's selector is a map of labels (labels.SelectorFromSet).
      labels.forEach((k, v) -> parts.add(k + "=" + v));
      return String.join(",", parts);
    }
    selector
        .path("matchLabels")
        .fields()
        .forEachRemaining(e -> parts.add(e.getKey() + "=" + e.getValue().asText()));
    for (JsonNode requirement : selector.path("matchExpressions")) {
      String key = requirement.path("key").asText();
      List<String> values = new ArrayList<>();
      requirement.path("values").forEach(v -> values.add(v.asText()));
      switch (requirement.path("operator").asText()) {
        case "In" -> parts.add(key + " in (" + String.join(",", values) + ")");
        case "NotIn" -> parts.add(key + " notin (" + String.join(",", values) + ")");
        case "Exists" -> parts.add(key);
        case "DoesNotExist" -> parts.add("!" + key);
        default -> {}
      }
    }
    return String.join(",", parts);
  }

  // ---------------------------------------------------------------- the steps

  /** The object as it is now, or null when there is none. */
  private ObjectNode find(ResourceType type, String namespace, String name) {
    try {
      return get(type, namespace, name);
    } catch (ApiException e) {
      if (e.code() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static String resourceVersion(ObjectNode object) {
    return object.path("metadata").path("resourceVersion").asText();
  }

  /** A resourceVersion that asks for no precondition: none, or "0". */
  private static boolean unset(String resourceVersion) {
    return resourceVersion.isEmpty() || resourceVersion.equals("0");
  }

  private static PatchSchema schema(ResourceType type) {
    if (type.strategy() instanceof CustomResourceStrategy custom) {
      return CustomResourcePatchSchema.of(custom);
    }
    return PatchSchema.forKind(type.groupVersion(), type.kind()).orElse(PatchSchema.EMPTY);
  }

  /** What a write through {@code subresource} owns: see {@link FieldManager.Scope}. */
  private static FieldManager.Scope scope(ResourceType type, String subresource) {
    if ("status".equals(subresource) || "approval".equals(subresource)) {
      return FieldManager.Scope.STATUS;
    }
    return type.subresource("status").isPresent()
        ? FieldManager.Scope.MAIN
        : FieldManager.Scope.ALL;
  }

  private static FieldManager.Writer writer(
      ResourceType type, String subresource, WriteOptions options) {
    return new FieldManager.Writer(
        options.manager(), type.groupVersion(), subresource, Instant.now());
  }

  private ObjectNode applyPatch(
      ResourceType type, ObjectNode current, String contentType, JsonNode patch) {
    String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].trim();
    if (mediaType.equals("application/strategic-merge-patch+json")
        && type != null
        && !type.strategy().acceptsStrategicMergePatch()) {
      throw new ApiException(
          Statuses.unsupportedMediaType(
              List.of(
                  "application/json-patch+json",
                  "application/merge-patch+json",
                  "application/apply-patch+yaml")));
    }
    try {
      JsonNode patched =
          switch (mediaType) {
            case "application/json-patch+json" -> JsonPatch.apply(current, patch);
            case "application/merge-patch+json" -> JsonMergePatch.apply(current, patch);
            case "application/strategic-merge-patch+json" ->
                StrategicMergePatch.apply(
                    current,
                    patch,
                    type == null
                        ? PatchSchema.EMPTY
                        : PatchSchema.forKind(type.groupVersion(), type.kind())
                            .orElse(PatchSchema.EMPTY));
            default ->
                throw new ApiException(
                    Statuses.unsupportedMediaType(
                        List.of(
                            "application/json-patch+json",
                            "application/merge-patch+json",
                            "application/strategic-merge-patch+json")));
          };
      if (!(patched instanceof ObjectNode object)) {
        throw new ApiException(Statuses.badRequest("the patch does not leave an object"));
      }
      return object;
    } catch (PatchException e) {
      throw new ApiException(
          Statuses.failure(
              e.reason().code(), e.reason().statusReason(), e.getMessage(), JSON.objectNode()));
    }
  }

  /** The object as the command carries it; {@code live}: the object it replaces, or null. */
  private Decoded<? extends SpecificRecord> decode(
      ResourceType type, ObjectNode object, ObjectNode live, WriteOptions options) {
    // A custom resource's schema prunes what it does not specify: reported as any kind's unknown
    // fields, then the object is validated against it (below).
    List<UnknownField> pruned =
        type.strategy().prune(object).stream().map(UnknownField::new).toList();
    Decoded<? extends SpecificRecord> decoded;
    try {
      decoded = json.toAvro(type.toStorage(object), type.storage().avroClass());
      SpecificRecord stored = type.strategy().stored(decoded.record());
      if (!pruned.isEmpty() || stored != decoded.record()) {
        List<UnknownField> unknown = new ArrayList<>(pruned);
        unknown.addAll(decoded.unknownFields());
        decoded = new Decoded<>(stored, unknown);
      }
    } catch (ConversionException e) {
      ApiException failure =
          new ApiException(
              Statuses.badRequest(
                  type.kind()
                      + " in version \""
                      + type.version()
                      + "\" cannot be handled as a "
                      + type.kind()
                      + ": "
                      + e.getMessage()));
      failure.initCause(e);
      throw failure;
    }
    if (options.strict() && decoded.hasUnknownFields()) {
      List<String> problems = new ArrayList<>();
      for (UnknownField unknown : decoded.unknownFields()) {
        problems.add(unknown.warning());
      }
      throw new ApiException(
          Statuses.badRequest(
              type.kind()
                  + " in version \""
                  + type.version()
                  + "\" cannot be handled as a "
                  + type.kind()
                  + ": strict decoding error: "
                  + String.join(", ", problems)));
    }
    List<StatusCause> invalid = type.strategy().validateSchema(object, live);
    if (!invalid.isEmpty()) {
      String name = object.path("metadata").path("name").asText("");
      throw new ApiException(
          Statuses.failure(
              422,
              "Invalid",
              FieldErrors.message(type.qualifiedKind(), name, invalid),
              details(type, name, 422, invalid)));
    }
    return decoded;
  }

  private static List<String> warnings(
      Decoded<?> decoded, WriteOptions options, List<String> admitted) {
    List<String> warnings = new ArrayList<>(warnings(decoded, options));
    warnings.addAll(admitted);
    return warnings;
  }

  /**
   * The warnings of a create or an update: the body's unknown fields, the kind's own, then
   * admission's.
   */
  private static List<String> warnings(
      ResourceType type,
      ObjectNode object,
      Decoded<?> decoded,
      WriteOptions options,
      List<String> admitted) {
    List<String> warnings = new ArrayList<>(warnings(decoded, options));
    warnings.addAll(type.strategy().warningsOnWrite(object));
    warnings.addAll(admitted);
    return warnings;
  }

  private static List<String> warnings(Decoded<?> decoded, WriteOptions options) {
    if (!options.warn()) {
      return List.of();
    }
    return decoded.unknownFields().stream().map(UnknownField::warning).toList();
  }

  /** The object as the cache holds it, for admission; null when absent or there is no cache. */
  private ObjectNode current(ResourceType type, String namespace, String name) {
    return cache == null
        ? null
        : cache
            .get(type.storage().group(), type.storage().plural(), namespace, name)
            .map(type::fromStorage)
            .orElse(null);
  }

  private static void checkTypeMeta(ResourceType type, ObjectNode body) {
    JsonNode metadata = body.get("metadata");
    if (metadata != null && metadata.isNull()) {
      // Go decodes a null ObjectMeta as the empty one.
      body.remove("metadata");
    } else if (metadata != null && !metadata.isObject()) {
      throw new ApiException(
          Statuses.badRequest(
              type.kind()
                  + " in version \""
                  + type.version()
                  + "\" cannot be handled as a "
                  + type.kind()
                  + ": json: cannot unmarshal "
                  + goType(metadata)
                  + " into Go struct field "
                  + type.kind()
                  + ".metadata of type v1.ObjectMeta"));
    }
    String apiVersion = body.path("apiVersion").asText("");
    String kind = body.path("kind").asText("");
    if (!apiVersion.isEmpty() && !apiVersion.equals(type.groupVersion())) {
      throw new ApiException(
          Statuses.badRequest(
              "the API version in the data ("
                  + apiVersion
                  + ") does not match the expected API"
                  + " version ("
                  + type.groupVersion()
                  + ")"));
    }
    if (!kind.isEmpty() && !kind.equals(type.kind())) {
      // kube-apiserver's decoder cannot turn the body into the endpoint's kind; its
      // transformDecodeError names the kind it needed and the start of the body.
      throw new ApiException(
          Statuses.badRequest(
              "the object provided is unrecognized (must be of type "
                  + type.kind()
                  + "): the kind in the data ("
                  + kind
                  + ") does not match the expected kind ("
                  + type.kind()
                  + ") ("
                  + summary(body)
                  + ")"));
    }
  }

  /** The name Go's encoding/json gives a JSON value's type in its unmarshal errors. */
  private static String goType(JsonNode value) {
    if (value.isTextual()) {
      return "string";
    }
    if (value.isNumber()) {
      return "number";
    }
    if (value.isBoolean()) {
      return "bool";
    }
    return value.isArray() ? "array" : "object";
  }

  /** The first 30 characters of the body, as kube-apiserver's summarizeData quotes a JSON one. */
  private static String summary(ObjectNode body) {
    String text = body.toString();
    return text.length() > 30 ? text.substring(0, 30) + " ..." : text;
  }

  private static void checkName(ResourceType type, String name, ObjectNode object) {
    String given = object.path("metadata").path("name").asText("");
    if (!given.isEmpty() && !given.equals(name)) {
      throw new ApiException(
          Statuses.badRequest(
              "the name of the object ("
                  + given
                  + ") does not match the name on the URL ("
                  + name
                  + ")"));
    }
    object.with("metadata").put("name", name);
  }

  private ResourceCommand command(
      CommandVerb verb,
      ResourceType type,
      String namespace,
      String name,
      SpecificRecord object,
      WriteOptions options) {
    return ResourceCommand.newBuilder()
        .setId(UUID.randomUUID().toString())
        .setVerb(verb)
        .setResource(type.storage().plural())
        .setGroup(type.storage().group())
        .setVersion(type.storage().version())
        .setNamespace(type.namespaced() ? namespace : null)
        .setName(name)
        .setEncodedObject(KindObjects.encode(object))
        .setDryRun(options.dryRun())
        .setActor(options.actor())
        .setAuditId(options.auditId())
        .build();
  }

  private CommandResult execute(ResourceCommand command) {
    checkWritable(
        command.getGroup(),
        command.getResource(),
        command.getVerb().toString().toLowerCase(Locale.ROOT));
    try {
      return commands.execute(command, timeout);
    } catch (TimeoutException e) {
      throw new ApiException(
          Statuses.timeout(
              "the store did not answer within "
                  + timeout.toSeconds()
                  + " s; the request may"
                  + " still be applied",
              1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(Statuses.internalError("interrupted"));
    }
  }

  /** Turns a command result into the response: the stored object, or the Status it failed with. */
  private Written answer(
      ResourceType type, String name, CommandResult result, List<String> warnings) {
    if (result.getCode() >= 200 && result.getCode() < 300) {
      ObjectNode object = type.fromStorage(json.toJson((SpecificRecord) KindObjects.of(result)));
      return new Written(result.getCode(), object, warnings);
    }
    throw new ApiException(
        Statuses.failure(
            result.getCode(),
            result.getReason(),
            result.getMessage(),
            details(type, name, result.getCode(), result.getCauses())));
  }

  /** A Status's details: the object, and the field causes of a failure. */
  private static ObjectNode details(
      ResourceType type, String name, int code, List<StatusCause> failures) {
    ObjectNode details = Statuses.details(type.group(), type.plural(), name);
    if (!failures.isEmpty()) {
      ArrayNode causes = details.putArray("causes");
      for (StatusCause cause : failures) {
        ObjectNode c = causes.addObject();
        if (cause.getReason() != null) {
          c.put("reason", cause.getReason());
        }
        if (cause.getMessage() != null) {
          c.put("message", cause.getMessage());
        }
        if (cause.getField() != null) {
          c.put("field", cause.getField());
        }
      }
      if (code == 422) {
        details.put("kind", type.kind());
      }
    }
    return details;
  }

  private void readCache(ReadAt at) {
    if (!(at instanceof ReadAt.Any && caughtUp)) {
      catchUp();
    }
  }

  private void awaitHistory(ListVersion version) {
    if (history == null) {
      throw new ApiException(
          Statuses.badRequest(
              "reads at other versions are not served here"
                  + (readOnlyReason == null ? "" : ": " + readOnlyReason)));
    }
    history.awaitReadPast(version, timeout);
  }

  private ObjectNode toJson(ResourceEvent event) {
    return json.toJson((SpecificRecord) KindObjects.of(event));
  }

  private static ApiException notFound(ResourceType type, String name) {
    return new ApiException(Statuses.notFound(type, name));
  }

  private void catchUp() {
    long started = System.nanoTime();
    try {
      cache.catchUpWithLog(timeout);
      caughtUp = true;
    } catch (CacheUnavailableException e) {
      throw new ApiException(Statuses.timeout(e.getMessage(), 1));
    } finally {
      GatewayMetrics.cacheWaited((System.nanoTime() - started) / 1e9);
    }
  }

  private String randomSuffix() {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      s.append(NAME_ALPHABET.charAt(random.nextInt(NAME_ALPHABET.length())));
    }
    return s.toString();
  }

  private static String key(JsonNode object) {
    return object.path("metadata").path("namespace").asText("")
        + "/"
        + object.path("metadata").path("name").asText("");
  }

  /**
   * Where the next page starts: after {@code key}, in the state at {@code version} (absent in
   * tokens of older gateways, whose next pages read the latest state).
   */
  private record Continue(String key, ListVersion version) {

    String encode() {
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString((key + "\n" + version).getBytes(StandardCharsets.UTF_8));
    }

    static Continue decode(String token) {
      String decoded;
      try {
        decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new ApiException(Statuses.badRequest("invalid continue token"));
      }
      int newline = decoded.lastIndexOf('\n');
      if (newline < 0) {
        return new Continue(decoded, null);
      }
      return new Continue(
          decoded.substring(0, newline),
          ListVersion.parse(decoded.substring(newline + 1))
              .orElseThrow(() -> new ApiException(Statuses.badRequest("invalid continue token"))));
    }
  }
}
