package io.streamplane.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.quota.QuotaEvaluator;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import io.streamplane.log.UserInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * A kind's behaviour, as kube-apiserver keeps it in one {@code pkg/registry/<group>/<kind>/
 * strategy.go} (with the kind's printer and field selectors): what the gateway fills in before
 * admission, what the store checks before it writes, how the kind is printed and selected.
 *
 * <p>Every method has the behaviour of a kind that says nothing special, so a strategy overrides
 * only what its kind does differently. The gateway applies {@link #applyDefaults} and {@link
 * #prepareForCreate} to the request's Kubernetes JSON; the store applies {@link #validate} and
 * {@link #validateUpdate} (with the stored object) to the Avro object it is about to write, so an
 * update is always validated against the version it replaces. No code outside a strategy decides by
 * the kind.
 *
 * <p>Contract: stateless and thread-safe; JSON methods change the given node in place (the
 * request's own copy) and are idempotent; validation returns the causes of a 422 Invalid, in
 * Kubernetes' field paths and wording, empty when valid.
 */
public interface KindStrategy {

  /** The strategy of a kind with no behaviour of its own. */
  KindStrategy DEFAULT = new KindStrategy() {};

  /**
   * The {@code SetDefaults_*} of the kind (and its declarative defaults), on every write; {@code
   * create} is true for a create, where a few defaults (a status phase) apply only.
   */
  default void applyDefaults(ObjectNode object, boolean create) {}

  /**
   * The stored object as a read shows it: for a custom resource, with its schema's current defaults
   * (kube-apiserver defaults what it decodes from etcd), never written back. {@code stored} is
   * shared and not changed: the result is it, or a changed copy.
   */
  default ObjectNode defaultedOnRead(ObjectNode stored) {
    return stored;
  }

  /**
   * What the registry's PrepareForCreate works out after the mutating admission plugins, which may
   * have changed what it depends on (a pod's QoS class from its defaulted resources).
   */
  default void prepareForCreate(ObjectNode object) {}

  /**
   * {@link #prepareForCreate(ObjectNode)} with the user who asks for the create, for kinds that
   * record their requester (a CertificateSigningRequest's {@code spec.username}).
   */
  default void prepareForCreate(ObjectNode object, UserInfo requester) {
    prepareForCreate(object);
  }

  /**
   * The warnings a create or an update of the object is answered with ({@code WarningsOnCreate},
   * {@code WarningsOnUpdate}), as {@code Warning} headers.
   */
  default List<String> warningsOnWrite(JsonNode object) {
    return List.of();
  }

  /**
   * The object as the store creates it, once it has its uid: what kube-apiserver's registry derives
   * from the uid before validating (a Job's generated selector, which its strategy makes in
   * Validate). Returns a new object, or {@code object} itself when nothing changes.
   */
  default SpecificRecord withGeneratedFields(SpecificRecord object) {
    return object;
  }

  /** How the kind's names are validated ({@code ValidateObjectMeta}'s name function). */
  default Names.Rule nameRule() {
    return Names.Rule.DNS1123_SUBDOMAIN;
  }

  /**
   * The kind's own validation of a new object (metadata is checked by the store for every kind).
   */
  default List<StatusCause> validate(SpecificRecord object) {
    return List.of();
  }

  /**
   * The kind's validation of an update against the object it replaces ({@code ValidateUpdate}): by
   * default what a create must satisfy.
   */
  default List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    return validate(object);
  }

  /**
   * What a create through this served version asks beyond the validation of its storage kind, on
   * the request's JSON before it is converted (kube-apiserver validates with the request's version:
   * events.k8s.io/v1 asks more of an Event than core/v1 does). Only views have such rules.
   */
  default List<StatusCause> validateVersionedCreate(JsonNode object) {
    return List.of();
  }

  /**
   * The object as a write through {@code subresource} leaves it — {@code stored} with the part that
   * subresource may change taken from {@code written} (a pod's {@code ephemeralcontainers}) — or
   * null when the kind has no such subresource. The status subresource is the store's own.
   */
  default SpecificRecord writeThrough(
      String subresource, SpecificRecord written, SpecificRecord stored) {
    return null;
  }

  /** The validation of a write through {@code subresource}, against the object it replaces. */
  default List<StatusCause> validateThrough(
      String subresource, SpecificRecord updated, SpecificRecord stored) {
    return List.of();
  }

  /** Whether the kind keeps {@code metadata.generation}, raised by every change of its spec. */
  default boolean keepsGeneration() {
    return false;
  }

  /**
   * Whether the status subresource also writes the object's annotations. Kubernetes' Deployment
   * status strategy keeps only spec and labels from the stored object, and its controller writes
   * the revision annotation with a status update; every other kind's status update changes the
   * status alone.
   */
  default boolean statusWritesAnnotations() {
    return false;
  }

  /**
   * The fields a field selector may name (the kind's {@code GetAttrs}), each with how to read it
   * from an object: by default {@code metadata.name} and {@code metadata.namespace}.
   */
  default Map<String, Function<JsonNode, String>> selectableFields() {
    return Fields.objectMeta();
  }

  /** The message of a field selector naming {@code label}, which the kind does not select by. */
  default String unknownFieldLabel(String label) {
    return "field label not supported: " + label;
  }

  /**
   * How long a delete waits before the object goes ({@code CheckGracefulDelete}): the requested
   * grace period, the kind's default, or 0 — removed at once, unless finalizers hold it. Only pods
   * on a node are deleted gracefully.
   */
  default long gracePeriodSeconds(SpecificRecord object, Long requested) {
    return 0;
  }

  /**
   * Finalizers a kind keeps in its spec, which hold its removal as {@code metadata.finalizers} do
   * (a Namespace's {@code spec.finalizers}, removed by the namespace controller once it is empty).
   */
  default List<String> specFinalizers(SpecificRecord object) {
    return List.of();
  }

  /**
   * The object as a delete that has to wait leaves it, its deletion timestamp already set (a
   * Namespace turns Terminating). Returns a new object, or {@code object} itself when nothing
   * changes.
   */
  default SpecificRecord deleting(SpecificRecord object) {
    return object;
  }

  /**
   * For a kind whose schema the gateway holds (a custom resource): removes from the request's
   * object every field the schema does not specify and returns their paths ({@code spec.foo}),
   * which the gateway answers as unknown fields (a warning, or a 400 under strict field
   * validation). Other kinds' unknown fields are found by the converter.
   */
  default List<String> prune(ObjectNode object) {
    return List.of();
  }

  /**
   * The gateway's validation of a write's object against the kind's schema (a custom resource's
   * {@code openAPIV3Schema} and its validation rules), before the command is written, against the
   * object it replaces ({@code old}, null on a create): the causes of a 422 Invalid.
   */
  default List<StatusCause> validateSchema(JsonNode object, JsonNode old) {
    return List.of();
  }

  /**
   * The decoded object as it is stored: a custom object whose kind has no status subresource keeps
   * its status with the rest of its fields, so the main resource writes it. Returns a new object,
   * or {@code decoded} itself.
   */
  default SpecificRecord stored(SpecificRecord decoded) {
    return decoded;
  }

  /**
   * The part of the object whose changes raise {@code metadata.generation} when {@link
   * #keepsGeneration}: its {@code spec}, or everything but metadata and status for a custom object.
   */
  default Object spec(SpecificRecord object) {
    return io.streamplane.schema.objects.KubeObjects.get(
        object, io.streamplane.schema.objects.KubeObjects.SPEC);
  }

  /**
   * The warning every request to this version of the kind gets ({@code Warning: 299 - "..."}), as
   * kube-apiserver warns of a deprecated version; empty for a version that is not deprecated.
   */
  default Optional<String> deprecationWarning() {
    return Optional.empty();
  }

  /**
   * Whether the kind takes strategic merge patches, which need Go struct tags: custom resources do
   * not, and kube-apiserver answers them 415.
   */
  default boolean acceptsStrategicMergePatch() {
    return true;
  }

  /**
   * The object's autoscaling/v1 Scale when the kind reads its replicas elsewhere than {@code
   * spec.replicas} (a custom resource's {@code specReplicasPath}); null for the built-in kinds.
   */
  default ObjectNode scaleOf(ObjectNode object) {
    return null;
  }

  /**
   * A copy of the object with {@code replicas} where the kind's scale subresource writes them; null
   * for {@code spec.replicas}, the built-in kinds'.
   */
  default ObjectNode withScaleReplicas(ObjectNode object, int replicas) {
    return null;
  }

  /** How the kind's objects count against a ResourceQuota beyond their object count. */
  default QuotaEvaluator quota() {
    return QuotaEvaluator.COUNT_ONLY;
  }

  /** The kind's Table printer; the API server's default (Name, Created At) unless it has one. */
  default Printer printer() {
    return Printer.CREATED_AT;
  }
}
