package io.streamplane.kinds.networking;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.IngressClass;
import io.streamplane.api.IngressClassParametersReference;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * networking.k8s.io/v1 IngressClass: parameters scoped to the Cluster by default; a controller of
 * at most 250 characters that never changes; parameters naming a kind and a name, with a namespace
 * exactly when Namespace-scoped; printed with its controller and parameters.
 */
public final class IngressClassStrategy implements KindStrategy {

  static final int MAX_CONTROLLER_LENGTH = 250;
  private static final List<String> SCOPES = List.of("Cluster", "Namespace");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    JsonNode parameters = object.path("spec").path("parameters");
    if (parameters instanceof ObjectNode reference && !reference.hasNonNull("scope")) {
      reference.put("scope", "Cluster");
    }
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((IngressClass) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    String controller = spec == null ? null : spec.getController();
    if (controller == null || controller.isEmpty()) {
      causes.add(required("spec.controller"));
    } else if (controller.length() > MAX_CONTROLLER_LENGTH) {
      causes.add(
          new StatusCause(
              "FieldValueTooLong",
              "Too long: may not be more than " + MAX_CONTROLLER_LENGTH + " bytes",
              "spec.controller"));
    }
    if (spec != null && spec.getParameters() != null) {
      parameters(spec.getParameters(), causes);
    }
    return causes;
  }

  private static void parameters(IngressClassParametersReference p, List<StatusCause> causes) {
    String path = "spec.parameters";
    if (p.getKind() == null || p.getKind().isEmpty()) {
      causes.add(required(path + ".kind", "kind is required"));
    }
    if (p.getName() == null || p.getName().isEmpty()) {
      causes.add(required(path + ".name", "name is required"));
    }
    String scope = p.getScope();
    if (scope == null) {
      causes.add(required(path + ".scope", ""));
    } else if (!SCOPES.contains(scope)) {
      causes.add(notSupported(path + ".scope", scope, SCOPES));
    } else if (scope.equals("Namespace")
        && (p.getNamespace() == null || p.getNamespace().isEmpty())) {
      causes.add(required(path + ".namespace", "`parameters.scope` is set to 'Namespace'"));
    } else if (scope.equals("Cluster") && p.getNamespace() != null) {
      causes.add(
          new StatusCause(
              "FieldValueForbidden",
              "Forbidden: `parameters.scope` is set to 'Cluster'",
              path + ".namespace"));
    }
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    String controller = controller((IngressClass) object);
    if (!Objects.equals(controller, controller((IngressClass) old))) {
      causes.add(
          invalid(
              "spec.controller",
              controller == null ? "\"\"" : quote(controller),
              "field is immutable"));
    }
    return causes;
  }

  private static String controller(IngressClass ingressClass) {
    return ingressClass.getSpec() == null ? null : ingressClass.getSpec().getController();
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Controller", "string", "Controller that is responsible for handling this class"),
              col("Parameters", "string", "A reference to a resource with additional parameters"),
              age()),
          (o, now) ->
              List.of(
                  name(o),
                  o.path("spec").path("controller").asText(""),
                  parameters(o.path("spec").path("parameters")),
                  age(o, now)));

  private static String parameters(JsonNode p) {
    if (!p.isObject()) {
      return "<none>";
    }
    String text = p.path("kind").asText("");
    if (p.hasNonNull("apiGroup")) {
      text += "." + p.path("apiGroup").asText();
    }
    return text + "/" + p.path("name").asText("");
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
