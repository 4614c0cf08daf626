package io.streamplane.kinds.networking;

import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.IPAddress;
import io.streamplane.api.ParentReference;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Cells;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * networking.k8s.io/v1beta1 IPAddress, stored and validated as kube-apiserver 1.32 does: named by
 * its address in canonical form ({@code ValidateIPAddressName}, {@code netip.ParseAddr}: a loopback
 * address is as good as any), with a {@code spec.parentRef} whose resource and name are required
 * path segments, whose group is a DNS subdomain, and which never changes ({@code
 * ValidateIPAddressUpdate}); printed with kubectl's columns (NAME, PARENTREF as {@code
 * services/default/kubernetes}).
 *
 * <p>The gateway's service allocator claims every cluster IP as one of these before it writes the
 * Service.
 */
public final class IPAddressStrategy implements KindStrategy {

  @Override
  public Names.Rule nameRule() {
    return Names.Rule.IP_ADDRESS;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    IPAddress address = (IPAddress) object;
    ParentReference ref = address.getSpec() == null ? null : address.getSpec().getParentRef();
    List<StatusCause> causes = new ArrayList<>();
    if (ref == null) {
      causes.add(required("spec.parentRef"));
      return causes;
    }
    String group = text(ref.getGroup());
    if (!group.isEmpty()) {
      causes.addAll(Names.subdomain("spec.parentRef.group", group));
    }
    String resource = text(ref.getResource());
    if (resource.isEmpty()) {
      causes.add(required("spec.parentRef.resource"));
    } else {
      causes.addAll(Names.pathSegmentName("spec.parentRef.resource", resource));
    }
    String name = text(ref.getName());
    if (name.isEmpty()) {
      causes.add(required("spec.parentRef.name"));
    } else {
      causes.addAll(Names.pathSegmentName("spec.parentRef.name", name));
    }
    String namespace = text(ref.getNamespace());
    if (!namespace.isEmpty()) {
      causes.addAll(Names.pathSegmentName("spec.parentRef.namespace", namespace));
    }
    return causes;
  }

  /** What a create must satisfy, and the parent reference stays as created. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    ParentReference ref = parentRef((IPAddress) object);
    if (!Objects.equals(ref, parentRef((IPAddress) old))) {
      causes.add(invalid("spec.parentRef", goValue(ref), "field is immutable"));
    }
    return causes;
  }

  private static ParentReference parentRef(IPAddress address) {
    ParentReference ref = address.getSpec() == null ? null : address.getSpec().getParentRef();
    if (ref == null) {
      return null;
    }
    // Go compares the structs: a field left out and an empty one are the same empty string.
    return ParentReference.newBuilder()
        .setGroup(text(ref.getGroup()))
        .setResource(text(ref.getResource()))
        .setNamespace(text(ref.getNamespace()))
        .setName(text(ref.getName()))
        .build();
  }

  /** The reference as Go's {@code %#v} prints it in a {@code field.Invalid}. */
  private static String goValue(ParentReference ref) {
    if (ref == null) {
      return "null";
    }
    return "networking.ParentReference{Group:"
        + goString(ref.getGroup())
        + ", Resource:"
        + goString(ref.getResource())
        + ", Namespace:"
        + goString(ref.getNamespace())
        + ", Name:"
        + goString(ref.getName())
        + "}";
  }

  static String goString(String s) {
    return "\"" + text(s).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }

  /**
   * printIPAddress: kube-apiserver defines two columns (Name, ParentRef) and prints a third cell,
   * the age, which kubectl does not show; the rows here are the same.
   */
  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "ParentRef",
                  "string",
                  "ParentRef references the resource that an IPAddress is attached to. An"
                      + " IPAddress must reference a parent object.")),
          (o, now) ->
              List.of(name(o), parentRef(o.path("spec").path("parentRef")), Cells.age(o, now)));

  /** {@code <group resource>/<namespace>/<name>}, lower case; {@code <none>} without one. */
  static String parentRef(JsonNode ref) {
    if (!ref.isObject()) {
      return "<none>";
    }
    String group = ref.path("group").asText("");
    String resource = ref.path("resource").asText("");
    String text = (group.isEmpty() ? resource : resource + "." + group).toLowerCase(Locale.ROOT);
    String namespace = ref.path("namespace").asText("");
    if (!namespace.isEmpty()) {
      text += "/" + namespace;
    }
    return text + "/" + ref.path("name").asText("");
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
