package io.streamplane.kinds.storage;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.VolumeAttachment;
import io.streamplane.api.VolumeAttachmentSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Column;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * storage.k8s.io/v1 VolumeAttachment: an attacher, a node and exactly one source required; the spec
 * never changes; printed with attacher, persistent volume, node and whether it is attached.
 */
public final class VolumeAttachmentStrategy implements KindStrategy {

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    VolumeAttachmentSpec spec = ((VolumeAttachment) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null || spec.getAttacher() == null || spec.getAttacher().isEmpty()) {
      causes.add(required("spec.attacher"));
    }
    if (spec == null || spec.getNodeName() == null || spec.getNodeName().isEmpty()) {
      causes.add(required("spec.nodeName"));
    }
    var source = spec == null ? null : spec.getSource();
    int sources = 0;
    if (source != null && source.getPersistentVolumeName() != null) {
      sources++;
    }
    if (source != null && source.getInlineVolumeSpec() != null) {
      sources++;
    }
    if (sources == 0) {
      causes.add(
          required(
              "spec.source",
              "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
    } else if (sources > 1) {
      causes.add(
          forbidden(
              "spec.source",
              "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
    }
    return causes;
  }

  /** {@code ValidateVolumeAttachmentUpdate}: the spec is immutable. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    if (!Objects.equals(
        ((VolumeAttachment) object).getSpec(), ((VolumeAttachment) old).getSpec())) {
      causes.add(
          new StatusCause("FieldValueInvalid", "Invalid value: \"\": field is immutable", "spec"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              new Column(
                  "Attacher",
                  "string",
                  "name",
                  "attacher indicates the name of the volume driver that MUST handle this request."
                      + " This is the name returned by GetPluginName().",
                  0),
              col(
                  "PV",
                  "string",
                  "persistentVolumeName represents the name of the persistent volume to attach."),
              col(
                  "Node",
                  "string",
                  "nodeName represents the node that the volume should be attached to."),
              col(
                  "Attached",
                  "boolean",
                  "attached indicates the volume is successfully attached. This field must only be"
                      + " set by the entity completing the attach operation, i.e. the"
                      + " external-attacher."),
              age()),
          (o, now) ->
              List.of(
                  name(o),
                  o.path("spec").path("attacher").asText(""),
                  o.path("spec").path("source").path("persistentVolumeName").asText(""),
                  o.path("spec").path("nodeName").asText(""),
                  o.path("status").path("attached").asBoolean(false),
                  age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
