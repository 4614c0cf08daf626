package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.ServiceAllocation;
import io.streamplane.gateway.admission.SystemWrites;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.StoredObjects;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repair loop of the cluster IP allocator, as kube-apiserver's {@code RepairIPAddress}: every
 * Service with a cluster IP has the IPAddress that claims it (one missing — a Service written
 * before claims existed — is made), and a claim of the allocator whose Service is gone or holds
 * another address is deleted once it is older than {@link #GRACE} (a claim younger than that may
 * belong to a create still in flight). So an address is released after its Service is deleted, and
 * the claim of a create that never completed — refused after admission, or its gateway killed
 * between the claim and the write — does not leak. Every gateway runs it; two deleting one claim or
 * making one is a 404 or a 409, no harm.
 */
final class ServiceAddressRepair {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceAddressRepair.class);

  /**
   * How old an orphaned claim must be before it is released: longer than a create may take between
   * its claim and its write (the gateway's write timeout, 30 s), so no claim of a create still in
   * flight is taken away.
   */
  static final Duration GRACE = Duration.ofSeconds(60);

  private static final String GROUP = "networking.k8s.io";
  private static final String IP_ADDRESSES = "ipaddresses";

  private final StoredObjects cache;
  private final SystemWrites writes;
  private final Clock clock;

  ServiceAddressRepair(StoredObjects cache, SystemWrites writes, Clock clock) {
    this.cache = cache;
    this.writes = writes;
    this.clock = clock;
  }

  /** One pass over every Service and claim; returns how many claims it made and deleted. */
  int[] repair() {
    Map<String, String> holders = new HashMap<>();
    for (ObjectNode svc : cache.list("", "services", null, o -> true).items()) {
      String owner =
          svc.at("/metadata/namespace").asText() + "/" + svc.at("/metadata/name").asText();
      for (JsonNode ip : svc.at("/spec/clusterIPs")) {
        if (!ip.asText().isEmpty() && !ip.asText().equals("None")) {
          String previous = holders.put(ip.asText(), owner);
          if (previous != null) {
            LOG.warn(
                "cluster IP {} is held by two Services, {} and {}", ip.asText(), previous, owner);
          }
        }
      }
    }
    Map<String, ObjectNode> claims = new HashMap<>();
    for (ObjectNode claim : cache.list(GROUP, IP_ADDRESSES, null, o -> true).items()) {
      claims.put(claim.at("/metadata/name").asText(), claim);
    }
    int made = 0;
    int deleted = 0;
    for (Map.Entry<String, String> held : holders.entrySet()) {
      if (!claims.containsKey(held.getKey())) {
        String[] owner = held.getValue().split("/", 2);
        try {
          writes.create(
              GROUP,
              IP_ADDRESSES,
              null,
              ServiceAllocation.ipAddress(held.getKey(), owner[0], owner[1]));
          made++;
        } catch (ApiException e) {
          if (e.code() != 409) {
            LOG.warn(
                "could not claim {} for {}: {}", held.getKey(), held.getValue(), e.getMessage());
          }
        }
      }
    }
    Instant now = clock.instant();
    for (ObjectNode claim : claims.values()) {
      String ip = claim.at("/metadata/name").asText();
      JsonNode parent = claim.at("/spec/parentRef");
      boolean ours =
          ServiceAllocation.ALLOCATOR.equals(
                  claim.at("/metadata/labels").path(ServiceAllocation.MANAGED_BY).asText())
              && parent.path("resource").asText().equals("services");
      String owner = parent.path("namespace").asText() + "/" + parent.path("name").asText();
      if (!ours || owner.equals(holders.get(ip)) || !older(claim, now)) {
        continue;
      }
      try {
        writes.delete(GROUP, IP_ADDRESSES, null, ip);
        deleted++;
      } catch (ApiException e) {
        LOG.warn("could not release {}: {}", ip, e.getMessage());
      }
    }
    return new int[] {made, deleted};
  }

  private static boolean older(ObjectNode claim, Instant now) {
    try {
      Instant created = Instant.parse(claim.at("/metadata/creationTimestamp").asText());
      return created.plus(GRACE).isBefore(now);
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
