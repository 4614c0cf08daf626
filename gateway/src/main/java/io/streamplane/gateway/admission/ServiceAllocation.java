package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.Statuses;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * What kube-apiserver's service registry allocates and keeps: a cluster IP from the service range
 * for every Service but an ExternalName or headless one (with {@code ipFamilies: [IPv4]} and {@code
 * ipFamilyPolicy: SingleStack}), a node port from 30000–32767 for every port of a NodePort or
 * LoadBalancer Service that names none, a requested IP or port only when free; and on an update,
 * what the new object leaves out of what was allocated ({@code patchAllocatedValues}), so that
 * {@code kubectl apply} of a manifest without a cluster IP keeps it.
 *
 * <p>Every cluster IP and node port is claimed in the log before the Service is written, as
 * kube-apiserver's IPAddress allocator claims an address: one object per value ({@link
 * ServiceClaim}) that names the Service. The store keeps one object per name, so of two gateways
 * claiming one value in the same instant one gets a 409 and takes another (or, for a requested
 * value, refuses it as already allocated); the cache only suggests which values are free. A claim
 * whose Service never got written (refused, or its gateway died) is removed by the repair loop
 * ({@code ServiceAllocationRepair}), which also releases the values of a deleted Service and claims
 * those of a Service that has none.
 */
public final class ServiceAllocation implements MutatingAdmission {

  /** The default service range: loopback addresses pod IPs never use, reachable from the host. */
  public static final String DEFAULT_RANGE = "127.96.0.0/12";

  static final int NODE_PORT_LOW = 30000;
  static final int NODE_PORT_HIGH = 32767;

  private final ClusterObjects objects;
  private final SystemWrites writes;
  private final long base;
  private final int size;
  private final Random random = new SecureRandom();

  public ServiceAllocation(ClusterObjects objects, SystemWrites writes, String range) {
    checkRange(range);
    this.objects = objects;
    this.writes = writes;
    String[] parts = range.split("/");
    this.base = toLong(parts[0]);
    this.size = 1 << (32 - Integer.parseInt(parts[1]));
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (!request.type().group().isEmpty()
        || !request.type().plural().equals("services")
        || !request.subresource().isEmpty()
        || request.object() == null) {
      return;
    }
    ObjectNode spec = request.object().with("spec");
    if (request.operation() == Operation.UPDATE && request.oldObject() != null) {
      keepAllocated(spec, request.oldObject().path("spec"));
    } else if (request.operation() != Operation.CREATE) {
      return;
    }
    String type = spec.path("type").asText("ClusterIP");
    // The other Services of the cluster, read once for both allocations.
    List<ObjectNode> others =
        objects.list("", "services", null).stream().filter(s -> !isSelf(request, s)).toList();
    if (!type.equals("ExternalName")) {
      clusterIP(request, spec, others);
      if (!spec.has("ipFamilyPolicy")) {
        spec.put("ipFamilyPolicy", "SingleStack");
      }
      if (spec.path("ipFamilies").isEmpty()) {
        spec.putArray("ipFamilies").add("IPv4");
      }
    }
    boolean nodePorts =
        type.equals("NodePort")
            || (type.equals("LoadBalancer")
                && spec.path("allocateLoadBalancerNodePorts").asBoolean(true));
    if (nodePorts) {
      nodePorts(request, spec, others);
    }
  }

  /**
   * patchAllocatedValues: the old cluster IPs, families and node ports where the new left them out.
   */
  private static void keepAllocated(ObjectNode spec, JsonNode old) {
    if (spec.path("clusterIP").asText("").isEmpty() && old.hasNonNull("clusterIP")) {
      spec.set("clusterIP", old.get("clusterIP"));
      spec.set("clusterIPs", old.path("clusterIPs").deepCopy());
    }
    for (String field : List.of("ipFamilies", "ipFamilyPolicy")) {
      if (!spec.has(field) && old.has(field)) {
        spec.set(field, old.get(field).deepCopy());
      }
    }
    for (JsonNode port : spec.path("ports")) {
      if (port instanceof ObjectNode p && p.path("nodePort").asInt(0) == 0) {
        for (JsonNode was : old.path("ports")) {
          if (was.path("port").asInt() == p.path("port").asInt()
              && was.path("protocol").asText("TCP").equals(p.path("protocol").asText("TCP"))
              && was.path("nodePort").asInt(0) > 0) {
            p.put("nodePort", was.path("nodePort").asInt());
          }
        }
      }
    }
  }

