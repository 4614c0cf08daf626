package io.streamplane.kinds.core;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.CSIPersistentVolumeSource;
import io.streamplane.api.HostPathVolumeSource;
import io.streamplane.api.LocalVolumeSource;
import io.streamplane.api.NodeSelector;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeSpec;
import io.streamplane.api.SecretReference;
import io.streamplane.api.VolumeNodeAffinity;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 PersistentVolume, cluster-scoped, as kube-apiserver's {@code persistentvolume} strategy:
 * reclaim policy Retain and volume mode Filesystem by default; created Pending with its phase's
 * transition time; {@code ValidatePersistentVolumeSpec} (access modes required and supported,
 * ReadWriteOncePod alone, a capacity of storage only and positive, exactly one volume source, a
 * local volume only with node affinity, the csi source's driver and volume handle and its secret
 * references, the class a DNS subdomain, volume mode and reclaim policy supported); on update the
 * volume source, volume mode and a set node affinity immutable; kubectl's columns.
 *
 * <p>Limits: of the in-tree sources only csi, local, hostPath and nfs have their own fields checked
 * (the others only count as a source); the immutable source's error does not carry Go's diff; the
 * phase's transition time is set by whoever writes the phase (the controller), not by the status
 * strategy.
 */
public final class PersistentVolumeStrategy implements KindStrategy {

  private static final List<String> RECLAIM_POLICIES = List.of("Delete", "Recycle", "Retain");

  /** The spec's fields that are not a volume source. */
  private static final Set<String> NOT_SOURCES =
      Set.of(
          "capacity",
          "accessModes",
          "claimRef",
          "persistentVolumeReclaimPolicy",
          "storageClassName",
          "mountOptions",
          "volumeMode",
          "nodeAffinity",
          "volumeAttributesClassName");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    JsonNode spec = object.path("spec");
    if (spec instanceof ObjectNode s) {
      putIfAbsent(s, "persistentVolumeReclaimPolicy", "Retain");
      putIfAbsent(s, "volumeMode", "Filesystem");
    }
    if (object.path("status") instanceof ObjectNode status) {
      putIfAbsent(status, "phase", "Pending");
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object) {
    object
        .putObject("status")
        .put("phase", "Pending")
        .put("lastPhaseTransitionTime", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    PersistentVolume pv = (PersistentVolume) object;
    List<StatusCause> causes = new ArrayList<>();
    PersistentVolumeSpec spec = pv.getSpec();
    if (spec == null) {
      spec = PersistentVolumeSpec.newBuilder().build();
    }
    spec(spec, causes);
    return causes;
  }

  private static void spec(PersistentVolumeSpec spec, List<StatusCause> causes) {
    PersistentVolumes.accessModes(spec.getAccessModes(), "spec.accessModes", null, causes);
    Map<String, String> capacity = spec.getCapacity();
    if (capacity == null || capacity.isEmpty()) {
      causes.add(required("spec.capacity"));
    }
    if (capacity == null || !capacity.containsKey("storage") || capacity.size() > 1) {
      causes.add(
          new StatusCause(
              "FieldValueNotSupported",
              "Unsupported value: "
                  + (capacity == null ? "map[]" : new TreeSet<>(capacity.keySet()).toString())
                  + ": supported values: \"storage\"",
              "spec.capacity"));
    }
    if (capacity != null) {
      new java.util.TreeMap<>(capacity)
          .forEach((r, q) -> PersistentVolumes.positive(q, "spec.capacity[" + r + "]", causes));
    }
    String policy = spec.getPersistentVolumeReclaimPolicy();
    if (policy != null && !policy.isEmpty() && !RECLAIM_POLICIES.contains(policy)) {
      causes.add(notSupported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES));
    }
    boolean nodeAffinity = false;
    if (spec.getNodeAffinity() != null) {
      nodeAffinity = true;
      nodeAffinity(spec.getNodeAffinity(), "spec.nodeAffinity", causes);
    }
    int sources = 0;
    for (Schema.Field f : PersistentVolumeSpec.getClassSchema().getFields()) {
      if (NOT_SOURCES.contains(f.name()) || spec.get(f.pos()) == null) {
        continue;
      }
      String field = "spec." + f.name();
      if (sources > 0) {
        causes.add(forbidden(field, "may not specify more than 1 volume type"));
        continue;
      }
      sources++;
      switch (f.name()) {
        case "csi" -> csi(spec.getCsi(), field, causes);
        case "local" -> {
          local(spec.getLocal(), field, causes);
          if (!nodeAffinity) {
            causes.add(required("spec.nodeAffinity", "Local volume requires node affinity"));
          }
        }
        case "hostPath" -> hostPath(spec.getHostPath(), field, causes);
        case "nfs" -> {
          if (spec.getNfs().getServer() == null || spec.getNfs().getServer().isEmpty()) {
            causes.add(required(field + ".server"));
          }
          String path = spec.getNfs().getPath();
          if (path == null || path.isEmpty()) {
            causes.add(required(field + ".path"));
          } else if (!path.startsWith("/")) {
            causes.add(invalid(field + ".path", quote(path), "must be an absolute path"));
          }
        }
        default -> {}
      }
    }
    if (sources == 0) {
      causes.add(required("spec", "must specify a volume type"));
    }
    if (spec.getHostPath() != null
        && "/".equals(normalize(spec.getHostPath().getPath()))
        && "Recycle".equals(policy)) {
      causes.add(
          forbidden(
              "spec.persistentVolumeReclaimPolicy",
              "may not be 'recycle' for a hostPath mount of '/'"));
    }
    PersistentVolumes.className(spec.getStorageClassName(), "spec.storageClassName", causes);
    PersistentVolumes.volumeMode(spec.getVolumeMode(), "spec.volumeMode", causes);
    String attributesClass = spec.getVolumeAttributesClassName();
    if (attributesClass != null) {
      if (attributesClass.isEmpty()) {
        causes.add(required("spec.volumeAttributesClassName", "an empty string is disallowed"));
      } else {
        PersistentVolumes.className(attributesClass, "spec.volumeAttributesClassName", causes);
      }
      if (spec.getCsi() == null) {
        causes.add(
            required("spec.csi", "has to be specified when using volumeAttributesClassName"));
      }
    }
  }

