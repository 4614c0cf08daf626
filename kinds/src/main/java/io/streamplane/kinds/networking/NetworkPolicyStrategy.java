package io.streamplane.kinds.networking;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.formatSelector;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.NetworkPolicy;
import io.streamplane.api.NetworkPolicyPort;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * networking.k8s.io/v1 NetworkPolicy, stored but not enforced (Streamplane's pods share their
 * node's network): {@code SetDefaults_NetworkPolicy} (TCP ports; policy types Ingress, and Egress
 * when there are egress rules); supported policy types and port protocols; every write answered
 * with a warning that the policy is not enforced; printed with its pod selector.
 */
public final class NetworkPolicyStrategy implements KindStrategy {

  static final String NOT_ENFORCED =
      "NetworkPolicy is stored but not enforced: Streamplane's pods share their node's network";

  private static final List<String> POLICY_TYPES = List.of("Ingress", "Egress");
  private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    JsonNode spec = object.path("spec");
    if (!(spec instanceof ObjectNode policy)) {
      return;
    }
    for (String direction : List.of("ingress", "egress")) {
      for (JsonNode rule : policy.path(direction)) {
        for (JsonNode port : rule.path("ports")) {
          if (port instanceof ObjectNode p && !p.hasNonNull("protocol")) {
            p.put("protocol", "TCP");
          }
        }
      }
    }
    if (policy.path("policyTypes").isEmpty()) {
      ArrayNode types = policy.putArray("policyTypes");
      types.add("Ingress");
      if (!policy.path("egress").isEmpty()) {
        types.add("Egress");
      }
    }
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((NetworkPolicy) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null) {
      return causes;
    }
    List<String> types = spec.getPolicyTypes() == null ? List.of() : spec.getPolicyTypes();
    for (int i = 0; i < types.size(); i++) {
      if (!POLICY_TYPES.contains(types.get(i))) {
        causes.add(notSupported("spec.policyTypes[" + i + "]", types.get(i), POLICY_TYPES));
      }
    }
    if (types.size() > 2) {
      causes.add(
          new StatusCause(
              "FieldValueInvalid",
              "Invalid value: \"" + types + "\": may not specify more than two policyTypes",
              "spec.policyTypes"));
    }
    if (spec.getIngress() != null) {
      for (int r = 0; r < spec.getIngress().size(); r++) {
        ports(spec.getIngress().get(r).getPorts(), "spec.ingress[" + r + "]", causes);
      }
    }
    if (spec.getEgress() != null) {
      for (int r = 0; r < spec.getEgress().size(); r++) {
        ports(spec.getEgress().get(r).getPorts(), "spec.egress[" + r + "]", causes);
      }
    }
    return causes;
  }

  private static void ports(List<NetworkPolicyPort> ports, String rule, List<StatusCause> causes) {
    if (ports == null) {
      return;
    }
    for (int i = 0; i < ports.size(); i++) {
      String protocol = ports.get(i).getProtocol();
      if (protocol != null && !PROTOCOLS.contains(protocol)) {
        causes.add(notSupported(rule + ".ports[" + i + "].protocol", protocol, PROTOCOLS));
      }
    }
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public List<String> warningsOnWrite(JsonNode object) {
    return List.of(NOT_ENFORCED);
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Pod-Selector",
                  "string",
                  "podSelector selects the pods to which this NetworkPolicy object applies. The"
                      + " array of rules is applied to any pods selected by this field. An empty"
                      + " selector matches all pods in the policy's namespace. Multiple network"
                      + " policies can select the same set of pods. In this case, the ingress"
                      + " rules for each are combined additively. This field is optional. If it"
                      + " is not specified, it defaults to an empty selector."),
              age()),
          (o, now) ->
              List.of(name(o), formatSelector(o.path("spec").path("podSelector")), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
