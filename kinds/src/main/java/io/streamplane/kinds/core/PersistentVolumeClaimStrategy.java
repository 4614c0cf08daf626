package io.streamplane.kinds.core;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.PersistentVolumeClaimSpec;
import io.streamplane.api.TypedLocalObjectReference;
import io.streamplane.api.TypedObjectReference;
import io.streamplane.api.VolumeResourceRequirements;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.policy.PodDisruptionBudgetStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 PersistentVolumeClaim, as kube-apiserver's {@code persistentvolumeclaim} strategy: volume
 * mode Filesystem by default, created Pending; {@code ValidatePersistentVolumeClaimSpec} (access
 * modes required and supported, a valid selector, a positive storage request, the class a DNS
 * subdomain, a supported volume mode, data sources); {@code ValidatePersistentVolumeClaimUpdate}:
 * the spec immutable but for a volumeName set once, the storage request of a bound claim (never
 * smaller) and volumeAttributesClassName; kubectl's columns.
 *
 * <p>Whether a grown request is allowed by the claim's StorageClass ({@code allowVolumeExpansion})
 * is admission's to decide, as Kubernetes' PersistentVolumeClaimResize plugin does. Limits: the
 * immutable spec's error does not carry Go's diff; the beta storage-class annotation's upgrade
 * paths are not reproduced (the annotation is immutable).
 */