  private static String normalize(String path) {
    return path == null ? "" : java.nio.file.Path.of(path).normalize().toString();
  }

  /** {@code validateVolumeNodeAffinity} and {@code ValidateNodeSelector}'s term count. */
  private static void nodeAffinity(VolumeNodeAffinity affinity, String field, List<StatusCause> c) {
    NodeSelector required = affinity.getRequired();
    if (required == null) {
      c.add(required(field + ".required", "must specify required node constraints"));
      return;
    }
    if (required.getNodeSelectorTerms() == null || required.getNodeSelectorTerms().isEmpty()) {
      c.add(
          required(
              field + ".required.nodeSelectorTerms", "must have at least one node selector term"));
    }
  }

  /** {@code validateCSIPersistentVolumeSource}. */
  private static void csi(CSIPersistentVolumeSource csi, String field, List<StatusCause> c) {
    String driver = csi.getDriver();
    if (driver == null || driver.isEmpty()) {
      c.add(required(field + ".driver"));
    } else {
      if (driver.length() > 63) {
        c.add(
            new StatusCause(
                "FieldValueTooLong", "Too long: may not be more than 63 bytes", field + ".driver"));
      }
      Names.subdomain(field + ".driver", driver.toLowerCase(java.util.Locale.ROOT)).stream()
          .map(
              x ->
                  new StatusCause(
                      x.getReason(),
                      x.getMessage().replace(quote(driver.toLowerCase()), quote(driver)),
                      x.getField()))
          .forEach(c::add);
    }
    if (csi.getVolumeHandle() == null || csi.getVolumeHandle().isEmpty()) {
      c.add(required(field + ".volumeHandle"));
    }
    secret(csi.getControllerPublishSecretRef(), field + ".controllerPublishSecretRef", c);
    secret(csi.getNodeStageSecretRef(), field + ".nodeStageSecretRef", c);
    secret(csi.getNodePublishSecretRef(), field + ".nodePublishSecretRef", c);
    secret(csi.getControllerExpandSecretRef(), field + ".controllerExpandSecretRef", c);
    secret(csi.getNodeExpandSecretRef(), field + ".nodeExpandSecretRef", c);
  }

  private static void secret(SecretReference ref, String field, List<StatusCause> c) {
    if (ref == null) {
      return;
    }
    if (ref.getName() == null || ref.getName().isEmpty()) {
      c.add(required(field + ".name"));
    } else {
      c.addAll(Names.subdomain(field + ".name", ref.getName()));
    }
    if (ref.getNamespace() == null || ref.getNamespace().isEmpty()) {
      c.add(required(field + ".namespace"));
    } else {
      StatusCause label = Names.label(field + ".namespace", ref.getNamespace());
      if (label != null) {
        c.add(label);
      }
    }
  }

  /** {@code validateLocalVolumeSource}: a path, without backsteps. */
  private static void local(LocalVolumeSource local, String field, List<StatusCause> c) {
    noBacksteps(local.getPath(), field + ".path", c);
  }