  private void clusterIP(AdmissionRequest request, ObjectNode spec, List<ObjectNode> others) {
    String requested = spec.path("clusterIP").asText("");
    if (requested.equals("None")) {
      spec.putArray("clusterIPs").add("None");
      return;
    }
    Set<String> used = new HashSet<>();
    others.forEach(service -> service.at("/spec/clusterIPs").forEach(ip -> used.add(ip.asText())));
    ServiceClaim kind = ServiceClaim.CLUSTER_IP;
    objects
        .list(kind.group, kind.resource, kind.namespace)
        .forEach(
            address -> {
              if (!isHolder(kind, address, request)) {
                used.add(address.at("/metadata/name").asText());
              }
            });
    if (!requested.isEmpty()) {
      if (request.operation() == Operation.UPDATE
          && request.oldObject() != null
          && requested.equals(request.oldObject().at("/spec/clusterIP").asText(""))) {
        return; // kept, not allocated again
      }
      String problem = null;
      long ip = -1;
      try {
        ip = toLong(requested);
      } catch (IllegalArgumentException e) {
        problem = "must be a valid IP address";
      }
      if (problem == null && (ip < base || ip >= base + size)) {
        problem =
            "failed to allocate IP "
                + requested
                + ": the provided IP ("
                + requested
                + ") is not in the valid range. The range of valid IPs is "
                + range();
      } else if (problem == null
          && (used.contains(requested) || !claim(kind, request, requested))) {
        problem = "failed to allocate IP " + requested + ": provided IP is already allocated";
      }
      if (problem != null) {
        throw invalid(request, "spec.clusterIPs", "[]string{\"" + requested + "\"}", problem);
      }
      setIP(spec, requested);
      return;
    }
    // The first address of the range is the kubernetes Service's; the network address none.
    for (int attempt = 0; attempt < 4 * size; attempt++) {
      long candidate = base + 2 + random.nextInt(size - 3);
      String ip = toText(candidate);
      if (used.add(ip) && claim(kind, request, ip)) {
        setIP(spec, ip);
        return;
      }
    }
    throw new ApiException(
        Statuses.failure(
            500,
            "InternalError",
            "Internal error occurred: failed to allocate a serviceIP: range is full",
            null));
  }

  /**
   * Claims {@code value} for the Service of {@code request}: true when it is now (or already was)
   * the Service's, false when another holds it.
   */
  private boolean claim(ServiceClaim kind, AdmissionRequest request, String value) {
    try {
      writes.create(
          kind.group,
          kind.resource,
          kind.namespace,
          kind.object(value, request.namespace(), request.name()));
      return true;
    } catch (ApiException e) {
      if (e.code() != 409) {
        throw e;
      }
      return objects
          .getFresh(kind.group, kind.resource, kind.namespace, kind.name(value))
          .map(claim -> isHolder(kind, claim, request))
          .orElse(false);
    }
  }

  private static boolean isHolder(ServiceClaim kind, JsonNode claim, AdmissionRequest request) {
    return (request.namespace() + "/" + request.name()).equals(kind.holder(claim));
  }

  private static void setIP(ObjectNode spec, String ip) {
    spec.put("clusterIP", ip);
    ArrayNode ips = spec.putArray("clusterIPs");
    ips.add(ip);
  }

