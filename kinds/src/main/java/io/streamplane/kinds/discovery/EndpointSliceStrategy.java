package io.streamplane.kinds.discovery;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;
import static io.streamplane.kinds.validation.FieldErrors.tooMany;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.DiscoveryV1EndpointPort;
import io.streamplane.api.Endpoint;
import io.streamplane.api.EndpointHints;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.ForZone;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.IpAddresses;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * discovery.k8s.io/v1 EndpointSlice: defaulted as {@code SetDefaults_EndpointPort} (each port's
 * name {@code ""} and protocol TCP), a create through v1 drops {@code deprecatedTopology} as the
 * registry's {@code dropTopologyOnV1} does, validated as {@code ValidateEndpointSlice} (an address
 * type of IPv4, IPv6 or FQDN that never changes; at most 1000 endpoints, each with 1 to 100
 * addresses valid for the type; node names, hostnames, topology labels and zone hints; at most
 * 20,000 ports, their names unique DNS labels, TCP, UDP or SCTP) and printed with kubectl's columns
 * (PORTS {@code 80,443}, ENDPOINTS at most three addresses and {@code + N more...}, {@code <unset>}
 * for none).
 *
 * <p>One deviation: an IPv4 or IPv6 address may be a loopback address, which {@code
 * ValidateEndpointIP} refuses, because Streamplane's pods on real processes have addresses in
 * {@code 127.0.0.0/8}; unspecified and link-local addresses are still refused.
 *
 * <p>Limits: {@code metadata.generation} is not kept (kube-apiserver starts it at 1 and raises it
 * with every change beyond metadata); an update keeps {@code deprecatedTopology} as sent, where
 * kube-apiserver drops it from an update through v1 that changes the endpoints.
 */
public final class EndpointSliceStrategy implements KindStrategy {

  static final List<String> ADDRESS_TYPES = List.of("FQDN", "IPv4", "IPv6");
  private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
  private static final int MAX_ENDPOINTS = 1000;
  private static final int MAX_ADDRESSES = 100;
  private static final int MAX_PORTS = 20000;
  private static final int MAX_TOPOLOGY_LABELS = 16;
  private static final int MAX_ZONE_HINTS = 8;
  private static final int SHOWN = 3;

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    for (JsonNode port : object.path("ports")) {
      if (port instanceof ObjectNode p) {
        if (!p.hasNonNull("name")) {
          p.put("name", "");
        }
        if (!p.hasNonNull("protocol")) {
          p.put("protocol", "TCP");
        }
      }
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object) {
    for (JsonNode endpoint : object.path("endpoints")) {
      if (endpoint instanceof ObjectNode e) {
        e.remove("deprecatedTopology");
      }
    }
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    EndpointSlice slice = (EndpointSlice) object;
    List<StatusCause> causes = new ArrayList<>();
    String addressType = Objects.requireNonNullElse(slice.getAddressType(), "");
    if (addressType.isEmpty()) {
      causes.add(required("addressType"));
    } else if (!ADDRESS_TYPES.contains(addressType)) {
      causes.add(notSupported("addressType", addressType, ADDRESS_TYPES));
    }
    causes.addAll(endpoints(slice.getEndpoints(), addressType));
    causes.addAll(ports(slice.getPorts()));
    return causes;
  }