  private static void hostPath(HostPathVolumeSource hostPath, String field, List<StatusCause> c) {
    noBacksteps(hostPath.getPath(), field + ".path", c);
  }

  private static void noBacksteps(String path, String field, List<StatusCause> c) {
    if (path == null || path.isEmpty()) {
      c.add(required(field));
      return;
    }
    for (String part : path.split("/")) {
      if (part.equals("..")) {
        c.add(invalid(field, quote(path), "must not contain '..'"));
        return;
      }
    }
  }

  /** {@code ValidatePersistentVolumeUpdate}. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    PersistentVolumeSpec spec = ((PersistentVolume) object).getSpec();
    PersistentVolumeSpec previous = ((PersistentVolume) old).getSpec();
    if (spec == null || previous == null) {
      return causes;
    }
    for (Schema.Field f : PersistentVolumeSpec.getClassSchema().getFields()) {
      if (NOT_SOURCES.contains(f.name())) {
        continue;
      }
      Object now = spec.get(f.pos());
      Object before = previous.get(f.pos());
      // A csi source may gain the controllerExpandSecretRef it did not have.
      if (f.name().equals("csi")
          && now != null
          && before != null
          && previous.getCsi().getControllerExpandSecretRef() == null) {
        now =
            CSIPersistentVolumeSource.newBuilder(spec.getCsi())
                .setControllerExpandSecretRef(null)
                .build();
      }
      if (!Objects.equals(now, before)) {
        causes.add(
            forbidden(
                "spec.persistentvolumesource",
                "spec.persistentvolumesource is immutable after creation"));
        break;
      }
    }
    if (!Objects.equals(spec.getVolumeMode(), previous.getVolumeMode())) {
      causes.add(
          invalid(
              "volumeMode",
              spec.getVolumeMode() == null ? "null" : quote(spec.getVolumeMode()),
              "field is immutable"));
    }
    if (previous.getNodeAffinity() != null
        && !Objects.equals(spec.getNodeAffinity(), previous.getNodeAffinity())) {
      causes.add(invalid("nodeAffinity", "<object>", "field is immutable"));
    }
    if (previous.getVolumeAttributesClassName() != null
        && spec.getVolumeAttributesClassName() == null) {
      causes.add(
          forbidden(
              "spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Capacity",
                  "string",
                  "capacity is the description of the persistent volume's resources and capacity."
                      + " More info:"
                      + " https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
              col(
                  "Access Modes",
                  "string",
                  "accessModes contains all ways the volume can be mounted. More info:"
                      + " https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
              col(
                  "Reclaim Policy",
                  "string",
                  "persistentVolumeReclaimPolicy defines what happens to a persistent volume when"
                      + " released from its claim. Valid options are Retain (default for manually"
                      + " created PersistentVolumes), Delete (default for dynamically provisioned"
                      + " PersistentVolumes), and Recycle (deprecated). Recycle must be supported"
                      + " by the volume plugin underlying this PersistentVolume. More info:"
                      + " https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
              col(
                  "Status",
                  "string",
                  "phase indicates if a volume is available, bound to a claim, or released by a"
                      + " claim. More info:"
                      + " https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
              col(
                  "Claim",
                  "string",
                  "claimRef is part of a bi-directional binding between PersistentVolume and"
                      + " PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName"
                      + " is the authoritative bind between PV and PVC. More info:"
                      + " https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
              col("StorageClass", "string", "StorageClass of the pv"),
              col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
              col(
                  "Reason",
                  "string",
                  "reason is a brief CamelCase string that describes any failure and is meant for"
                      + " machine parsing and tidy display in the CLI."),
              age(),
              wide(
                  "VolumeMode",
                  "volumeMode defines if a volume is intended to be used with a formatted"
                      + " filesystem or to remain in raw block state. Value of Filesystem is"
                      + " implied when not included in spec.")),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            JsonNode claim = spec.path("claimRef");
            String phase = o.path("status").path("phase").asText("");
            if (o.path("metadata").hasNonNull("deletionTimestamp")) {
              phase = "Terminating";
            }
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(spec.path("capacity").path("storage").asText("0"));
            cells.add(PersistentVolumes.accessModesAsString(spec.path("accessModes")));
            cells.add(spec.path("persistentVolumeReclaimPolicy").asText(""));
            cells.add(phase);
            cells.add(
                claim.isObject()
                    ? claim.path("namespace").asText("") + "/" + claim.path("name").asText("")
                    : "");
            cells.add(PersistentVolumes.storageClass(o));
            cells.add(spec.path("volumeAttributesClassName").asText("<unset>"));
            cells.add(o.path("status").path("reason").asText(""));
            cells.add(age(o, now));
            cells.add(spec.path("volumeMode").asText("<unset>"));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
