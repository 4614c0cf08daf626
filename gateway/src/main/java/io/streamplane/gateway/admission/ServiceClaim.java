package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What the service allocator claims in the log before a Service is written, one object per
 * allocated value, so that the store's one-object-per-name makes the value unique across gateways:
 * a second claim of a value is a 409, whichever gateway makes it.
 *
 * <ul>
 *   <li>{@link #CLUSTER_IP}: an IPAddress (networking.k8s.io/v1beta1) named by the address, whose
 *       {@code parentRef} is the Service, as kube-apiserver's IPAddress allocator makes it.
 *   <li>{@link #NODE_PORT}: a Lease (coordination.k8s.io/v1) named {@code nodeport-<port>} in
 *       {@code kube-system}, whose {@code holderIdentity} is the Service's {@code <ns>/<name>}.
 *       kube-apiserver keeps node ports as a bitmap in one etcd key that no API serves; a Lease is
 *       the API's object for "this name is held by that one", so the claim is visible and audited
 *       like any other object. A node port is claimed whatever its protocol, as Kubernetes
 *       allocates it.
 * </ul>
 *
 * <p>Both carry a label that says the allocator made them, which the repair loop requires before it
 * releases one.
 */
public enum ServiceClaim {
  CLUSTER_IP(
      "networking.k8s.io",
      "ipaddresses",
      null,
      "ipaddress.kubernetes.io/managed-by",
      "ipallocator.k8s.io") {
    @Override
    public String name(String value) {
      return value;
    }

    @Override
    public ObjectNode object(String value, String namespace, String name) {
      ObjectNode address = JsonNodeFactory.instance.objectNode();
      address.put("apiVersion", group + "/v1beta1").put("kind", "IPAddress");
      ObjectNode metadata = address.putObject("metadata");
      metadata.put("name", name(value));
      metadata
          .putObject("labels")
          .put("ipaddress.kubernetes.io/ip-family", "IPv4")
          .put(managedBy, allocator);
      address
          .putObject("spec")
          .putObject("parentRef")
          .put("group", "")
          .put("resource", "services")
          .put("namespace", namespace)
          .put("name", name);
      return address;
    }

    @Override
    public String holder(JsonNode claim) {
      JsonNode parent = claim.at("/spec/parentRef");
      return parent.path("resource").asText().equals("services")
          ? parent.path("namespace").asText() + "/" + parent.path("name").asText()
          : null;
    }

    @Override
    public List<String> values(JsonNode service) {
      List<String> ips = new ArrayList<>();
      for (JsonNode ip : service.at("/spec/clusterIPs")) {
        if (!ip.asText().isEmpty() && !ip.asText().equals("None")) {
          ips.add(ip.asText());
        }
      }
      return ips;
    }
  },

  NODE_PORT(
      "coordination.k8s.io",
      "leases",
      "kube-system",
      "streamplane.io/managed-by",
      "nodeport-allocator") {
    @Override
    public String name(String value) {
      return "nodeport-" + value;
    }

    @Override
    public ObjectNode object(String value, String namespace, String name) {
      ObjectNode lease = JsonNodeFactory.instance.objectNode();
      lease.put("apiVersion", group + "/v1").put("kind", "Lease");
      ObjectNode metadata = lease.putObject("metadata");
      metadata.put("name", name(value)).put("namespace", this.namespace);
      metadata.putObject("labels").put(managedBy, allocator);
      lease.putObject("spec").put("holderIdentity", namespace + "/" + name);
      return lease;
    }

    @Override
    public String holder(JsonNode claim) {
      String holder = claim.at("/spec/holderIdentity").asText("");
      return holder.contains("/") ? holder : null;
    }

    @Override
    public List<String> values(JsonNode service) {
      List<String> ports = new ArrayList<>();
      for (JsonNode port : service.at("/spec/ports")) {
        int nodePort = port.path("nodePort").asInt(0);
        if (nodePort > 0 && !ports.contains(Integer.toString(nodePort))) {
          ports.add(Integer.toString(nodePort));
        }
      }
      return ports;
    }

    @Override
    public boolean ours(JsonNode claim) {
      return claim.at("/metadata/name").asText().startsWith("nodeport-") && super.ours(claim);
    }
  };

  public final String group;
  public final String resource;

  /** The namespace of the claims; null for cluster-scoped ones. */
  public final String namespace;

  /** The label that names the allocator on its claims, and the allocator's name in it. */
  public final String managedBy;

  public final String allocator;

  ServiceClaim(
      String group, String resource, String namespace, String managedBy, String allocator) {
    this.group = group;
    this.resource = resource;
    this.namespace = namespace;
    this.managedBy = managedBy;
    this.allocator = allocator;
  }

  /** The name of the object that claims {@code value}. */
  public abstract String name(String value);

  /** The object that claims {@code value} for the Service {@code namespace/name}. */
  public abstract ObjectNode object(String value, String namespace, String name);

  /** The Service ({@code <ns>/<name>}) a claim names as its holder; null when it names none. */
  public abstract String holder(JsonNode claim);

  /** The values of this kind a Service holds, as text. */
  public abstract List<String> values(JsonNode service);

  /** Whether the allocator made {@code claim} (and may release it). */
  public boolean ours(JsonNode claim) {
    return allocator.equals(claim.at("/metadata/labels").path(managedBy).asText())
        && holder(claim) != null;
  }
}
