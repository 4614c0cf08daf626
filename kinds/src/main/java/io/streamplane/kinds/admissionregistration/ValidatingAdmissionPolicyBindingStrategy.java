package io.streamplane.kinds.admissionregistration;

import static io.streamplane.kinds.admissionregistration.AdmissionRules.orEmpty;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ParamRef;
import io.streamplane.api.ValidatingAdmissionPolicyBinding;
import io.streamplane.api.ValidatingAdmissionPolicyBindingSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.policy.PodDisruptionBudgetStrategy;
import io.streamplane.kinds.printers.Cells;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding, as kube-apiserver's registry
 * keeps it: its {@code matchResources} defaulted as a policy's constraints are, validated as {@code
 * ValidateValidatingAdmissionPolicyBinding} (a policyName, a paramRef with a name or a selector and
 * its parameterNotFoundAction, validationActions among Deny, Warn and Audit, not Deny with Warn);
 * generation raised by spec changes; kube-apiserver's columns (Name, PolicyName, ParamRef, Age).
 *
 * <p>Limits: a paramRef by selector prints as a label selector ({@code env=prod}), where
 * kube-apiserver prints the Go struct.
 */
public final class ValidatingAdmissionPolicyBindingStrategy implements KindStrategy {

  static final List<String> ACTIONS = List.of("Audit", "Deny", "Warn");
  static final List<String> PARAMETER_NOT_FOUND_ACTIONS = List.of("Deny", "Allow");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    AdmissionRules.defaultMatchResources(object.path("spec").path("matchResources"));
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    ValidatingAdmissionPolicyBinding binding = (ValidatingAdmissionPolicyBinding) object;
    ValidatingAdmissionPolicyBindingSpec spec = binding.getSpec();
    if (spec == null) {
      spec = ValidatingAdmissionPolicyBindingSpec.newBuilder().build();
    }
    List<StatusCause> causes = new ArrayList<>();
    String policyName = spec.getPolicyName() == null ? "" : spec.getPolicyName();
    if (policyName.isEmpty()) {
      causes.add(required("spec.policyName"));
    } else {
      causes.addAll(Names.subdomain("spec.policyName", policyName));
    }
    paramRef(spec.getParamRef(), causes);
    // kube-apiserver's own spelling of the field path.
    AdmissionRules.validateMatchResources(spec.getMatchResources(), "spec.matchResouces", causes);
    validationActions(orEmpty(spec.getValidationActions()), causes);
    return causes;
  }

  private static void paramRef(ParamRef ref, List<StatusCause> causes) {
    if (ref == null) {
      return;
    }
    String name = ref.getName() == null ? "" : ref.getName();
    if (!name.isEmpty()) {
      causes.addAll(Names.pathSegmentName("spec.paramRef.name", name));
      if (ref.getSelector() != null) {
        causes.add(forbidden("spec.paramRef.name", "name and selector are mutually exclusive"));
      }
    }
    if (ref.getSelector() != null) {
      PodDisruptionBudgetStrategy.selector(ref.getSelector(), "spec.paramRef.selector", causes);
      if (!name.isEmpty()) {
        causes.add(forbidden("spec.paramRef.selector", "name and selector are mutually exclusive"));
      }
    }
    if (name.isEmpty() && ref.getSelector() == null) {
      causes.add(required("spec.paramRef", "one of name or selector must be specified"));
    }
    String action = ref.getParameterNotFoundAction();
    if (action == null || action.isEmpty()) {
      causes.add(required("spec.paramRef.parameterNotFoundAction"));
    } else if (!PARAMETER_NOT_FOUND_ACTIONS.contains(action)) {
      causes.add(
          notSupported(
              "spec.paramRef.parameterNotFoundAction", action, PARAMETER_NOT_FOUND_ACTIONS));
    }
  }

  private static void validationActions(List<String> actions, List<StatusCause> causes) {
    Set<String> seen = new LinkedHashSet<>();
    for (int i = 0; i < actions.size(); i++) {
      String action = actions.get(i);
      if (!ACTIONS.contains(action)) {
        causes.add(notSupported("spec.validationActions[" + i + "]", action, ACTIONS));
      }
      if (!seen.add(action)) {
        causes.add(duplicate("spec.validationActions[" + i + "]", action));
      }
    }
    if (seen.contains("Deny") && seen.contains("Warn")) {
      StringBuilder value = new StringBuilder("[]admissionregistration.ValidationAction{");
      for (int i = 0; i < actions.size(); i++) {
        value.append(i == 0 ? "" : ", ").append(quote(actions.get(i)));
      }
      causes.add(
          invalid(
              "spec.validationActions",
              value.append('}').toString(),
              "must not contain both Deny and Warn (repeating the same validation failure"
                  + " information in the API response and headers serves no purpose)"));
    }
    if (seen.isEmpty()) {
      causes.add(required("spec.validationActions", "at least one validation action is required"));
    }
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "PolicyName",
                  "string",
                  "PolicyName indicates the policy definition which the policy binding binded to"),
              col(
                  "ParamRef",
                  "string",
                  "ParamRef indicates the param resource which sets the configration param"),
              age()),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            JsonNode ref = spec.path("paramRef");
            String param = "<unset>";
            if (ref.isObject()) {
              String name = ref.path("name").asText("");
              String namespace = ref.path("namespace").asText("");
              if (!name.isEmpty()) {
                // Whether the param's kind is namespaced is not known here: kubectl shows */name.
                param = (namespace.isEmpty() ? "*" : namespace) + "/" + name;
              } else if (ref.path("selector").isObject()) {
                param = Cells.selector(ref.path("selector"));
              }
            }
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(spec.path("policyName").asText(""));
            cells.add(param);
            cells.add(age(o, now));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