public final class PersistentVolumeClaimStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    if (object.path("spec") instanceof ObjectNode spec) {
      putIfAbsent(spec, "volumeMode", "Filesystem");
    }
    if (object.path("status") instanceof ObjectNode status) {
      putIfAbsent(status, "phase", "Pending");
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object) {
    object.putObject("status").put("phase", "Pending");
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    PersistentVolumeClaim pvc = (PersistentVolumeClaim) object;
    List<StatusCause> causes = new ArrayList<>();
    PersistentVolumeClaimSpec spec = pvc.getSpec();
    spec(spec == null ? PersistentVolumeClaimSpec.newBuilder().build() : spec, "spec", causes);
    return causes;
  }

  /** {@code ValidatePersistentVolumeClaimSpec}, also for a pod's ephemeral volume templates. */
  public static void spec(PersistentVolumeClaimSpec spec, String path, List<StatusCause> causes) {
    List<String> modes = spec.getAccessModes();
    if (modes == null || modes.isEmpty()) {
      causes.add(required(path + ".accessModes", "at least 1 access mode is required"));
    }
    PodDisruptionBudgetStrategy.selector(spec.getSelector(), path + ".selector", causes);
    if (modes != null && !modes.isEmpty()) {
      PersistentVolumes.accessModes(modes, path + ".accessModes", null, causes);
    }
    Map<String, String> requests =
        spec.getResources() == null ? null : spec.getResources().getRequests();
    String storage = requests == null ? null : requests.get("storage");
    if (storage == null) {
      causes.add(required(path + ".resources[storage]"));
    } else {
      PersistentVolumes.positive(storage, path + ".resources[storage]", causes);
    }
    PersistentVolumes.className(spec.getStorageClassName(), path + ".storageClassName", causes);
    PersistentVolumes.volumeMode(spec.getVolumeMode(), path + ".volumeMode", causes);
    TypedLocalObjectReference source = spec.getDataSource();
    if (source != null) {
      dataSource(
          source.getName(), source.getKind(), source.getApiGroup(), path + ".dataSource", causes);
    }
    TypedObjectReference ref = spec.getDataSourceRef();
    if (ref != null) {
      dataSource(ref.getName(), ref.getKind(), ref.getApiGroup(), path + ".dataSourceRef", causes);
    }
    if (ref != null && ref.getNamespace() != null && !ref.getNamespace().isEmpty()) {
      if (source != null) {
        causes.add(
            invalid(
                path,
                quote(path + ".dataSource"),
                "may not be specified when dataSourceRef.namespace is specified"));
      }
    } else if (source != null
        && ref != null
        && !(Objects.equals(source.getApiGroup(), ref.getApiGroup())
            && Objects.equals(source.getKind(), ref.getKind())
            && Objects.equals(source.getName(), ref.getName()))) {
      causes.add(invalid(path, quote(path + ".dataSource"), "must match dataSourceRef"));
    }
    String attributesClass = spec.getVolumeAttributesClassName();
    PersistentVolumes.className(attributesClass, path + ".volumeAttributesClassName", causes);
  }

  private static void dataSource(
      String name, String kind, String apiGroup, String field, List<StatusCause> causes) {
    if (name == null || name.isEmpty()) {
      causes.add(required(field + ".name"));
    }
    if (kind == null || kind.isEmpty()) {
      causes.add(required(field + ".kind"));
    }
    if ((apiGroup == null || apiGroup.isEmpty()) && !"PersistentVolumeClaim".equals(kind)) {
      causes.add(
          invalid(
              field,
              quote(kind == null ? "" : kind),
              "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
    }
  }

  /** {@code ValidatePersistentVolumeClaimUpdate}. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    PersistentVolumeClaim pvc = (PersistentVolumeClaim) object;
    PersistentVolumeClaim previous = (PersistentVolumeClaim) old;
    List<StatusCause> causes = new ArrayList<>(validate(object));
    PersistentVolumeClaimSpec spec = pvc.getSpec();
    PersistentVolumeClaimSpec before = previous.getSpec();
    if (spec == null || before == null) {
      return causes;
    }
    String beta = PersistentVolumes.BETA_STORAGE_CLASS_ANNOTATION;
    String newAnnotation = annotation(pvc, beta);
    String oldAnnotation = annotation(previous, beta);
    if (!Objects.equals(newAnnotation, oldAnnotation)) {
      causes.add(
          invalid(
              "metadata.annotations[" + beta + "]",
              quote(newAnnotation == null ? "" : newAnnotation),
              "field is immutable"));
    }
    PersistentVolumeClaimSpec.Builder comparable = PersistentVolumeClaimSpec.newBuilder(spec);
    if (before.getVolumeName() == null || before.getVolumeName().isEmpty()) {
      // The volume a claim is bound to may be set once.
      comparable.setVolumeName(before.getVolumeName());
    }
    if (before.getStorageClassName() == null
        && oldAnnotation == null
        && spec.getStorageClassName() != null) {
      // A claim written before a default class existed may have its class set once.
      comparable.setStorageClassName(null);
    }
    String phase = pvc.getStatus() == null ? null : pvc.getStatus().getPhase();
    if ("Bound".equals(phase) && spec.getResources() != null) {
      Map<String, String> requests =
          spec.getResources().getRequests() == null
              ? new HashMap<>()
              : new HashMap<>(spec.getResources().getRequests());
      Map<String, String> oldRequests =
          before.getResources() == null || before.getResources().getRequests() == null
              ? Map.of()
              : before.getResources().getRequests();
      if (oldRequests.containsKey("storage")) {
        requests.put("storage", oldRequests.get("storage"));
      } else {
        requests.remove("storage");
      }
      comparable.setResources(
          VolumeResourceRequirements.newBuilder(spec.getResources()).setRequests(requests).build());
    }
    comparable.setVolumeAttributesClassName(before.getVolumeAttributesClassName());
    if (!comparable.build().equals(before)) {
      causes.add(
          forbidden(
              "spec",
              "spec is immutable after creation except resources.requests and"
                  + " volumeAttributesClassName for bound claims"));
    }
    BigDecimal newSize =
        PersistentVolumes.storage(
            spec.getResources() == null ? null : spec.getResources().getRequests());
    BigDecimal oldSize =
        PersistentVolumes.storage(
            before.getResources() == null ? null : before.getResources().getRequests());
    if (newSize != null && oldSize != null && newSize.compareTo(oldSize) < 0) {
      causes.add(
          forbidden(
              "spec.resources.requests.storage", "field can not be less than previous value"));
    }
    if (!Objects.equals(spec.getVolumeMode(), before.getVolumeMode())) {
      causes.add(
          invalid(
              "volumeMode",
              spec.getVolumeMode() == null ? "null" : quote(spec.getVolumeMode()),
              "field is immutable"));
    }
    if (before.getVolumeAttributesClassName() != null) {
      if (spec.getVolumeAttributesClassName() == null) {
        causes.add(
            forbidden(
                "spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"));
      } else if (spec.getVolumeAttributesClassName().isEmpty()) {
        causes.add(
            forbidden(
                "spec.volumeAttributesClassName",
                "update from non-nil value to an empty string is forbidden"));
      }
    }
    return causes;
  }

  private static String annotation(PersistentVolumeClaim pvc, String key) {
    Map<String, String> annotations =
        pvc.getMetadata() == null ? null : pvc.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(key);
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Status",
                  "string",
                  "phase represents the current phase of PersistentVolumeClaim."),
              col(
                  "Volume",
                  "string",
                  "volumeName is the binding reference to the PersistentVolume backing this"
                      + " claim."),
              col(
                  "Capacity",
                  "string",
                  "capacity represents the actual resources of the underlying volume."),
              col(
                  "Access Modes",
                  "string",
                  "accessModes contains the actual access modes the volume backing the PVC has."
                      + " More info:"
                      + " https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
              col("StorageClass", "string", "StorageClass of the pvc"),
              col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
              age(),
              wide(
                  "VolumeMode",
                  "volumeMode defines what type of volume is required by the claim. Value of"
                      + " Filesystem is implied when not included in claim spec.")),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            JsonNode status = o.path("status");
            String phase = status.path("phase").asText("");
            if (o.path("metadata").hasNonNull("deletionTimestamp")) {
              phase = "Terminating";
            }
            String volume = spec.path("volumeName").asText("");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(phase);
            cells.add(volume);
            cells.add(volume.isEmpty() ? "" : status.path("capacity").path("storage").asText("0"));
            cells.add(
                volume.isEmpty()
                    ? ""
                    : PersistentVolumes.accessModesAsString(status.path("accessModes")));
            cells.add(PersistentVolumes.storageClass(o));
            cells.add(spec.path("volumeAttributesClassName").asText("<unset>"));
            cells.add(age(o, now));
            cells.add(spec.path("volumeMode").asText("<unset>"));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
