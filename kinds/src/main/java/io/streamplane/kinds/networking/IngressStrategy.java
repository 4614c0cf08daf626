package io.streamplane.kinds.networking;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.HTTPIngressPath;
import io.streamplane.api.Ingress;
import io.streamplane.api.IngressBackend;
import io.streamplane.api.IngressRule;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;

/**
 * networking.k8s.io/v1 Ingress: a default backend or at least one rule; each path with a supported
 * path type and exactly one backend (a service with a port, or a resource); a generation raised by
 * every spec change; printed with its class, hosts, load-balancer addresses and ports.
 *
 * <p>Limits: paths are not checked against their path type's syntax, hosts not as DNS names.
 */
public final class IngressStrategy implements KindStrategy {

  private static final List<String> PATH_TYPES =
      List.of("Exact", "ImplementationSpecific", "Prefix");

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((Ingress) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    List<IngressRule> rules = spec == null || spec.getRules() == null ? List.of() : spec.getRules();
    if (spec == null || (spec.getDefaultBackend() == null && rules.isEmpty())) {
      causes.add(
          new StatusCause(
              "FieldValueInvalid",
              "Invalid value: \"null\": either `defaultBackend` or `rules` must be specified",
              "spec"));
      return causes;
    }
    if (spec.getDefaultBackend() != null) {
      backend(spec.getDefaultBackend(), "spec.defaultBackend", causes);
    }
    for (int r = 0; r < rules.size(); r++) {
      IngressRule rule = rules.get(r);
      if (rule.getHttp() == null) {
        continue;
      }
      String httpPath = "spec.rules[" + r + "].http";
      List<HTTPIngressPath> paths =
          rule.getHttp().getPaths() == null ? List.of() : rule.getHttp().getPaths();
      if (paths.isEmpty()) {
        causes.add(required(httpPath + ".paths"));
      }
      for (int p = 0; p < paths.size(); p++) {
        HTTPIngressPath path = paths.get(p);
        String at = httpPath + ".paths[" + p + "]";
        if (path.getPathType() == null) {
          causes.add(required(at + ".pathType", "pathType must be specified"));
        } else if (!PATH_TYPES.contains(path.getPathType())) {
          causes.add(notSupported(at + ".pathType", path.getPathType(), PATH_TYPES));
        }
        if (path.getBackend() == null) {
          causes.add(required(at + ".backend"));
        } else {
          backend(path.getBackend(), at + ".backend", causes);
        }
      }
    }
    return causes;
  }

  /** {@code validateIngressBackend}: one of service or resource; a service names its port. */
  private static void backend(IngressBackend backend, String path, List<StatusCause> causes) {
    var service = backend.getService();
    var resource = backend.getResource();
    if (service != null && resource != null) {
      causes.add(
          new StatusCause(
              "FieldValueInvalid",
              "Invalid value: \"\": cannot set both resource and service backends",
              path));
    } else if (service == null && resource == null) {
      causes.add(
          new StatusCause(
              "FieldValueInvalid",
              "Invalid value: \"\": resource or service backend is required",
              path));
    } else if (service != null) {
      if (service.getName() == null || service.getName().isEmpty()) {
        causes.add(required(path + ".service.name"));
      }
      var port = service.getPort();
      boolean hasName = port != null && port.getName() != null && !port.getName().isEmpty();
      boolean hasNumber = port != null && port.getNumber() != null && port.getNumber() != 0;
      if (hasName && hasNumber) {
        causes.add(
            new StatusCause(
                "FieldValueInvalid",
                "Invalid value: \"\": cannot set both port name & port number",
                path + ".service.port"));
      } else if (!hasName && !hasNumber) {
        causes.add(
            new StatusCause(
                "FieldValueInvalid",
                "Invalid value: \"\": port name or number is required",
                path + ".service.port"));
      }
    }
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Class",
                  "string",
                  "The name of the IngressClass cluster resource. The associated IngressClass"
                      + " defines which controller will implement the resource."),
              col(
                  "Hosts",
                  "string",
                  "Hosts that incoming requests are matched against before the ingress rule"),
              col(
                  "Address",
                  "string",
                  "Address is a list containing ingress points for the load-balancer"),
              col("Ports", "string", "Ports of TLS configurations that open"),
              age()),
          (o, now) ->
              List.of(
                  name(o),
                  o.path("spec").hasNonNull("ingressClassName")
                      ? o.path("spec").path("ingressClassName").asText()
                      : "<none>",
                  hosts(o.path("spec").path("rules")),
                  addresses(o.path("status").path("loadBalancer").path("ingress")),
                  o.path("spec").path("tls").isEmpty() ? "80" : "80, 443",
                  age(o, now)));

  /** {@code formatHosts}: the first three rules' hosts, then how many rules more; * for none. */
  static String hosts(JsonNode rules) {
    List<String> hosts = new ArrayList<>();
    boolean more = false;
    for (JsonNode rule : rules) {
      if (hosts.size() == 3) {
        more = true;
      }
      String host = rule.path("host").asText("");
      if (!more && !host.isEmpty()) {
        hosts.add(host);
      }
    }
    if (hosts.isEmpty()) {
      return "*";
    }
    String text = String.join(",", hosts);
    return more ? text + " + " + (rules.size() - 3) + " more..." : text;
  }

  /** {@code ingressLoadBalancerStatusStringer}, wide: IPs, else host names, sorted and unique. */
  static String addresses(JsonNode ingress) {
    TreeSet<String> addresses = new TreeSet<>();
    for (JsonNode point : ingress) {
      String ip = point.path("ip").asText("");
      String hostname = point.path("hostname").asText("");
      if (!ip.isEmpty()) {
        addresses.add(ip);
      } else if (!hostname.isEmpty()) {
        addresses.add(hostname);
      }
    }
    return String.join(",", addresses);
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
