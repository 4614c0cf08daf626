package io.streamplane.gateway.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.ServiceClaim;
import io.streamplane.gateway.admission.SystemWrites;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.cache.ListVersion;
import io.streamplane.gateway.cache.StoredObjects;
import io.streamplane.gateway.cache.WatchCache;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The repair loop over an in-memory store that stamps creationTimestamp as the store does, with a
 * clock the test moves.
 */
class ServiceAllocationRepairTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private Instant now = Instant.parse("2026-11-26T12:00:00Z");
  private final Store store = new Store();
  private final ServiceAllocationRepair repair =
      new ServiceAllocationRepair(
          store,
          store,
          new Clock() {
            @Override
            public ZoneOffset getZone() {
              return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
              return this;
            }

            @Override
            public Instant instant() {
              return now;
            }
          },
          ServiceAllocationRepair.GRACE);

  @Test
  void aServiceWithoutAClaimGetsOneAndAClaimedOneIsLeftAlone() {
    store.service("default", "old", "127.96.0.7");
    store.service("default", "web", "127.96.0.8");
    store.create(
        "networking.k8s.io",
        "ipaddresses",
        null,
        ServiceClaim.CLUSTER_IP.object("127.96.0.8", "default", "web"));

    assertThat(repair.repair()).containsExactly(1, 0);
    assertThat(store.claim("127.96.0.7").at("/spec/parentRef/name").asText()).isEqualTo("old");
    assertThat(repair.repair()).containsExactly(0, 0);
  }

  @Test
  void theClaimOfACreateThatNeverCompletedIsReleasedAfterTheGrace() {
    // A gateway claimed 127.96.0.9 for "ghost", then died before writing the Service.
    store.create(
        "networking.k8s.io",
        "ipaddresses",
        null,
        ServiceClaim.CLUSTER_IP.object("127.96.0.9", "default", "ghost"));
    assertThat(repair.repair()).containsExactly(0, 0); // may still be in flight

    now = now.plus(ServiceAllocationRepair.GRACE).plusSeconds(1);
    assertThat(repair.repair()).containsExactly(0, 1);
    assertThat(store.objects).doesNotContainKey("networking.k8s.io/ipaddresses//127.96.0.9");
  }

  @Test
  void aDeletedServicesAddressIsReleasedAndOnlyTheAllocatorsClaimsAreTouched() {
    store.service("default", "web", "127.96.0.8");
    assertThat(repair.repair()).containsExactly(1, 0);
    ObjectNode foreign = ServiceClaim.CLUSTER_IP.object("127.96.0.20", "default", "gone");
    foreign.with("metadata").with("labels").put(ServiceClaim.CLUSTER_IP.managedBy, "someone-else");
    store.create("networking.k8s.io", "ipaddresses", null, foreign);

    store.objects.remove("/services/default/web");
    now = now.plus(ServiceAllocationRepair.GRACE).plusSeconds(1);
    assertThat(repair.repair()).containsExactly(0, 1);
    assertThat(store.objects).containsOnlyKeys("networking.k8s.io/ipaddresses//127.96.0.20");
  }

  @Test
  void aDeletedServicesClaimsAreReleasedAtOnceButNotThoseOfACreateOfItsNameInFlight() {
    ObjectNode web = store.service("default", "web", "127.96.0.8");
    web.with("spec").putArray("ports").addObject().put("port", 80).put("nodePort", 30080);
    web.with("metadata").put("creationTimestamp", now.toString());
    assertThat(repair.repair()).containsExactly(2, 0);
    store.objects.remove("/services/default/web");
    now = now.plusSeconds(5);
    // A create of "web" again, in flight: it claimed another address after the deletion.
    store.create(
        "networking.k8s.io",
        "ipaddresses",
        null,
        ServiceClaim.CLUSTER_IP.object("127.96.0.9", "default", "web"));

    assertThat(repair.releaseDeleted(web)).isEqualTo(2); // within the grace
    assertThat(store.objects)
        .containsOnlyKeys("networking.k8s.io/ipaddresses//127.96.0.9"); // the new create's
  }

  @Test
  void nodePortsAreClaimedAndReleasedAsLeasesOfKubeSystem() {
    ObjectNode web = store.service("default", "web", "127.96.0.8");
    ArrayNode ports = web.with("spec").putArray("ports");
    ports.addObject().put("port", 80).put("nodePort", 30080);
    ports.addObject().put("port", 81).put("nodePort", 30081);
    assertThat(repair.repair()).containsExactly(3, 0); // one address, two ports
    ObjectNode lease = store.objects.get("coordination.k8s.io/leases/kube-system/nodeport-30080");
    assertThat(lease.at("/spec/holderIdentity").asText()).isEqualTo("default/web");
    assertThat(ServiceClaim.NODE_PORT.ours(lease)).isTrue();

    // The Service stops holding 30081: its claim goes after the grace, 30080's stays.
    ports.remove(1);
    assertThat(repair.repair()).containsExactly(0, 0);
    now = now.plus(ServiceAllocationRepair.GRACE).plusSeconds(1);
    assertThat(repair.repair()).containsExactly(0, 1);
    assertThat(store.objects)
        .containsKey("coordination.k8s.io/leases/kube-system/nodeport-30080")
        .doesNotContainKey("coordination.k8s.io/leases/kube-system/nodeport-30081");

    // A Lease that only looks like a claim (another writer's) is never touched.
    ObjectNode other = ServiceClaim.NODE_PORT.object("30090", "default", "gone");
    other.with("metadata").remove("labels");
    store.create("coordination.k8s.io", "leases", "kube-system", other);
    now = now.plus(ServiceAllocationRepair.GRACE).plusSeconds(1);
    assertThat(repair.repair()).containsExactly(0, 0);
  }

  /** Objects by "group/resource/namespace/name"; creates stamp creationTimestamp with the clock. */
  private final class Store implements StoredObjects, SystemWrites {
    final TreeMap<String, ObjectNode> objects = new TreeMap<>();

    ObjectNode service(String namespace, String name, String ip) {
      ObjectNode service = JSON.createObjectNode();
      service.putObject("metadata").put("namespace", namespace).put("name", name);
      service.putObject("spec").put("clusterIP", ip).putArray("clusterIPs").add(ip);
      objects.put("/services/" + namespace + "/" + name, service);
      return service;
    }

    ObjectNode claim(String ip) {
      return objects.get("networking.k8s.io/ipaddresses//" + ip);
    }

    @Override
    public Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
      return Optional.ofNullable(objects.get(key(group, resource, namespace, name)));
    }

    @Override
    public WatchCache.Snapshot list(
        String group, String resource, String namespace, Predicate<ObjectNode> filter) {
      List<ObjectNode> items = new ArrayList<>();
      objects.forEach(
          (k, v) -> {
            if (k.startsWith(group + "/" + resource + "/") && filter.test(v)) {
              items.add(v.deepCopy());
            }
          });
      return new WatchCache.Snapshot(items, new ListVersion(new long[0]));
    }

    @Override
    public ListVersion version() {
      return new ListVersion(new long[0]);
    }

    @Override
    public void catchUpWithLog(Duration timeout) {}

    @Override
    public void writeStatus(String group, String resource, String namespace, ObjectNode object) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode create(String group, String resource, String namespace, ObjectNode object) {
      String key = key(group, resource, namespace, object.at("/metadata/name").asText());
      if (objects.containsKey(key)) {
        throw new ApiException(Statuses.failure(409, "AlreadyExists", key, null));
      }
      ObjectNode written = object.deepCopy();
      written.with("metadata").put("creationTimestamp", now.toString());
      objects.put(key, written);
      return written;
    }

    @Override
    public void delete(String group, String resource, String namespace, String name) {
      objects.remove(key(group, resource, namespace, name));
    }

    private String key(String group, String resource, String namespace, String name) {
      return group + "/" + resource + "/" + (namespace == null ? "" : namespace) + "/" + name;
    }
  }
}
