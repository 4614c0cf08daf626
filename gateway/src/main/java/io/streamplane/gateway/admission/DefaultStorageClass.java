package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * kube-apiserver's DefaultStorageClass plugin: a PersistentVolumeClaim created without a class
 * (neither {@code spec.storageClassName}, not even {@code ""}, nor the beta annotation {@code
 * volume.beta.kubernetes.io/storage-class}) gets the default StorageClass's name — the class
 * annotated {@code storageclass.kubernetes.io/is-default-class: "true"} (or its beta form); of
 * several, the newest, then the first by name, as {@code GetDefaultClass} picks. With no default
 * the claim keeps no class, and the PersistentVolume controller gives it one when a default
 * appears.
 *
 * <p>Limits: the classes are read from the gateway's cache, so a default class created a moment
 * before may not be seen yet.
 */
public final class DefaultStorageClass implements MutatingAdmission {

  static final String DEFAULT_ANNOTATION = "storageclass.kubernetes.io/is-default-class";
  static final String BETA_DEFAULT_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class";
  static final String BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

  private final ClusterObjects objects;

  public DefaultStorageClass(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (request.operation() != Operation.CREATE
        || !request.type().group().isEmpty()
        || !request.type().plural().equals("persistentvolumeclaims")
        || !request.subresource().isEmpty()
        || request.object() == null) {
      return;
    }
    ObjectNode claim = request.object();
    boolean hasClass =
        claim.path("spec").hasNonNull("storageClassName")
            || claim.path("metadata").path("annotations").has(BETA_CLASS_ANNOTATION);
    if (hasClass) {
      return;
    }
    defaultClass(objects.list("storage.k8s.io", "storageclasses", null))
        .ifPresent(name -> claim.with("spec").put("storageClassName", name));
  }

  /** {@code GetDefaultClass}: the newest default class, ties broken by name. */
  public static Optional<String> defaultClass(List<ObjectNode> classes) {
    return classes.stream()
        .filter(DefaultStorageClass::isDefault)
        .sorted(
            Comparator.comparing(DefaultStorageClass::created)
                .reversed()
                .thenComparing(c -> c.path("metadata").path("name").asText()))
        .map(c -> c.path("metadata").path("name").asText())
        .findFirst();
  }

  /** {@code storageutil.IsDefaultAnnotation}. */
  public static boolean isDefault(JsonNode storageClass) {
    JsonNode annotations = storageClass.path("metadata").path("annotations");
    return annotations.path(DEFAULT_ANNOTATION).asText("").equals("true")
        || annotations.path(BETA_DEFAULT_ANNOTATION).asText("").equals("true");
  }

  private static Instant created(JsonNode storageClass) {
    String at = storageClass.path("metadata").path("creationTimestamp").asText("");
    return at.isEmpty() ? Instant.EPOCH : Instant.parse(at);
  }
}