  /** The address type never changes ({@code ValidateEndpointSliceUpdate}). */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    String addressType = ((EndpointSlice) object).getAddressType();
    if (!Objects.equals(addressType, ((EndpointSlice) old).getAddressType())) {
      causes.add(
          invalid(
              "addressType",
              quote(Objects.requireNonNullElse(addressType, "")),
              "field is immutable"));
    }
    return causes;
  }

  private static List<StatusCause> endpoints(List<Endpoint> endpoints, String addressType) {
    List<StatusCause> causes = new ArrayList<>();
    if (endpoints == null) {
      return causes;
    }
    if (endpoints.size() > MAX_ENDPOINTS) {
      causes.add(tooMany("endpoints", endpoints.size(), MAX_ENDPOINTS));
      return causes;
    }
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint endpoint = endpoints.get(i);
      String at = "endpoints[" + i + "]";
      List<String> addresses =
          endpoint.getAddresses() == null ? List.of() : endpoint.getAddresses();
      if (addresses.isEmpty()) {
        causes.add(required(at + ".addresses", "must contain at least 1 address"));
      } else if (addresses.size() > MAX_ADDRESSES) {
        causes.add(tooMany(at + ".addresses", addresses.size(), MAX_ADDRESSES));
      }
      for (int j = 0; j < addresses.size(); j++) {
        String field = at + ".addresses[" + j + "]";
        String address = addresses.get(j);
        switch (addressType) {
          case "IPv4" -> {
            causes.addAll(IpAddresses.validateV4(field, address));
            causes.addAll(IpAddresses.validateEndpointIP(field, address, true));
          }
          case "IPv6" -> {
            causes.addAll(IpAddresses.validateV6(field, address));
            causes.addAll(IpAddresses.validateEndpointIP(field, address, true));
          }
          case "FQDN" -> causes.addAll(fullyQualifiedDomainName(field, address));
          default -> {
            // an unknown address type is reported once, its addresses are not checked
          }
        }
      }
      if (endpoint.getNodeName() != null) {
        causes.addAll(Names.subdomain(at + ".nodeName", endpoint.getNodeName()));
      }
      Map<String, String> topology = endpoint.getDeprecatedTopology();
      if (topology != null) {
        String field = at + ".deprecatedTopology";
        if (topology.size() > MAX_TOPOLOGY_LABELS) {
          causes.add(tooMany(field, topology.size(), MAX_TOPOLOGY_LABELS));
        }
        topology.forEach(
            (key, value) -> {
              causes.addAll(Names.qualifiedName(field, key));
              causes.addAll(Names.labelValue(field, value));
            });
      }
      if (endpoint.getHostname() != null) {
        StatusCause label = Names.label(at + ".hostname", endpoint.getHostname());
        if (label != null) {
          causes.add(label);
        }
      }
      if (endpoint.getHints() != null) {
        causes.addAll(hints(at + ".hints", endpoint.getHints()));
      }
    }
    return causes;
  }

  private static List<StatusCause> hints(String at, EndpointHints hints) {
    List<StatusCause> causes = new ArrayList<>();
    List<ForZone> zones = hints.getForZones() == null ? List.of() : hints.getForZones();
    if (zones.size() > MAX_ZONE_HINTS) {
      causes.add(tooMany(at + ".forZones", zones.size(), MAX_ZONE_HINTS));
      return causes;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < zones.size(); i++) {
      String field = at + ".forZones[" + i + "].name";
      String name = Objects.requireNonNullElse(zones.get(i).getName(), "");
      if (!names.add(name)) {
        causes.add(duplicate(field, name));
      }
      causes.addAll(Names.labelValue(field, name));
    }
    return causes;
  }

  private static List<StatusCause> ports(List<DiscoveryV1EndpointPort> ports) {
    List<StatusCause> causes = new ArrayList<>();
    if (ports == null) {
      return causes;
    }
    if (ports.size() > MAX_PORTS) {
      causes.add(tooMany("ports", ports.size(), MAX_PORTS));
      return causes;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < ports.size(); i++) {
      DiscoveryV1EndpointPort port = ports.get(i);
      String at = "ports[" + i + "]";
      String name = Objects.requireNonNullElse(port.getName(), "");
      if (!name.isEmpty()) {
        StatusCause label = Names.label(at + ".name", name);
        if (label != null) {
          causes.add(label);
        }
      }
      if (!names.add(name)) {
        causes.add(duplicate(at + ".name", name));
      }
      if (port.getProtocol() == null) {
        causes.add(required(at + ".protocol"));
      } else if (!PROTOCOLS.contains(port.getProtocol())) {
        causes.add(notSupported(at + ".protocol", port.getProtocol(), PROTOCOLS));
      }
      if (port.getAppProtocol() != null) {
        causes.addAll(Names.qualifiedName(at + ".appProtocol", port.getAppProtocol()));
      }
    }
    return causes;
  }

  /** {@code IsFullyQualifiedDomainName}: a DNS-1123 subdomain of at least two labels. */
  private static List<StatusCause> fullyQualifiedDomainName(String field, String name) {
    if (name.isEmpty()) {
      return List.of(required(field));
    }
    String trimmed = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    List<StatusCause> causes = Names.subdomain(field, trimmed);
    if (!causes.isEmpty()) {
      return causes;
    }
    if (!trimmed.contains(".")) {
      return List.of(
          invalid(
              field,
              quote(trimmed),
              "should be a domain with at least two segments separated by dots"));
    }
    return List.of();
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "AddressType",
                  "string",
                  "addressType specifies the type of address carried by this EndpointSlice. All"
                      + " addresses in this slice must be the same type. This field is immutable"
                      + " after creation. The following address types are currently supported:"
                      + " * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address."
                      + " * FQDN: Represents a Fully Qualified Domain Name."),
              col(
                  "Ports",
                  "string",
                  "ports specifies the list of network ports exposed by each endpoint in this"
                      + " slice. Each port must have a unique name. When ports is empty, it"
                      + " indicates that there are no defined ports. When a port is defined with a"
                      + " nil port value, it indicates \"all ports\". Each slice may include a"
                      + " maximum of 100 ports."),
              col(
                  "Endpoints",
                  "string",
                  "endpoints is a list of unique endpoints in this slice. Each slice may include"
                      + " a maximum of 1000 endpoints."),
              age()),
          (o, now) ->
              List.of(
                  name(o),
                  o.path("addressType").asText(""),
                  ports(o.path("ports")),
                  endpoints(o.path("endpoints")),
                  age(o, now)));

  /** kubectl's formatDiscoveryPorts: the number, else the name, else {@code *}. */
  static String ports(JsonNode ports) {
    List<String> shown = new ArrayList<>();
    for (JsonNode port : ports) {
      if (shown.size() == SHOWN) {
        break;
      }
      if (port.path("port").isNumber()) {
        shown.add(Integer.toString(port.path("port").asInt()));
      } else if (port.path("name").isTextual()) {
        shown.add(port.path("name").asText());
      } else {
        shown.add("*");
      }
    }
    return withMore(shown, ports.size());
  }

  /** kubectl's formatDiscoveryEndpoints: the addresses of every endpoint in turn. */
  static String endpoints(JsonNode endpoints) {
    List<String> shown = new ArrayList<>();
    int count = 0;
    for (JsonNode endpoint : endpoints) {
      for (JsonNode address : endpoint.path("addresses")) {
        if (shown.size() < SHOWN) {
          shown.add(address.asText());
        }
        count++;
      }
    }
    return withMore(shown, count);
  }

  /** kubectl's listWithMoreString. */
  private static String withMore(List<String> shown, int count) {
    String text = String.join(",", shown);
    if (count > SHOWN) {
      return text + " + " + (count - SHOWN) + " more...";
    }
    return text.isEmpty() ? "<unset>" : text;
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
