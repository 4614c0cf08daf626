package io.streamplane.store;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodStatus;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.kinds.validation.ObjectValidation;
import io.streamplane.log.CommandResult;
import io.streamplane.log.DeleteOptions;
import io.streamplane.log.EventType;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;

/**
 * The store's decision for one command, as a pure function of the command, its position in the log
 * and the key's current state: Kubernetes' registry semantics (AlreadyExists, NotFound, optimistic
 * concurrency on resourceVersion, the status subresource, finalizers and graceful deletion,
 * binding) with every generated value derived from the position, so that a replay of {@code
 * commands} rebuilds identical objects.
 *
 * <p>Left to the gateway, as kube-apiserver does before storage: defaulting, admission (namespace
 * existence among it), generateName, and patch application (patches arrive as updates with a
 * resourceVersion precondition).
 */
public final class StoreLogic {

  static final String ORPHAN_FINALIZER = "orphan";
  static final String FOREGROUND_FINALIZER = "foregroundDeletion";

  /** The table of kinds: each object's strategy, by its generated class. Immutable. */
  private static final ResourceRegistry KINDS = ResourceRegistry.kubernetes();

  private StoreLogic() {}

  public static Outcome apply(ResourceCommand command, CommandPosition at, ResourceEvent current) {
    return switch (command.getVerb()) {
      case CREATE -> create(command, at, current);
      case UPDATE -> update(command, at, current);
      case UPDATE_STATUS -> updateStatus(command, at, current);
      case DELETE -> delete(command, at, current);
      case BIND -> bind(command, at, current);
      case UNKNOWN -> failure(command, at, 400, "BadRequest", "unknown command verb", List.of());
    };
  }

  private static Outcome create(
      ResourceCommand command, CommandPosition at, ResourceEvent current) {
    if (current != null) {
      return failure(
          command, at, 409, "AlreadyExists", resourceName(command) + " already exists", List.of());
    }
    SpecificRecord object = (SpecificRecord) KindObjects.of(command);
    if (object == null) {
      return failure(command, at, 400, "BadRequest", "the command carries no object", List.of());
    }
    ObjectMeta given = KubeObjects.meta(object);
    ObjectMeta meta =
        ObjectMeta.newBuilder(given)
            .setName(command.getName())
            .setNamespace(command.getNamespace())
            .setUid(uid(command, at))
            .setCreationTimestamp(at.timestamp().truncatedTo(ChronoUnit.SECONDS))
            .setResourceVersion(at.resourceVersion())
            .setGeneration(strategy(object).keepsGeneration() ? 1L : null)
            .setDeletionTimestamp(null)
            .setDeletionGracePeriodSeconds(null)
            .build();
    SpecificRecord created =
        strategy(object).withGeneratedFields(KubeObjects.withMeta(object, meta));
    List<StatusCause> causes = validate(created, null, command.getNamespace() != null);
    if (!causes.isEmpty()) {
      return invalid(command, at, created, causes);
    }
    return changed(command, at, 201, EventType.ADDED, null, created);
  }

  private static Outcome update(
      ResourceCommand command, CommandPosition at, ResourceEvent current) {
    if (current == null) {
      return notFound(command, at);
    }
    SpecificRecord stored = (SpecificRecord) KindObjects.of(current);
    SpecificRecord object = (SpecificRecord) KindObjects.of(command);
    if (object == null) {
      return failure(command, at, 400, "BadRequest", "the command carries no object", List.of());
    }
    Outcome conflict = checkPreconditions(command, at, stored, KubeObjects.meta(object));
    if (conflict != null) {
      return conflict;
    }
    if (command.getSubresource() != null) {
      return updateThrough(command, at, current, stored, object);
    }
    ObjectMeta old = KubeObjects.meta(stored);
    SpecificRecord updated =
        KubeObjects.withMeta(
            object,
            ObjectMeta.newBuilder(KubeObjects.meta(object))
                .setName(old.getName())
                .setNamespace(old.getNamespace())
                .setUid(old.getUid())
                .setCreationTimestamp(old.getCreationTimestamp())
                .setDeletionTimestamp(old.getDeletionTimestamp())
                .setDeletionGracePeriodSeconds(old.getDeletionGracePeriodSeconds())
                .setResourceVersion(old.getResourceVersion())
                .setGeneration(nextGeneration(stored, object))
                // A writer that sends no managedFields (a controller) leaves them as they are;
                // the gateway always sends them, an empty list when nobody owns anything.
                .setManagedFields(
                    KubeObjects.meta(object).getManagedFields() != null
                        ? KubeObjects.meta(object).getManagedFields()
                        : old.getManagedFields())
                .build());
    // The main resource cannot change status: that is the status subresource's job.
    if (KubeObjects.has(updated, KubeObjects.STATUS)) {
      updated =
          KubeObjects.with(
              updated, KubeObjects.STATUS, KubeObjects.get(stored, KubeObjects.STATUS));
    }
    List<StatusCause> causes = validate(updated, stored, command.getNamespace() != null);
    if (!causes.isEmpty()) {
      return invalid(command, at, updated, causes);
    }
    return finishUpdate(command, at, current, stored, updated);
  }

