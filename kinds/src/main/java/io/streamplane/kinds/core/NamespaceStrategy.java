package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Namespace;
import io.streamplane.api.NamespaceStatus;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.kinds.validation.Names;
import io.streamplane.schema.objects.KubeObjects;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 Namespace: named as a DNS label; {@code SetDefaults_Namespace} (its name as the {@code
 * kubernetes.io/metadata.name} label) and, on create, the {@code kubernetes} finalizer and the
 * Active phase; deleted only once its spec finalizers are gone, Terminating meanwhile; selectable
 * by {@code status.phase}.
 */
public final class NamespaceStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    if (object.path("metadata").path("name").isTextual()) {
      object
          .with("metadata")
          .with("labels")
          .put("kubernetes.io/metadata.name", object.path("metadata").path("name").asText());
    }
    if (create) {
      ObjectNode spec = object.with("spec");
      if (!spec.has("finalizers")) {
        spec.putArray("finalizers").add("kubernetes");
      }
      object.with("status").put("phase", "Active");
    }
  }

  @Override
  public List<String> specFinalizers(SpecificRecord object) {
    Namespace namespace = (Namespace) object;
    return namespace.getSpec() == null || namespace.getSpec().getFinalizers() == null
        ? List.of()
        : namespace.getSpec().getFinalizers();
  }

  /** The namespace controller empties a Terminating namespace, then removes its spec finalizer. */
  @Override
  public SpecificRecord deleting(SpecificRecord object) {
    Namespace namespace = KubeObjects.copy((Namespace) object);
    namespace.setStatus(NamespaceStatus.newBuilder().setPhase("Terminating").build());
    return namespace;
  }

  @Override
  public Names.Rule nameRule() {
    return Names.Rule.DNS1123_LABEL;
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.clusterObjectMeta();
    fields.put("status.phase", Fields.path("status.phase"));
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(name(), col("Status", "string", "The status of the namespace"), age()),
          (o, now) -> List.of(name(o), o.path("status").path("phase").asText(""), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