  private void nodePorts(AdmissionRequest request, ObjectNode spec, List<ObjectNode> others) {
    ServiceClaim kind = ServiceClaim.NODE_PORT;
    // The ports an update keeps are claimed already (or the repair loop claims them).
    Set<String> kept = new HashSet<>();
    if (request.operation() == Operation.UPDATE && request.oldObject() != null) {
      kept.addAll(kind.values(request.oldObject()));
    }
    Set<Integer> used = new HashSet<>();
    others.forEach(
        service -> service.at("/spec/ports").forEach(p -> used.add(p.path("nodePort").asInt(0))));
    JsonNode ports = spec.path("ports");
    for (int i = 0; i < ports.size(); i++) {
      ObjectNode port = (ObjectNode) ports.get(i);
      int given = port.path("nodePort").asInt(0);
      if (given != 0) {
        if (given < NODE_PORT_LOW || given > NODE_PORT_HIGH) {
          throw invalid(
              request,
              "spec.ports[" + i + "].nodePort",
              Integer.toString(given),
              "provided port is not in the valid range. The range of valid ports is "
                  + NODE_PORT_LOW
                  + "-"
                  + NODE_PORT_HIGH);
        }
        if (!used.add(given)
            || (!kept.contains(Integer.toString(given))
                && !claim(kind, request, Integer.toString(given)))) {
          throw invalid(
              request,
              "spec.ports[" + i + "].nodePort",
              Integer.toString(given),
              "provided port is already allocated");
        }
        continue;
      }
      int span = NODE_PORT_HIGH - NODE_PORT_LOW + 1;
      for (int attempt = 0; ; attempt++) {
        int candidate = NODE_PORT_LOW + random.nextInt(span);
        if (used.add(candidate) && claim(kind, request, Integer.toString(candidate))) {
          port.put("nodePort", candidate);
          break;
        }
        if (attempt > 4 * span) {
          throw new ApiException(
              Statuses.failure(
                  500,
                  "InternalError",
                  "Internal error occurred: failed to allocate a nodePort: range is full",
                  null));
        }
      }
    }
  }

  private static boolean isSelf(AdmissionRequest request, ObjectNode service) {
    return service.at("/metadata/name").asText().equals(request.name())
        && service.at("/metadata/namespace").asText().equals(request.namespace());
  }

  private static ApiException invalid(
      AdmissionRequest request, String field, String value, String detail) {
    return new ApiException(
        Statuses.invalid(
            request.type(),
            request.name(),
            List.of(
                new FieldError(
                    FieldError.Type.INVALID, field, FieldError.OMIT, value + ": " + detail))));
  }

  private String range() {
    return toText(base) + "-" + toText(base + size - 1);
  }

  /**
   * Refuses a service range that is not an IPv4 CIDR with its network address, or whose prefix is
   * shorter than 12 bits (kube-apiserver: "the mask must be >= 12") or longer than 29 (too few
   * addresses for the two reserved ones and any other).
   */
  public static void checkRange(String range) {
    String[] parts = range == null ? new String[0] : range.split("/");
    int prefix;
    long address;
    try {
      if (parts.length != 2) {
        throw new IllegalArgumentException();
      }
      prefix = Integer.parseInt(parts[1]);
      address = toLong(parts[0]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the service range must be an IPv4 CIDR, not " + range);
    }
    if (prefix < 12 || prefix > 29) {
      throw new IllegalArgumentException(
          "the service range " + range + " is too large or too small: its mask must be 12 to 29");
    }
    if ((address & ((1L << (32 - prefix)) - 1)) != 0) {
      throw new IllegalArgumentException(
          "the service range " + range + " must start at its network address");
    }
  }

  /** The first usable address of a range, which the {@code kubernetes} Service holds. */
  public static String firstAddress(String range) {
    return toText(toLong(range.split("/")[0]) + 1);
  }

  /**
   * The tenth address of a range, which the {@code kube-dns} Service holds (as kubeadm sets it, and
   * the nodes' {@code clusterDNS} names it).
   */
  public static String clusterDnsAddress(String range) {
    return toText(toLong(range.split("/")[0]) + 10);
  }

  static long toLong(String ip) {
    String[] octets = ip.split("\\.");
    if (octets.length != 4) {
      throw new IllegalArgumentException("not an IPv4 address: " + ip);
    }
    long value = 0;
    for (String octet : octets) {
      int o = Integer.parseInt(octet);
      if (o < 0 || o > 255) {
        throw new IllegalArgumentException("not an IPv4 address: " + ip);
      }
      value = value * 256 + o;
    }
    return value;
  }

  static String toText(long ip) {
    return ((ip >> 24) & 255)
        + "."
        + ((ip >> 16) & 255)
        + "."
        + ((ip >> 8) & 255)
        + "."
        + (ip & 255);
  }
}
