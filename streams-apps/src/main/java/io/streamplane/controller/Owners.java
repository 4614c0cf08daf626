package io.streamplane.controller;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import java.util.List;

/** Reading ownerReferences, as Kubernetes' {@code metav1.GetControllerOf} and friends. */
public final class Owners {

  private Owners() {}

  /** The ownerReference with controller=true, or null. */
  public static OwnerReference controllerOf(ObjectMeta meta) {
    return meta == null ? null : controllerOf(meta.getOwnerReferences());
  }

  /** The reference with controller=true among {@code refs}, or null. */
  public static OwnerReference controllerOf(List<OwnerReference> refs) {
    if (refs == null) {
      return null;
    }
    for (OwnerReference ref : refs) {
      if (Boolean.TRUE.equals(ref.getController())) {
        return ref;
      }
    }
    return null;
  }

  public static boolean controlledBy(ObjectMeta meta, String ownerUid) {
    OwnerReference ref = controllerOf(meta);
    return ref != null && ownerUid != null && ownerUid.equals(ref.getUid());
  }

  public static List<OwnerReference> refs(ObjectMeta meta) {
    return meta == null || meta.getOwnerReferences() == null
        ? List.of()
        : meta.getOwnerReferences();
  }

  /** A controller reference to an owner, with blockOwnerDeletion as Kubernetes' controllers set. */
  public static OwnerReference controllerRef(String apiVersion, String kind, ObjectMeta owner) {
    return OwnerReference.newBuilder()
        .setApiVersion(apiVersion)
        .setKind(kind)
        .setName(owner.getName())
        .setUid(owner.getUid())
        .setController(true)
        .setBlockOwnerDeletion(true)
        .build();
  }
}