  /**
   * An update through a subresource other than status: the kind's strategy says what of the object
   * it changes and how that is validated; the stored metadata stays but for managedFields.
   */
  private static Outcome updateThrough(
      ResourceCommand command,
      CommandPosition at,
      ResourceEvent current,
      SpecificRecord stored,
      SpecificRecord object) {
    KindStrategy strategy = strategy(stored);
    SpecificRecord updated = strategy.writeThrough(command.getSubresource(), object, stored);
    if (updated == null) {
      return failure(
          command,
          at,
          404,
          "NotFound",
          "the server could not find the requested resource",
          List.of());
    }
    updated = withManagedFieldsOf(object, updated);
    List<StatusCause> causes = strategy.validateThrough(command.getSubresource(), updated, stored);
    if (!causes.isEmpty()) {
      return invalid(command, at, updated, causes);
    }
    return finishUpdate(command, at, current, stored, updated);
  }

  private static Outcome updateStatus(
      ResourceCommand command, CommandPosition at, ResourceEvent current) {
    if (current == null) {
      return notFound(command, at);
    }
    SpecificRecord stored = (SpecificRecord) KindObjects.of(current);
    SpecificRecord object = (SpecificRecord) KindObjects.of(command);
    if (object == null || !KubeObjects.has(stored, KubeObjects.STATUS)) {
      return failure(
          command, at, 400, "BadRequest", "the command carries no status to write", List.of());
    }
    Outcome conflict = checkPreconditions(command, at, stored, KubeObjects.meta(object));
    if (conflict != null) {
      return conflict;
    }
    SpecificRecord updated =
        KubeObjects.with(stored, KubeObjects.STATUS, KubeObjects.get(object, KubeObjects.STATUS));
    if (strategy(stored).statusWritesAnnotations()) {
      updated =
          KubeObjects.withMeta(
              updated,
              ObjectMeta.newBuilder(KubeObjects.meta(updated))
                  .setAnnotations(KubeObjects.meta(object).getAnnotations())
                  .build());
    }
    return finishUpdate(command, at, current, stored, withManagedFieldsOf(object, updated));
  }

  /**
   * {@code updated} with the managedFields of the written object: the gateway works out who owns
   * what on a subresource write too; writers that send none (the controllers) leave them as they
   * are.
   */
  private static SpecificRecord withManagedFieldsOf(
      SpecificRecord written, SpecificRecord updated) {
    ObjectMeta given = KubeObjects.meta(written);
    if (given == null || given.getManagedFields() == null) {
      return updated;
    }
    return KubeObjects.withMeta(
        updated,
        ObjectMeta.newBuilder(KubeObjects.meta(updated))
            .setManagedFields(given.getManagedFields())
            .build());
  }

  /** Writes an update unless it changes nothing; removes an object whose finalizers are done. */
  private static Outcome finishUpdate(
      ResourceCommand command,
      CommandPosition at,
      ResourceEvent current,
      SpecificRecord stored,
      SpecificRecord updated) {
    if (KubeObjects.same(updated, stored)) {
      // Kubernetes does not bump resourceVersion for an update that changes nothing.
      return unchanged(command, at, current);
    }
    ObjectMeta meta = KubeObjects.meta(updated);
    if (meta.getDeletionTimestamp() != null
        && empty(meta.getFinalizers())
        && empty(strategy(updated).specFinalizers(updated))) {
      return removed(command, at, updated);
    }
    return changed(command, at, 200, EventType.MODIFIED, stored, updated);
  }

