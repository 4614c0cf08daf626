package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class ServiceAllocationTest {

  private static final ResourceType SERVICES =
      Cluster.REGISTRY.byResource("", "services").orElseThrow();

  private final Cluster cluster =
      new Cluster()
          .with(
              "services",
              "{'metadata':{'name':'taken','namespace':'default'},'spec':{'type':'NodePort',"
                  + "'clusterIP':'10.0.0.5','clusterIPs':['10.0.0.5'],"
                  + "'ports':[{'port':80,'protocol':'TCP','nodePort':30080}]}}");
  private final ServiceAllocation allocation =
      new ServiceAllocation(cluster, cluster, "10.0.0.0/29");

  private static ObjectNode service(String spec) {
    return Cluster.json("{'metadata':{'name':'web','namespace':'default'},'spec':" + spec + "}");
  }

  @Test
  void aClusterIpComesFromTheRangeAndIsNoOneElses() {
    for (int i = 0; i < 20; i++) {
      ObjectNode web = service("{'type':'ClusterIP','ports':[{'port':80}]}");
      allocation.admit(Cluster.create(SERVICES, "default", web));
      String ip = web.at("/spec/clusterIP").asText();
      assertThat(ip).isIn("10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.6");
      assertThat(web.at("/spec/clusterIPs/0").asText()).isEqualTo(ip);
      assertThat(web.at("/spec/ipFamilies/0").asText()).isEqualTo("IPv4");
      assertThat(web.at("/spec/ipFamilyPolicy").asText()).isEqualTo("SingleStack");
    }
  }

  @Test
  void headlessAndExternalNameServicesGetNoAddress() {
    ObjectNode headless = service("{'type':'ClusterIP','clusterIP':'None'}");
    allocation.admit(Cluster.create(SERVICES, "default", headless));
    assertThat(headless.at("/spec/clusterIPs/0").asText()).isEqualTo("None");

    ObjectNode external = service("{'type':'ExternalName','externalName':'example.com'}");
    allocation.admit(Cluster.create(SERVICES, "default", external));
    assertThat(external.at("/spec").has("clusterIP")).isFalse();
  }

  @Test
  void nodePortsAreAllocatedFromTheirRangeAndATakenOneIsRefused() {
    ObjectNode web = service("{'type':'NodePort','ports':[{'port':80},{'port':443}]}");
    allocation.admit(Cluster.create(SERVICES, "default", web));
    for (var port : web.at("/spec/ports")) {
      assertThat(port.path("nodePort").asInt()).isBetween(30000, 32767).isNotEqualTo(30080);
    }

    ObjectNode clash = service("{'type':'NodePort','ports':[{'port':80,'nodePort':30080}]}");
    assertThatThrownBy(() -> allocation.admit(Cluster.create(SERVICES, "default", clash)))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.status().path("message").asText())
                    .isEqualTo(
                        "Service \"web\" is invalid: spec.ports[0].nodePort: Invalid value: 30080:"
                            + " provided port is already allocated"));
  }

  @Test
  void aRequestedClusterIpMustBeFreeAndInRange() {
    ObjectNode taken = service("{'type':'ClusterIP','clusterIP':'10.0.0.5','ports':[{'port':80}]}");
    assertThatThrownBy(() -> allocation.admit(Cluster.create(SERVICES, "default", taken)))
        .hasMessageContaining(
            "spec.clusterIPs: Invalid value: []string{\"10.0.0.5\"}: failed to allocate IP"
                + " 10.0.0.5: provided IP is already allocated");
    ObjectNode outside =
        service("{'type':'ClusterIP','clusterIP':'10.1.0.5','ports':[{'port':80}]}");
    assertThatThrownBy(() -> allocation.admit(Cluster.create(SERVICES, "default", outside)))
        .hasMessageContaining(
            "is not in the valid range. The range of valid IPs is 10.0.0.0-10.0.0.7");
  }

  @Test
  void aClusterIpIsClaimedAsAnIPAddressOfTheService() {
    ObjectNode web = service("{'type':'ClusterIP','ports':[{'port':80}]}");
    allocation.admit(Cluster.create(SERVICES, "default", web));
    String ip = web.at("/spec/clusterIP").asText();
    ObjectNode claim = cluster.get("networking.k8s.io", "ipaddresses", null, ip).orElseThrow();
    assertThat(claim.at("/spec/parentRef/resource").asText()).isEqualTo("services");
    assertThat(claim.at("/spec/parentRef/namespace").asText()).isEqualTo("default");
    assertThat(claim.at("/spec/parentRef/name").asText()).isEqualTo("web");
    assertThat(claim.at("/metadata/labels/ipaddress.kubernetes.io~1managed-by").asText())
        .isEqualTo("ipallocator.k8s.io");

    // Claimed by another Service (a gateway whose cache has not seen it yet): refused.
    ObjectNode other =
        Cluster.json(
            "{'metadata':{'name':'other','namespace':'default'},'spec':{'type':'ClusterIP',"
                + "'clusterIP':'"
                + ip
                + "','ports':[{'port':80}]}}");
    assertThatThrownBy(() -> allocation.admit(Cluster.create(SERVICES, "default", other)))
        .hasMessageContaining("provided IP is already allocated");
  }

  @Test
  void gatewaysWithStaleCachesNeverHandOutOneAddressOrNodePortTwice() throws Exception {
    // Two gateways whose caches see no Service and no claim: only the claims in the store keep
    // them apart. 60 Services into the 61 free addresses of a /26, each with two node ports: 120
    // of 2,768, where without claims about three would be handed out twice.
    Cluster store = new Cluster();
    ClusterObjects stale =
        new ClusterObjects() {
          @Override
          public java.util.Optional<ObjectNode> get(String g, String r, String ns, String n) {
            return java.util.Optional.empty();
          }

          @Override
          public java.util.Optional<ObjectNode> getFresh(String g, String r, String ns, String n) {
            return store.getFresh(g, r, ns, n);
          }

          @Override
          public void catchUp() {}

          @Override
          public java.util.List<ObjectNode> list(String g, String r, String ns) {
            return java.util.List.of();
          }
        };
    java.util.Map<String, String> owners = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.List<Thread> gateways = new java.util.ArrayList<>();
    for (int g = 0; g < 2; g++) {
      ServiceAllocation gateway = new ServiceAllocation(stale, store, "10.1.0.0/26");
      int first = g * 30;
      gateways.add(
          new Thread(
              () -> {
                for (int i = first; i < first + 30; i++) {
                  ObjectNode s =
                      Cluster.json(
                          "{'metadata':{'name':'s"
                              + i
                              + "','namespace':'default'},'spec':{'type':'NodePort',"
                              + "'ports':[{'port':80},{'port':81}]}}");
                  AdmissionRequest request = Cluster.create(SERVICES, "default", s);
                  gateway.admit(request);
                  String previous = owners.put(s.at("/spec/clusterIP").asText(), "s" + i);
                  assertThat(previous).as("a second owner of " + s.at("/spec/clusterIP")).isNull();
                  for (var port : s.at("/spec/ports")) {
                    String nodePort = port.path("nodePort").asText();
                    assertThat(owners.put(nodePort, "s" + i))
                        .as("a second owner of node port " + nodePort)
                        .isNull();
                  }
                }
              }));
    }
    gateways.forEach(Thread::start);
    for (Thread t : gateways) {
      t.join();
    }
    assertThat(owners).hasSize(180);
    assertThat(store.list("networking.k8s.io", "ipaddresses", null)).hasSize(60);
    assertThat(store.list("coordination.k8s.io", "leases", "kube-system"))
        .hasSize(120)
        .allSatisfy(
            lease -> assertThat(lease.at("/spec/holderIdentity").asText()).startsWith("default/s"));
  }

  @Test
  void aServiceRangeIsAnIpv4NetworkOfTwelveToTwentyNineBits() {
    ServiceAllocation.checkRange("127.96.0.0/12");
    ServiceAllocation.checkRange("10.0.0.0/29");
    assertThatThrownBy(() -> ServiceAllocation.checkRange("10.0.0.0/8"))
        .hasMessageContaining("its mask must be 12 to 29");
    assertThatThrownBy(() -> ServiceAllocation.checkRange("10.0.0.1/24"))
        .hasMessageContaining("must start at its network address");
    assertThatThrownBy(() -> ServiceAllocation.checkRange("fd00::/108"))
        .hasMessageContaining("must be an IPv4 CIDR");
    assertThat(ServiceAllocation.firstAddress("127.200.0.0/16")).isEqualTo("127.200.0.1");
    assertThat(ServiceAllocation.clusterDnsAddress("127.200.0.0/16")).isEqualTo("127.200.0.10");
  }
}
