package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.schema.objects.Quantities;
import java.util.Optional;

/**
 * kube-apiserver's PersistentVolumeClaimResize plugin: a claim's storage request may grow only when
 * the claim is Bound and its StorageClass says {@code allowVolumeExpansion: true}; otherwise the
 * update is refused 403 with Kubernetes' words. (That the request never shrinks is the claim's own
 * validation.)
 */
public final class PersistentVolumeClaimResize implements ValidatingAdmission {

  private final ClusterObjects objects;

  public PersistentVolumeClaimResize(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (request.operation() != Operation.UPDATE
        || !request.type().group().isEmpty()
        || !request.type().plural().equals("persistentvolumeclaims")
        || !request.subresource().isEmpty()
        || request.object() == null
        || request.oldObject() == null) {
      return;
    }
    ObjectNode claim = request.object();
    ObjectNode old = request.oldObject();
    String newSize = storage(claim);
    String oldSize = storage(old);
    if (newSize == null
        || oldSize == null
        || Quantities.parse(newSize).compareTo(Quantities.parse(oldSize)) <= 0) {
      return;
    }
    if (!old.path("status").path("phase").asText("").equals("Bound")) {
      throw forbidden(request, "Only bound persistent volume claims can be expanded");
    }
    if (!allowsExpansion(old)) {
      throw forbidden(
          request,
          "only dynamically provisioned pvc can be resized and the storageclass that provisions"
              + " the pvc must support resize");
    }
  }

  private boolean allowsExpansion(ObjectNode claim) {
    JsonNode annotation =
        claim.path("metadata").path("annotations").path(DefaultStorageClass.BETA_CLASS_ANNOTATION);
    String className =
        annotation.isTextual()
            ? annotation.asText()
            : claim.path("spec").path("storageClassName").asText("");
    if (className.isEmpty()) {
      return false;
    }
    Optional<ObjectNode> storageClass =
        objects.get("storage.k8s.io", "storageclasses", null, className);
    return storageClass.isPresent()
        && storageClass.get().path("allowVolumeExpansion").asBoolean(false);
  }

  private static String storage(ObjectNode claim) {
    JsonNode q = claim.path("spec").path("resources").path("requests").path("storage");
    return q.isMissingNode() || q.isNull() ? null : q.asText();
  }

  private static ApiException forbidden(AdmissionRequest request, String message) {
    return new ApiException(
        Statuses.forbidden("", "persistentvolumeclaims", request.name(), message));
  }
}
