package io.streamplane.gateway.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.patch.PatchSchema;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who owns which field of an object, kept in {@code metadata.managedFields} as kube-apiserver's
 * field manager keeps it, and server-side apply on top of it.
 *
 * <ul>
 *   <li>{@link #update}: a create, update or patch. The writer becomes owner (operation {@code
 *       Update}) of every field it added or changed, and other managers lose them; removed fields
 *       leave every manager. managedFields sent with the object are taken as they are, unless the
 *       list is empty, does not decode, or the write is to a subresource: then the live object's
 *       are kept (so clients unaware of them cannot drop them). Sending {@code [{}]} resets them.
 *   <li>{@link #apply}: server-side apply. The configuration is merged into the live object; the
 *       applier owns exactly the fields of its configuration (operation {@code Apply}); fields it
 *       applied before and no longer applies are removed from the object unless another manager
 *       owns them; fields of other managers whose value it changes are conflicts, unless forced,
 *       which takes them over.
 * </ul>
 *
 * <p>What one write covers is its {@link Scope}: a write to the main resource does not own {@code
 * status} when the kind has a status subresource, a write to the status subresource owns only
 * {@code status} (kube-apiserver's reset fields). Server-set metadata (name, uid, resourceVersion,
 * ...) is never owned. Pure; objects given are never modified.
 *
 * <p>Limits: one API version per kind, so no conversion of field sets between versions; the number
 * of {@code Update} managers is not capped (kube-apiserver folds the oldest beyond ten into one
 * {@code ancient-changes} entry).
 */
public final class FieldManager {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Logger LOG = LoggerFactory.getLogger(FieldManager.class);

  /** Paths kube-apiserver strips from every field set. */
  private static final FieldSet STRIPPED = stripped();

  private FieldManager() {}

  /** Which part of the object one write may own. */
  public enum Scope {
    /** The whole object: a kind without a status subresource. */
    ALL,
    /** The main resource of a kind with a status subresource: everything but {@code status}. */
    MAIN,
    /** The status subresource: {@code status} only. */
    STATUS
  }

  /** Who writes, how, through what, and when. */
  public record Writer(String manager, String apiVersion, String subresource, Instant time) {
    public Writer {
      Objects.requireNonNull(manager, "manager");
      subresource = Objects.requireNonNullElse(subresource, "");
    }
  }

  /** Fields of other managers an apply would change. */
  public static final class ConflictException extends RuntimeException {
    private final List<Conflict> conflicts;

    ConflictException(List<Conflict> conflicts) {
      super(conflicts.size() + " conflicts");
      this.conflicts = List.copyOf(conflicts);
    }

    public List<Conflict> conflicts() {
      return conflicts;
    }
  }

  /** One conflict: a field another manager owns. */
  public record Conflict(ManagedFieldsEntry manager, List<PathElement> path) {}

  // ---------------------------------------------------------------- update

  /**
   * {@code updated} with its managedFields after {@code writer} wrote it over {@code live} (null
   * for a create). Never fails: managedFields that cannot be worked out are left as the live object
   * has them, as kube-apiserver's UpdateNoErrors does.
   */
  public static ObjectNode update(
      ObjectNode live, ObjectNode updated, PatchSchema schema, Scope scope, Writer writer) {
    ObjectNode result = updated.deepCopy();
    List<ManagedFieldsEntry> entries;
    try {
      entries = ManagedFieldsEntry.decode(updated);
      if (entries.isEmpty() || !writer.subresource().isEmpty()) {
        entries = ManagedFieldsEntry.decode(live);
      }
    } catch (IllegalArgumentException e) {
      entries = safeDecode(live);
    }
    try {
      ObjectFields.Comparison change =
          ObjectFields.compare(view(live, null), view(updated, live), schema);
      FieldSet changed = scoped(change.changed(), scope);
      FieldSet removed = scoped(change.removed(), scope);
      ManagedFieldsEntry.Id id =
          new ManagedFieldsEntry.Id(
              writer.manager(),
              ManagedFieldsEntry.UPDATE,
              writer.apiVersion(),
              writer.subresource());
      Map<ManagedFieldsEntry.Id, ManagedFieldsEntry> managers = byId(entries);
      ManagedFieldsEntry own = managers.remove(id);
      List<ManagedFieldsEntry> next = new ArrayList<>();
      for (ManagedFieldsEntry other : managers.values()) {
        next.add(other.withFields(other.fields().difference(changed).difference(removed)));
      }
      FieldSet owned =
          (own == null ? new FieldSet() : own.fields()).difference(removed).union(changed);
      next.add(
          new ManagedFieldsEntry(
              writer.manager(),
              ManagedFieldsEntry.UPDATE,
              writer.apiVersion(),
              writer.time(),
              writer.subresource(),
              owned.difference(STRIPPED)));
      setManagedFields(
          result, keepTimesIfUnchanged(live, next, changed.isEmpty() && removed.isEmpty()));
    } catch (RuntimeException e) {
      // As kube-apiserver's UpdateNoErrors: the write goes on, its ownership unrecorded.
      LOG.warn("managedFields of an update by {} not worked out", writer.manager(), e);
      setManagedFields(result, safeDecode(live));
    }
    return result;
  }

  // ---------------------------------------------------------------- apply

  /**
   * The object after {@code writer} applied {@code config} to {@code live} (null: the object does
   * not exist yet), with its managedFields; throws {@link ConflictException} when fields other
   * managers own would change and {@code force} is false, and {@link ObjectFields.ShapeException}
   * when the configuration does not fit the kind's schema.
   */
  public static ObjectNode apply(
      ObjectNode live,
      ObjectNode config,
      PatchSchema schema,
      Scope scope,
      Writer writer,
      boolean force) {
    List<ManagedFieldsEntry> entries = safeDecode(live);
    ObjectNode liveView = view(live, null);
    ObjectNode merged = ObjectFields.merge(liveView, config, schema);
    FieldSet applied = scoped(ObjectFields.fieldSet(config, schema), scope).difference(STRIPPED);

    ManagedFieldsEntry.Id id =
        new ManagedFieldsEntry.Id(
            writer.manager(), ManagedFieldsEntry.APPLY, "", writer.subresource());
    Map<ManagedFieldsEntry.Id, ManagedFieldsEntry> managers = byId(entries);
    ManagedFieldsEntry last = managers.remove(id);

    // Fields this manager applied before and applies no more go, unless someone else owns them.
    if (last != null) {
      FieldSet owned = applied.copy();
      managers.values().forEach(m -> owned.insertAll(m.fields()));
      for (List<PathElement> path : last.fields().difference(applied).paths()) {
        if (!owned.containsPrefix(path) && !isKeyField(path)) {
          merged = ObjectFields.remove(merged, path, schema);
        }
      }
    }

    ObjectFields.Comparison change = ObjectFields.compare(liveView, merged, schema);
    FieldSet changed = scoped(change.changed(), scope);
    FieldSet removed = scoped(change.removed(), scope);
    List<Conflict> conflicts = new ArrayList<>();
    List<ManagedFieldsEntry> next = new ArrayList<>();
    for (ManagedFieldsEntry other : managers.values()) {
      FieldSet taken = other.fields().intersection(changed);
      taken.forEach(p -> conflicts.add(new Conflict(other, p)));
      next.add(other.withFields(other.fields().difference(taken).difference(removed)));
    }
    if (!force) {
      // kubectl's first server-side apply of an object kept by client-side apply takes over what
      // the last-applied configuration names (kube-apiserver's lastAppliedManager).
      FieldSet upgraded = upgradedFromClientSideApply(live, schema, writer);
      conflicts.removeIf(c -> upgraded.contains(c.path()));
    }
    if (!conflicts.isEmpty() && !force) {
      conflicts.sort(
          (a, b) -> PathElement.compareBytes(a.manager().manager(), b.manager().manager()));
      throw new ConflictException(conflicts);
    }
    next.add(
        new ManagedFieldsEntry(
            writer.manager(),
            ManagedFieldsEntry.APPLY,
            writer.apiVersion(),
            writer.time(),
            writer.subresource(),
            applied));
    ObjectNode result = merged;
    if (live != null) {
      copyServerMetadata(live, result);
    }
    setManagedFields(
        result, keepTimesIfUnchanged(live, next, changed.isEmpty() && removed.isEmpty()));
    return result;
  }

  // ---------------------------------------------------------------- helpers

  /**
   * The object as compared: without managedFields, with the server-set metadata of {@code live}
   * (which a client may leave out and the store restores), so that only what the writer decides
   * counts as its change.
   */
  private static ObjectNode view(ObjectNode object, ObjectNode live) {
    if (object == null) {
      return null;
    }
    ObjectNode view = object.deepCopy();
    if (view.get("metadata") instanceof ObjectNode metadata) {
      metadata.remove("managedFields");
      if (live != null) {
        copyServerMetadata(live, view);
      }
    }
    return view;
  }

  private static void copyServerMetadata(ObjectNode from, ObjectNode to) {
    JsonNode source = from.path("metadata");
    ObjectNode metadata = to.with("metadata");
    for (String field :
        List.of(
            "uid",
            "creationTimestamp",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds")) {
      if (source.has(field)) {
        metadata.set(field, source.get(field));
      } else {
        metadata.remove(field);
      }
    }
  }

  private static FieldSet scoped(FieldSet set, Scope scope) {
    FieldSet status = FieldSet.of(List.of(List.of(PathElement.field("status"))));
    return switch (scope) {
      case ALL -> set;
      case MAIN -> set.withoutPrefixes(status);
      case STATUS -> set.onlyPrefixes(status);
    };
  }

  /** A key field of a list element goes with its element, never alone. */
  private static boolean isKeyField(List<PathElement> path) {
    if (path.size() < 2) {
      return false;
    }
    PathElement last = path.get(path.size() - 1);
    PathElement element = path.get(path.size() - 2);
    return last.fieldName() != null
        && element.keyFields() != null
        && element.keyFields().stream().anyMatch(k -> k.getKey().equals(last.fieldName()));
  }

  private static Map<ManagedFieldsEntry.Id, ManagedFieldsEntry> byId(
      List<ManagedFieldsEntry> entries) {
    Map<ManagedFieldsEntry.Id, ManagedFieldsEntry> managers = new LinkedHashMap<>();
    for (ManagedFieldsEntry e : entries) {
      ManagedFieldsEntry same = managers.get(e.id());
      managers.put(e.id(), same == null ? e : same.withFields(same.fields().union(e.fields())));
    }
    return managers;
  }

  /** The annotation in which client-side {@code kubectl apply} keeps what it applied. */
  public static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  /** The manager of kubectl's server-side apply, the only one that takes over client-side apply. */
  private static final String KUBECTL = "kubectl";

  /**
   * The fields a server-side apply may take over without conflict because client-side apply set
   * them: for kubectl's manager, those of the live object's last-applied configuration; none for
   * any other manager (the opt-out is another {@code --field-manager}) or without the annotation.
   */
  private static FieldSet upgradedFromClientSideApply(
      ObjectNode live, PatchSchema schema, Writer writer) {
    if (live == null || !writer.manager().equals(KUBECTL)) {
      return new FieldSet();
    }
    String lastApplied = live.path("metadata").path("annotations").path(LAST_APPLIED).asText("");
    if (lastApplied.isEmpty()) {
      return new FieldSet();
    }
    try {
      JsonNode config = JSON.readTree(lastApplied);
      return config instanceof ObjectNode object
          ? ObjectFields.fieldSet(object, schema)
          : new FieldSet();
    } catch (IOException | RuntimeException e) {
      return new FieldSet(); // an annotation that is no object allows nothing, as in Kubernetes
    }
  }

  /**
   * kube-apiserver's lastAppliedUpdater: after kubectl's server-side apply of an object that
   * client-side apply also keeps, the last-applied annotation holds the new configuration (without
   * the annotation), so a later client-side apply computes its patch from it.
   */
  public static void syncLastApplied(ObjectNode merged, ObjectNode config, Writer writer) {
    JsonNode annotations = merged.path("metadata").path("annotations");
    if (!writer.manager().equals(KUBECTL) || !annotations.has(LAST_APPLIED)) {
      return;
    }
    ObjectNode applied = config.deepCopy();
    JsonNode appliedAnnotations = applied.path("metadata").path("annotations");
    if (appliedAnnotations instanceof ObjectNode a) {
      a.remove(LAST_APPLIED);
    }
    ((ObjectNode) annotations).put(LAST_APPLIED, applied.toString());
  }

  private static List<ManagedFieldsEntry> safeDecode(ObjectNode object) {
    try {
      return ManagedFieldsEntry.decode(object);
    } catch (IllegalArgumentException e) {
      return List.of();
    }
  }

  /**
   * When a write changes nothing, the entries keep their times, so that a no-op write stays one
   * (kube-apiserver's IgnoreManagedFieldsTimestampsTransformer).
   */
  private static List<ManagedFieldsEntry> keepTimesIfUnchanged(
      ObjectNode live, List<ManagedFieldsEntry> next, boolean objectUnchanged) {
    if (!objectUnchanged || live == null) {
      return next;
    }
    List<ManagedFieldsEntry> before = safeDecode(live);
    Map<ManagedFieldsEntry.Id, ManagedFieldsEntry> old = byId(before);
    List<ManagedFieldsEntry> kept = new ArrayList<>();
    for (ManagedFieldsEntry e : next) {
      if (e.fields().isEmpty()) {
        continue;
      }
      ManagedFieldsEntry o = old.get(e.id());
      if (o == null
          || !o.fields().equals(e.fields())
          || !o.apiVersion().equals(e.apiVersion())
          || !o.operation().equals(e.operation())) {
        return next;
      }
      kept.add(o);
    }
    if (kept.size() != before.stream().filter(e -> !e.fields().isEmpty()).count()) {
      return next;
    }
    return kept;
  }

  private static void setManagedFields(ObjectNode object, List<ManagedFieldsEntry> entries) {
    ObjectNode metadata = object.with("metadata");
    // Empty when nobody owns anything: the list is sent all the same, so that the store tells a
    // reset from a writer that does not send managedFields.
    metadata.set("managedFields", ManagedFieldsEntry.encode(entries));
  }

  private static FieldSet stripped() {
    List<List<PathElement>> paths = new ArrayList<>();
    paths.add(List.of(PathElement.field("apiVersion")));
    paths.add(List.of(PathElement.field("kind")));
    paths.add(List.of(PathElement.field("metadata")));
    for (String field :
        List.of(
            "name",
            "namespace",
            "creationTimestamp",
            "selfLink",
            "uid",
            "clusterName",
            "generation",
            "managedFields",
            "resourceVersion")) {
      paths.add(List.of(PathElement.field("metadata"), PathElement.field(field)));
    }
    return FieldSet.of(paths);
  }
}
