package io.streamplane.kinds.storage;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.bool;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.CSIDriver;
import io.streamplane.api.CSIDriverSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * storage.k8s.io/v1 CSIDriver: {@code SetDefaults_CSIDriver} (attach required, Persistent volumes,
 * fsGroupPolicy ReadWriteOnceWithFSType, the rest false); supported lifecycle modes and fsGroup
 * policies; attachRequired, podInfoOnMount, volumeLifecycleModes and fsGroupPolicy immutable, as in
 * Kubernetes 1.32; printed with kubectl's CSI driver columns.
 */
public final class CSIDriverStrategy implements KindStrategy {

  private static final List<String> LIFECYCLE_MODES = List.of("Persistent", "Ephemeral");
  private static final List<String> FS_GROUP_POLICIES =
      List.of("File", "None", "ReadWriteOnceWithFSType");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    putBoolIfAbsent(spec, "attachRequired", true);
    putBoolIfAbsent(spec, "podInfoOnMount", false);
    putBoolIfAbsent(spec, "storageCapacity", false);
    putIfAbsent(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    if (spec.path("volumeLifecycleModes").isEmpty()) {
      spec.putArray("volumeLifecycleModes").add("Persistent");
    }
    putBoolIfAbsent(spec, "requiresRepublish", false);
    putBoolIfAbsent(spec, "seLinuxMount", false);
  }

  private static void putBoolIfAbsent(ObjectNode node, String field, boolean value) {
    if (!node.hasNonNull(field)) {
      node.put(field, value);
    }
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    CSIDriverSpec spec = ((CSIDriver) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null) {
      causes.add(required("spec.attachRequired"));
      return causes;
    }
    if (spec.getAttachRequired() == null) {
      causes.add(required("spec.attachRequired"));
    }
    if (spec.getPodInfoOnMount() == null) {
      causes.add(required("spec.podInfoOnMount"));
    }
    if (spec.getStorageCapacity() == null) {
      causes.add(required("spec.storageCapacity"));
    }
    if (spec.getRequiresRepublish() == null) {
      causes.add(required("spec.requiresRepublish"));
    }
    String fsGroupPolicy = spec.getFsGroupPolicy();
    if (fsGroupPolicy != null && !FS_GROUP_POLICIES.contains(fsGroupPolicy)) {
      causes.add(notSupported("spec.fsGroupPolicy", fsGroupPolicy, FS_GROUP_POLICIES));
    }
    List<String> modes =
        spec.getVolumeLifecycleModes() == null ? List.of() : spec.getVolumeLifecycleModes();
    for (int i = 0; i < modes.size(); i++) {
      if (!LIFECYCLE_MODES.contains(modes.get(i))) {
        causes.add(
            notSupported("spec.volumeLifecycleModes[" + i + "]", modes.get(i), LIFECYCLE_MODES));
      }
    }
    return causes;
  }

  /** {@code ValidateCSIDriverUpdate}: the fields a running driver depends on never change. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    CSIDriverSpec spec = ((CSIDriver) object).getSpec();
    CSIDriverSpec previous = ((CSIDriver) old).getSpec();
    if (spec == null || previous == null) {
      return causes;
    }
    immutable(
        "spec.attachRequired", spec.getAttachRequired(), previous.getAttachRequired(), causes);
    immutable(
        "spec.podInfoOnMount", spec.getPodInfoOnMount(), previous.getPodInfoOnMount(), causes);
    immutable(
        "spec.volumeLifecycleModes",
        spec.getVolumeLifecycleModes(),
        previous.getVolumeLifecycleModes(),
        causes);
    immutable("spec.fsGroupPolicy", spec.getFsGroupPolicy(), previous.getFsGroupPolicy(), causes);
    return causes;
  }

  private static void immutable(String field, Object value, Object old, List<StatusCause> causes) {
    if (!Objects.equals(value, old)) {
      String printed = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
      causes.add(
          new StatusCause(
              "FieldValueInvalid", "Invalid value: " + printed + ": field is immutable", field));
    }
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "AttachRequired",
                  "boolean",
                  "attachRequired indicates this CSI volume driver requires an attach operation"
                      + " (because it implements the CSI ControllerPublishVolume() method), and"
                      + " that the Kubernetes attach detach controller should call the attach"
                      + " volume interface which checks the volumeattachment status and waits"
                      + " until the volume is attached before proceeding to mounting."),
              col(
                  "PodInfoOnMount",
                  "boolean",
                  "podInfoOnMount indicates this CSI volume driver requires additional pod"
                      + " information (like podName, podUID, etc.) during mount operations."),
              col(
                  "StorageCapacity",
                  "boolean",
                  "storageCapacity indicates that the CSI volume driver wants pod scheduling to"
                      + " consider the storage capacity that the driver deployment will report by"
                      + " creating CSIStorageCapacity objects with capacity information, if set to"
                      + " true."),
              col(
                  "TokenRequests",
                  "string",
                  "tokenRequests indicates the CSI driver needs pods' service account tokens it"
                      + " is mounting volume for to do necessary authentication."),
              col(
                  "RequiresRepublish",
                  "boolean",
                  "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being"
                      + " periodically called to reflect any possible change in the mounted"
                      + " volume."),
              col(
                  "Modes",
                  "string",
                  "volumeLifecycleModes defines what kind of volumes this CSI volume driver"
                      + " supports."),
              age()),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            List<String> modes = new ArrayList<>();
            spec.path("volumeLifecycleModes").forEach(m -> modes.add(m.asText()));
            String tokenRequests = "<unset>";
            if (spec.path("tokenRequests").isArray()) {
              List<String> audiences = new ArrayList<>();
              spec.path("tokenRequests").forEach(t -> audiences.add(t.path("audience").asText()));
              tokenRequests = String.join(",", audiences);
            }
            return List.of(
                name(o),
                bool(spec.path("attachRequired"), true),
                bool(spec.path("podInfoOnMount"), false),
                bool(spec.path("storageCapacity"), false),
                tokenRequests,
                bool(spec.path("requiresRepublish"), false),
                modes.isEmpty() ? "<none>" : String.join(",", modes),
                age(o, now));
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
