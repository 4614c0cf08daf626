package io.streamplane.controller.volume;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.StorageClass;
import io.streamplane.schema.objects.Quantities;
import java.math.BigDecimal;
import java.util.Map;

/**
 * The annotations and helpers Kubernetes' {@code storage/util} and {@code storagehelpers} give the
 * PersistentVolume controller, the scheduler's volume binding and the external provisioner: one
 * vocabulary for all of them.
 */
public final class VolumeAnnotations {

  /** On a claim: the controller has finished binding it (it may be Lost since). */
  public static final String BIND_COMPLETED = "pv.kubernetes.io/bind-completed";

  /** On a claim or a volume: the controller, not a user, set volumeName or claimRef. */
  public static final String BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";

  /** On a claim: the provisioner asked to provision its volume. */
  public static final String STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";

  public static final String BETA_STORAGE_PROVISIONER =
      "volume.beta.kubernetes.io/storage-provisioner";

  /** On a volume: the provisioner that created it, which also deletes it. */
  public static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";

  /** On a claim of a WaitForFirstConsumer class: the node the scheduler chose for its first pod. */
  public static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";

  public static final String BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

  /** The provisioner of classes whose volumes are only ever made by hand (local volumes). */
  public static final String NO_PROVISIONER = "kubernetes.io/no-provisioner";

  public static final String DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";
  public static final String BETA_DEFAULT_CLASS =
      "storageclass.beta.kubernetes.io/is-default-class";

  private VolumeAnnotations() {}

  static boolean has(ObjectMeta meta, String annotation) {
    return meta != null
        && meta.getAnnotations() != null
        && meta.getAnnotations().containsKey(annotation);
  }

  static String get(ObjectMeta meta, String annotation) {
    return meta == null || meta.getAnnotations() == null
        ? null
        : meta.getAnnotations().get(annotation);
  }

  /** {@code GetPersistentVolumeClaimClass}: the beta annotation, else spec's class, else "". */
  public static String claimClass(PersistentVolumeClaim claim) {
    String beta = get(claim.getMetadata(), BETA_STORAGE_CLASS);
    if (beta != null) {
      return beta;
    }
    String name = claim.getSpec() == null ? null : claim.getSpec().getStorageClassName();
    return name == null ? "" : name;
  }

  /** {@code GetPersistentVolumeClass}. */
  public static String volumeClass(PersistentVolume volume) {
    String beta = get(volume.getMetadata(), BETA_STORAGE_CLASS);
    if (beta != null) {
      return beta;
    }
    String name = volume.getSpec() == null ? null : volume.getSpec().getStorageClassName();
    return name == null ? "" : name;
  }

  /** {@code IsDefaultAnnotation}. */
  public static boolean isDefault(StorageClass storageClass) {
    ObjectMeta meta = storageClass.getMetadata();
    return "true".equals(get(meta, DEFAULT_CLASS)) || "true".equals(get(meta, BETA_DEFAULT_CLASS));
  }

  /** The storage request of a claim (0 when it has none). */
  public static BigDecimal requested(PersistentVolumeClaim claim) {
    return storage(
        claim.getSpec() == null || claim.getSpec().getResources() == null
            ? null
            : claim.getSpec().getResources().getRequests());
  }

  /** The storage capacity of a volume (0 when it has none). */
  public static BigDecimal capacity(PersistentVolume volume) {
    return storage(volume.getSpec() == null ? null : volume.getSpec().getCapacity());
  }

  private static BigDecimal storage(Map<String, String> resources) {
    String q = resources == null ? null : resources.get("storage");
    return q == null ? BigDecimal.ZERO : Quantities.parse(q);
  }

  /** A claim's or a volume's volume mode, Filesystem when unset. */
  static String mode(String volumeMode) {
    return volumeMode == null ? "Filesystem" : volumeMode;
  }
}