  private static Outcome delete(
      ResourceCommand command, CommandPosition at, ResourceEvent current) {
    if (current == null) {
      return notFound(command, at);
    }
    SpecificRecord stored = (SpecificRecord) KindObjects.of(current);
    Outcome conflict = checkPreconditions(command, at, stored, null);
    if (conflict != null) {
      return conflict;
    }
    ObjectMeta meta = KubeObjects.meta(stored);
    DeleteOptions options = command.getDeleteOptions();
    String policy = options == null ? null : options.getPropagationPolicy();
    List<String> finalizers = new ArrayList<>(nullToEmpty(meta.getFinalizers()));
    if ("Orphan".equals(policy) && !finalizers.contains(ORPHAN_FINALIZER)) {
      finalizers.add(ORPHAN_FINALIZER);
    } else if ("Foreground".equals(policy) && !finalizers.contains(FOREGROUND_FINALIZER)) {
      finalizers.add(FOREGROUND_FINALIZER);
    }
    KindStrategy strategy = strategy(stored);
    long grace =
        strategy.gracePeriodSeconds(
            stored, options == null ? null : options.getGracePeriodSeconds());
    if (finalizers.isEmpty() && grace == 0 && strategy.specFinalizers(stored).isEmpty()) {
      return removed(command, at, stored);
    }
    if (meta.getDeletionTimestamp() != null
        && finalizers.equals(nullToEmpty(meta.getFinalizers()))
        && grace >= nullToZero(meta.getDeletionGracePeriodSeconds())) {
      // Already being deleted, and this request would not hasten it.
      return unchanged(command, at, current);
    }
    Instant deleteAt = at.timestamp().truncatedTo(ChronoUnit.SECONDS).plusSeconds(grace);
    SpecificRecord terminating =
        KubeObjects.withMeta(
            stored,
            ObjectMeta.newBuilder(meta)
                .setDeletionTimestamp(
                    meta.getDeletionTimestamp() == null
                            || meta.getDeletionTimestamp().isAfter(deleteAt)
                        ? deleteAt
                        : meta.getDeletionTimestamp())
                .setDeletionGracePeriodSeconds(grace)
                .setFinalizers(finalizers.isEmpty() ? meta.getFinalizers() : finalizers)
                .build());
    return changed(command, at, 200, EventType.MODIFIED, stored, strategy.deleting(terminating));
  }

  private static Outcome bind(ResourceCommand command, CommandPosition at, ResourceEvent current) {
    if (current == null) {
      return notFound(command, at);
    }
    if (!(KindObjects.of(current) instanceof Pod pod) || pod.getSpec() == null) {
      return failure(command, at, 400, "BadRequest", "only pods can be bound", List.of());
    }
    Outcome conflict = checkPreconditions(command, at, pod, null);
    if (conflict != null) {
      return conflict;
    }
    String node = command.getNodeName();
    if (node == null || node.isBlank()) {
      return failure(
          command,
          at,
          422,
          "Invalid",
          "Binding.core \"" + command.getName() + "\" is invalid: target.name: Required value",
          List.of(new StatusCause("FieldValueRequired", "Required value", "target.name")));
    }
    if (pod.getSpec().getNodeName() != null) {
      return failure(
          command,
          at,
          409,
          "Conflict",
          "Operation cannot be fulfilled on pods/binding \""
              + command.getName()
              + "\": pod "
              + command.getName()
              + " is already assigned to node \""
              + pod.getSpec().getNodeName()
              + "\"",
          List.of());
    }
    if (pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null) {
      return failure(
          command,
          at,
          409,
          "Conflict",
          "Operation cannot be fulfilled on pods/binding \""
              + command.getName()
              + "\": pod "
              + command.getName()
              + " is being deleted, cannot be assigned to a host",
          List.of());
    }
    Pod bound = KubeObjects.copy(pod);
    bound.getSpec().setNodeName(node);
    PodStatus status = bound.getStatus() == null ? new PodStatus() : bound.getStatus();
    List<PodCondition> conditions = new ArrayList<>();
    for (PodCondition condition : nullToEmpty(status.getConditions())) {
      if (!"PodScheduled".equals(condition.getType())) {
        conditions.add(condition);
      }
    }
    conditions.add(
        PodCondition.newBuilder()
            .setType("PodScheduled")
            .setStatus("True")
            .setLastTransitionTime(at.timestamp().truncatedTo(ChronoUnit.SECONDS))
            .build());
    status.setConditions(conditions);
    bound.setStatus(status);
    return changed(command, at, 201, EventType.MODIFIED, pod, bound);
  }

