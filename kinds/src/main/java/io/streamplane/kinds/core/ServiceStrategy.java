package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.labels;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.api.ServiceSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.quota.QuotaEvaluator;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 Service: {@code SetDefaults_Service} (type ClusterIP, session affinity None, each port's
 * protocol TCP and target port its port, the traffic policies), {@code ValidateService}'s checks of
 * names (DNS-1035), type, ports, node ports and external names, a cluster IP that never changes
 * once set, and kubectl's columns (CLUSTER-IP, EXTERNAL-IP, PORT(S) as {@code 80:30080/TCP}).
 *
 * <p>Limits: the IP families and the cluster IP are set by the registry's allocator, not here;
 * {@code externalIPs}, {@code loadBalancerSourceRanges} and topology fields are stored unchecked.
 */
public final class ServiceStrategy implements KindStrategy {

  static final List<String> TYPES =
      List.of("ClusterIP", "ExternalName", "LoadBalancer", "NodePort");
  private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
  private static final List<String> AFFINITIES = List.of("ClientIP", "None");
  private static final QuotaEvaluator QUOTA = QuotaEvaluator.ownCount("services");

  @Override
  public QuotaEvaluator quota() {
    return QUOTA;
  }

  @Override
  public Names.Rule nameRule() {
    return Names.Rule.DNS1035_LABEL;
  }

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    if (!spec.hasNonNull("sessionAffinity")) {
      spec.put("sessionAffinity", "None");
    }
    if (spec.path("sessionAffinity").asText().equals("None")) {
      spec.remove("sessionAffinityConfig");
    } else if (spec.path("sessionAffinity").asText().equals("ClientIP")
        && !spec.at("/sessionAffinityConfig/clientIP/timeoutSeconds").isNumber()) {
      spec.with("sessionAffinityConfig").with("clientIP").put("timeoutSeconds", 10800);
    }
    if (!spec.hasNonNull("type")) {
      spec.put("type", "ClusterIP");
    }
    String type = spec.path("type").asText();
    for (JsonNode port : spec.path("ports")) {
      if (port instanceof ObjectNode p) {
        if (!p.hasNonNull("protocol")) {
          p.put("protocol", "TCP");
        }
        JsonNode target = p.path("targetPort");
        if (target.isMissingNode()
            || target.isNull()
            || (target.isNumber() && target.asInt() == 0)
            || (target.isTextual() && target.asText().isEmpty())) {
          p.set("targetPort", p.path("port"));
        }
      }
    }
    boolean external =
        type.equals("NodePort")
            || type.equals("LoadBalancer")
            || !spec.path("externalIPs").isEmpty();
    if (external && !spec.hasNonNull("externalTrafficPolicy")) {
      spec.put("externalTrafficPolicy", "Cluster");
    }
    if (!spec.hasNonNull("internalTrafficPolicy") && !type.equals("ExternalName")) {
      spec.put("internalTrafficPolicy", "Cluster");
    }
    if (type.equals("LoadBalancer") && !spec.hasNonNull("allocateLoadBalancerNodePorts")) {
      spec.put("allocateLoadBalancerNodePorts", true);
    }
    if (spec.hasNonNull("clusterIP") && spec.path("clusterIPs").isEmpty()) {
      spec.putArray("clusterIPs").add(spec.path("clusterIP").asText());
    }
    object.with("status").with("loadBalancer");
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    ServiceSpec spec = ((Service) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null) {
      causes.add(required("spec"));
      return causes;
    }
    String type = Objects.requireNonNullElse(spec.getType(), "");
    if (!TYPES.contains(type)) {
      causes.add(notSupported("spec.type", type, TYPES));
    }
    String affinity = spec.getSessionAffinity();
    if (affinity != null && !AFFINITIES.contains(affinity)) {
      causes.add(notSupported("spec.sessionAffinity", affinity, AFFINITIES));
    }
    boolean headless = "None".equals(spec.getClusterIP());
    List<ServicePort> ports = spec.getPorts() == null ? List.of() : spec.getPorts();
    if (type.equals("ExternalName")) {
      String name = Objects.requireNonNullElse(spec.getExternalName(), "");
      if (name.isEmpty()) {
        causes.add(required("spec.externalName"));
      }
      if (spec.getClusterIP() != null && !spec.getClusterIP().isEmpty()) {
        causes.add(forbidden("spec.clusterIP", "may not be set for ExternalName services"));
      }
    } else if (ports.isEmpty() && !headless) {
      causes.add(required("spec.ports"));
    }
    if (headless && !type.equals("ClusterIP") && !type.equals("ExternalName")) {
      causes.add(
          invalid(
              "spec.clusterIPs[0]",
              quote("None"),
              "may not be set to 'None' for " + type + " services"));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < ports.size(); i++) {
      ServicePort port = ports.get(i);
      String at = "spec.ports[" + i + "]";
      String name = Objects.requireNonNullElse(port.getName(), "");
      if (name.isEmpty()) {
        if (ports.size() > 1) {
          causes.add(required(at + ".name"));
        }
      } else {
        StatusCause label = Names.label(at + ".name", name);
        if (label != null) {
          causes.add(label);
        }
        if (!names.add(name)) {
          causes.add(duplicate(at + ".name", name));
        }
      }
      int number = port.getPort() == null ? 0 : port.getPort();
      if (number < 1 || number > 65535) {
        causes.add(
            invalid(
                at + ".port", Integer.toString(number), "must be between 1 and 65535, inclusive"));
      }
      String protocol = Objects.requireNonNullElse(port.getProtocol(), "");
      if (!PROTOCOLS.contains(protocol)) {
        causes.add(notSupported(at + ".protocol", protocol, PROTOCOLS));
      }
      Integer nodePort = port.getNodePort();
      if (nodePort != null && nodePort != 0) {
        if (type.equals("ClusterIP") || type.equals("ExternalName")) {
          causes.add(forbidden(at + ".nodePort", "may not be used when `type` is '" + type + "'"));
        } else if (nodePort < 1 || nodePort > 65535) {
          causes.add(
              invalid(
                  at + ".nodePort",
                  Integer.toString(nodePort),
                  "must be between 1 and 65535, inclusive"));
        }
      }
    }
    return causes;
  }

  /** A cluster IP, once set, does not change ({@code ValidateServiceUpdate}). */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = validate(object);
    ServiceSpec spec = ((Service) object).getSpec();
    ServiceSpec before = ((Service) old).getSpec();
    String was = before == null ? null : before.getClusterIP();
    String now = spec == null ? null : spec.getClusterIP();
    boolean typeChanges =
        before != null && spec != null && !Objects.equals(before.getType(), spec.getType());
    if (was != null && !was.isEmpty() && !was.equals(now) && !typeChanges) {
      causes.add(
          invalid("spec.clusterIPs[0]", quote(now == null ? "" : now), "may not change once set"));
    }
    return causes;
  }

  private static StatusCause forbidden(String field, String detail) {
    return io.streamplane.kinds.validation.FieldErrors.forbidden(field, detail);
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Type",
                  "string",
                  "type determines how the Service is exposed. Defaults to ClusterIP."),
              col(
                  "Cluster-IP",
                  "string",
                  "clusterIP is the IP address of the service and is usually assigned randomly."),
              col(
                  "External-IP",
                  "string",
                  "externalIPs is a list of IP addresses for which nodes in the cluster will also"
                      + " accept traffic for this service."),
              col("Port(s)", "string", "The list of ports that are exposed by this service."),
              age(),
              wide(
                  "Selector",
                  "Route service traffic to pods with label keys and values matching this"
                      + " selector.")),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            JsonNode ips = spec.path("clusterIPs");
            String clusterIP = ips.isEmpty() ? "<none>" : ips.get(0).asText();
            return List.of(
                name(o),
                spec.path("type").asText(""),
                clusterIP,
                externalIP(o),
                ports(spec.path("ports")),
                age(o, now),
                labels(spec.path("selector")));
          });

  /** kubectl's getServiceExternalIP. */
  private static String externalIP(JsonNode service) {
    JsonNode spec = service.path("spec");
    List<String> external = new ArrayList<>();
    spec.path("externalIPs").forEach(ip -> external.add(ip.asText()));
    switch (spec.path("type").asText("")) {
      case "ClusterIP", "NodePort" -> {
        return external.isEmpty() ? "<none>" : String.join(",", external);
      }
      case "LoadBalancer" -> {
        List<String> all = new ArrayList<>();
        for (JsonNode ingress : service.at("/status/loadBalancer/ingress")) {
          String address = ingress.path("ip").asText("");
          all.add(address.isEmpty() ? ingress.path("hostname").asText("") : address);
        }
        all.addAll(external);
        return all.isEmpty() ? "<pending>" : String.join(",", all);
      }
      case "ExternalName" -> {
        return spec.path("externalName").asText("");
      }
      default -> {
        return "<unknown>";
      }
    }
  }

  /** kubectl's makePortString: {@code 80/TCP}, {@code 80:30080/TCP}, joined by commas. */
  private static String ports(JsonNode ports) {
    List<String> pieces = new ArrayList<>();
    for (JsonNode port : ports) {
      int nodePort = port.path("nodePort").asInt(0);
      pieces.add(
          port.path("port").asInt()
              + (nodePort > 0 ? ":" + nodePort : "")
              + "/"
              + port.path("protocol").asText(""));
    }
    return pieces.isEmpty() ? "<none>" : String.join(",", pieces);
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
