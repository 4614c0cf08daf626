package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * kube-apiserver's StorageObjectInUseProtection plugin: a PersistentVolumeClaim created gets the
 * finalizer {@code kubernetes.io/pvc-protection}, a PersistentVolume {@code
 * kubernetes.io/pv-protection}, so that deleting one still used (the claim by a pod, the volume by
 * a claim bound to it) only marks it; the pvc-protection and pv-protection controllers remove the
 * finalizer once nothing uses it.
 */
public final class StorageObjectInUseProtection implements MutatingAdmission {

  public static final String PVC_PROTECTION = "kubernetes.io/pvc-protection";
  public static final String PV_PROTECTION = "kubernetes.io/pv-protection";

  @Override
  public void admit(AdmissionRequest request) {
    if (request.operation() != Operation.CREATE
        || !request.type().group().isEmpty()
        || !request.subresource().isEmpty()
        || request.object() == null) {
      return;
    }
    String finalizer =
        switch (request.type().plural()) {
          case "persistentvolumeclaims" -> PVC_PROTECTION;
          case "persistentvolumes" -> PV_PROTECTION;
          default -> null;
        };
    if (finalizer == null) {
      return;
    }
    ObjectNode metadata = request.object().with("metadata");
    JsonNode finalizers = metadata.path("finalizers");
    for (JsonNode f : finalizers) {
      if (f.asText().equals(finalizer)) {
        return;
      }
    }
    ArrayNode list =
        finalizers.isArray() ? (ArrayNode) finalizers : metadata.putArray("finalizers");
    list.add(finalizer);
  }
}