  /**
   * Checks the uid and resourceVersion the command names — in its preconditions, or else in the
   * object it carries — against the stored object; a mismatch is Kubernetes' Conflict. An object
   * carrying resourceVersion {@code "0"} or none is an unconditional write.
   */
  private static Outcome checkPreconditions(
      ResourceCommand command, CommandPosition at, SpecificRecord stored, ObjectMeta given) {
    ObjectMeta meta = KubeObjects.meta(stored);
    Preconditions preconditions = command.getPreconditions();
    String wantedUid = preconditions == null ? null : preconditions.getUid();
    if (wantedUid == null && given != null) {
      wantedUid = given.getUid();
    }
    if (wantedUid != null && !wantedUid.equals(meta.getUid())) {
      return conflict(
          command,
          at,
          "Precondition failed: UID in precondition: "
              + wantedUid
              + ", UID in object meta: "
              + meta.getUid());
    }
    String wantedVersion = preconditions == null ? null : preconditions.getResourceVersion();
    if (wantedVersion == null && given != null && !unset(given.getResourceVersion())) {
      wantedVersion = given.getResourceVersion();
    }
    if (wantedVersion != null && !wantedVersion.equals(meta.getResourceVersion())) {
      return conflict(
          command,
          at,
          "the object has been modified; please apply your changes to the latest version and try"
              + " again");
    }
    return null;
  }

  /**
   * An object's resourceVersion that asks for no precondition: none, or {@code "0"}, which
   * Kubernetes reserves to mean "unset" (kube-apiserver parses it to 0 and updates
   * unconditionally). An explicit precondition of {@code "0"} (DeleteOptions) is compared as given,
   * as there.
   */
  private static boolean unset(String resourceVersion) {
    return resourceVersion == null || resourceVersion.isEmpty() || resourceVersion.equals("0");
  }

  private static Outcome conflict(ResourceCommand command, CommandPosition at, String cause) {
    return failure(
        command,
        at,
        409,
        "Conflict",
        "Operation cannot be fulfilled on " + resourceName(command) + ": " + cause,
        List.of());
  }

  /** The kind's strategy; a kind outside the table (none is stored) behaves as the default. */
  private static KindStrategy strategy(SpecificRecord object) {
    return KINDS.storedStrategy(object);
  }

  /** Everything wrong with a create ({@code old} null) or an update of the stored {@code old}. */
  private static List<StatusCause> validate(
      SpecificRecord object, SpecificRecord old, boolean namespaced) {
    return ObjectValidation.validate(strategy(object), object, old, namespaced);
  }

  private static Long nextGeneration(SpecificRecord stored, SpecificRecord object) {
    Long generation = KubeObjects.meta(stored).getGeneration();
    if (generation == null) {
      return null;
    }
    Object oldSpec = strategy(stored).spec(stored);
    Object newSpec = strategy(object).spec(object);
    boolean sameSpec =
        oldSpec == newSpec
            || (oldSpec instanceof SpecificRecord before
                && newSpec instanceof SpecificRecord after
                && KubeObjects.same(before, after))
            || (oldSpec instanceof CharSequence before
                && newSpec instanceof CharSequence after
                && before.toString().equals(after.toString()));
    return sameSpec ? generation : generation + 1;
  }

