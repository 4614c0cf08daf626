package io.streamplane.kinds.storage;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.StorageClass;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * storage.k8s.io/v1 StorageClass: reclaim policy Delete and binding mode Immediate by default; a
 * provisioner required; parameters, provisioner, reclaim policy and binding mode immutable; printed
 * with {@code (default)} after the name of the default class.
 *
 * <p>Limits: the provisioner is not checked as a qualified name, parameters not for size.
 */
public final class StorageClassStrategy implements KindStrategy {

  static final String DEFAULT_ANNOTATION = "storageclass.kubernetes.io/is-default-class";
  static final String BETA_DEFAULT_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class";

  private static final List<String> RECLAIM_POLICIES = List.of("Delete", "Retain");
  private static final List<String> BINDING_MODES = List.of("Immediate", "WaitForFirstConsumer");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    putIfAbsent(object, "reclaimPolicy", "Delete");
    putIfAbsent(object, "volumeBindingMode", "Immediate");
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    StorageClass sc = (StorageClass) object;
    List<StatusCause> causes = new ArrayList<>();
    if (sc.getProvisioner() == null || sc.getProvisioner().isEmpty()) {
      causes.add(required("provisioner"));
    }
    if (sc.getReclaimPolicy() != null && !RECLAIM_POLICIES.contains(sc.getReclaimPolicy())) {
      causes.add(notSupported("reclaimPolicy", sc.getReclaimPolicy(), RECLAIM_POLICIES));
    }
    if (sc.getVolumeBindingMode() == null) {
      causes.add(required("volumeBindingMode"));
    } else if (!BINDING_MODES.contains(sc.getVolumeBindingMode())) {
      causes.add(notSupported("volumeBindingMode", sc.getVolumeBindingMode(), BINDING_MODES));
    }
    return causes;
  }

  /** {@code ValidateStorageClassUpdate}. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    StorageClass sc = (StorageClass) object;
    StorageClass previous = (StorageClass) old;
    List<StatusCause> causes = new ArrayList<>(validate(object));
    Map<String, String> parameters = sc.getParameters() == null ? Map.of() : sc.getParameters();
    Map<String, String> oldParameters =
        previous.getParameters() == null ? Map.of() : previous.getParameters();
    if (!parameters.equals(oldParameters)) {
      causes.add(forbidden("parameters", "updates to parameters are forbidden."));
    }
    if (!Objects.equals(sc.getProvisioner(), previous.getProvisioner())) {
      causes.add(forbidden("provisioner", "updates to provisioner are forbidden."));
    }
    if (!Objects.equals(sc.getReclaimPolicy(), previous.getReclaimPolicy())) {
      causes.add(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
    }
    if (!Objects.equals(sc.getVolumeBindingMode(), previous.getVolumeBindingMode())) {
      causes.add(
          new StatusCause(
              "FieldValueInvalid",
              "Invalid value: \"" + sc.getVolumeBindingMode() + "\": field is immutable",
              "volumeBindingMode"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Provisioner", "string", "Indicates the type of the provisioner."),
              col("ReclaimPolicy", "string", "Indicates the type of the reclaim policy."),
              col("VolumeBindingMode", "string", "Indicates the mode of the volume binding."),
              col("AllowVolumeExpansion", "string", "Indicates the flag of the volume expansion."),
              age()),
          (o, now) ->
              List.of(
                  isDefault(o.path("metadata").path("annotations"))
                      ? name(o) + " (default)"
                      : name(o),
                  o.path("provisioner").asText(""),
                  o.path("reclaimPolicy").asText("Delete"),
                  o.path("volumeBindingMode").asText("Immediate"),
                  o.path("allowVolumeExpansion").asBoolean(false),
                  age(o, now)));

  /** {@code storageutil.IsDefaultAnnotation}: the annotation, or its beta form, is "true". */
  static boolean isDefault(JsonNode annotations) {
    return annotations.path(DEFAULT_ANNOTATION).asText("").equals("true")
        || annotations.path(BETA_DEFAULT_ANNOTATION).asText("").equals("true");
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
