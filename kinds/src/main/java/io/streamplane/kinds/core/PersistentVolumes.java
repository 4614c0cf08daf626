package io.streamplane.kinds.core;

import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.Quantities;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What PersistentVolumes and PersistentVolumeClaims share, as Kubernetes' {@code
 * pkg/apis/core/validation} and {@code helper} packages share it: the access modes and volume modes
 * supported, storage class names, positive storage quantities, and how kubectl shows access modes
 * and classes.
 */
final class PersistentVolumes {

  static final String BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

  static final List<String> ACCESS_MODES =
      List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod");
  static final List<String> VOLUME_MODES = List.of("Block", "Filesystem");

  private PersistentVolumes() {}

  /**
   * Each access mode supported, and ReadWriteOncePod alone; {@code required} the message of an
   * empty list.
   */
  static void accessModes(List<String> modes, String field, String required, List<StatusCause> c) {
    if (modes == null || modes.isEmpty()) {
      c.add(
          required == null
              ? io.streamplane.kinds.validation.FieldErrors.required(field)
              : io.streamplane.kinds.validation.FieldErrors.required(field, required));
      return;
    }
    boolean once = false;
    boolean other = false;
    for (String mode : modes) {
      if (!ACCESS_MODES.contains(mode)) {
        c.add(notSupported(field, mode, ACCESS_MODES));
      } else if (mode.equals("ReadWriteOncePod")) {
        once = true;
      } else {
        other = true;
      }
    }
    if (once && other) {
      c.add(forbidden(field, "may not use ReadWriteOncePod with other access modes"));
    }
  }

  /** {@code ValidateClassName}: a DNS-1123 subdomain. */
  static void className(String name, String field, List<StatusCause> c) {
    if (name != null && !name.isEmpty()) {
      c.addAll(Names.subdomain(field, name));
    }
  }

  static void volumeMode(String mode, String field, List<StatusCause> c) {
    if (mode != null && !VOLUME_MODES.contains(mode)) {
      c.add(notSupported(field, mode, VOLUME_MODES));
    }
  }

  /** {@code ValidatePositiveQuantityValue}. */
  static void positive(String quantity, String field, List<StatusCause> c) {
    if (quantity != null && Quantities.parse(quantity).signum() <= 0) {
      c.add(invalid(field, quantity, "must be greater than zero"));
    }
  }

  /** The storage quantity of a resource list, or null. */
  static BigDecimal storage(Map<String, String> resources) {
    String q = resources == null ? null : resources.get("storage");
    return q == null ? null : Quantities.parse(q);
  }

  /** {@code helper.GetAccessModesAsString}: RWO, ROX, RWX, RWOP in that order. */
  static String accessModesAsString(JsonNode modes) {
    List<String> present = new ArrayList<>();
    modes.forEach(m -> present.add(m.asText()));
    List<String> shown = new ArrayList<>();
    if (present.contains("ReadWriteOnce")) {
      shown.add("RWO");
    }
    if (present.contains("ReadOnlyMany")) {
      shown.add("ROX");
    }
    if (present.contains("ReadWriteMany")) {
      shown.add("RWX");
    }
    if (present.contains("ReadWriteOncePod")) {
      shown.add("RWOP");
    }
    return String.join(",", shown);
  }

  /** {@code GetPersistentVolume(Claim)Class}: the beta annotation first, then the spec's field. */
  static String storageClass(JsonNode object) {
    JsonNode annotation =
        object.path("metadata").path("annotations").path(BETA_STORAGE_CLASS_ANNOTATION);
    if (annotation.isTextual()) {
      return annotation.asText();
    }
    return object.path("spec").path("storageClassName").asText("");
  }
}