  private static Outcome changed(
      ResourceCommand command,
      CommandPosition at,
      int code,
      EventType type,
      SpecificRecord previous,
      SpecificRecord object) {
    SpecificRecord versioned = withResourceVersion(object, at);
    // Encoded once: the result and the event carry the same bytes.
    ByteBuffer encoded = KindObjects.encode(versioned);
    CommandResult result = result(command, at, code, null, null, List.of(), encoded);
    if (command.getDryRun()) {
      return new Outcome(result, null, null);
    }
    ResourceEvent event = event(command, at, type, encoded);
    if (previous != null) {
      var before = KubeObjects.meta(previous).getOwnerReferences();
      if (!Objects.equals(before, KubeObjects.meta(versioned).getOwnerReferences())) {
        event.setOwnersBefore(before == null ? List.of() : before);
      }
    }
    return new Outcome(result, event, event);
  }

  private static Outcome removed(
      ResourceCommand command, CommandPosition at, SpecificRecord object) {
    ByteBuffer encoded = KindObjects.encode(withResourceVersion(object, at));
    CommandResult result = result(command, at, 200, null, null, List.of(), encoded);
    if (command.getDryRun()) {
      return new Outcome(result, null, null);
    }
    return new Outcome(result, event(command, at, EventType.DELETED, encoded), null);
  }

  private static SpecificRecord withResourceVersion(SpecificRecord object, CommandPosition at) {
    return KubeObjects.withMeta(
        object,
        ObjectMeta.newBuilder(KubeObjects.meta(object))
            .setResourceVersion(at.resourceVersion())
            .build());
  }

  /** A write that changes nothing: 200 with the object as stored, its bytes as they are. */
  private static Outcome unchanged(
      ResourceCommand command, CommandPosition at, ResourceEvent current) {
    return new Outcome(
        result(command, at, 200, null, null, List.of(), current.getEncodedObject()), null, null);
  }

  private static ResourceEvent event(
      ResourceCommand command, CommandPosition at, EventType type, ByteBuffer encodedObject) {
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource(command.getResource())
        .setGroup(command.getGroup())
        .setVersion(command.getVersion())
        .setNamespace(command.getNamespace())
        .setName(command.getName())
        .setEncodedObject(encodedObject)
        .setResourceVersion(at.offset())
        .setCommandId(command.getId())
        .setActor(command.getActor())
        .setAuditId(command.getAuditId())
        .build();
  }

  private static Outcome notFound(ResourceCommand command, CommandPosition at) {
    return failure(command, at, 404, "NotFound", resourceName(command) + " not found", List.of());
  }

  private static Outcome invalid(
      ResourceCommand command,
      CommandPosition at,
      SpecificRecord object,
      List<StatusCause> causes) {
    String kind =
        KubeObjects.kind(object) + (command.getGroup().isEmpty() ? "" : "." + command.getGroup());
    return failure(
        command, at, 422, "Invalid", FieldErrors.message(kind, command.getName(), causes), causes);
  }

  private static Outcome failure(
      ResourceCommand command,
      CommandPosition at,
      int code,
      String reason,
      String message,
      List<StatusCause> causes) {
    return new Outcome(result(command, at, code, reason, message, causes, null), null, null);
  }

  private static CommandResult result(
      ResourceCommand command,
      CommandPosition at,
      int code,
      String reason,
      String message,
      List<StatusCause> causes,
      ByteBuffer encodedObject) {
    return CommandResult.newBuilder()
        .setCommandId(command.getId())
        .setCode(code)
        .setReason(reason)
        .setMessage(message)
        .setCauses(causes)
        .setEncodedObject(encodedObject)
        .setPartition(at.partition())
        .setResourceVersion(at.offset())
        .build();
  }

  /** {@code pods "web"} or {@code deployments.apps "nginx"}, as Kubernetes names a resource. */
  static String resourceName(ResourceCommand command) {
    String group = command.getGroup();
    return command.getResource()
        + (group.isEmpty() ? "" : "." + group)
        + " \""
        + command.getName()
        + "\"";
  }

  /** Same key, same log position: the same uid on every replay. */
  private static String uid(ResourceCommand command, CommandPosition at) {
    String key = ResourceKey.of(command) + "@" + at.partition() + ":" + at.offset();
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }

  private static boolean empty(List<?> list) {
    return list == null || list.isEmpty();
  }

  private static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static long nullToZero(Long value) {
    return value == null ? 0 : value;
  }
}
