package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.ServiceClaim;
import io.streamplane.gateway.admission.SystemWrites;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.StoredObjects;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repair loop of the service allocator, as kube-apiserver's {@code RepairIPAddress} and its
 * node-port repair, for every kind of {@link ServiceClaim}: every value a Service holds has the
 * object that claims it (one missing — a Service written before claims existed — is made), and a
 * claim of the allocator whose Service is gone or holds another value is deleted once it is older
 * than the grace (a claim younger than that may belong to a create still in flight). So a value is
 * released after its Service is deleted or stops holding it, and the claim of a create that never
 * completed — refused after admission, or its gateway killed between the claim and the write — does
 * not leak. Every gateway runs it; two deleting one claim or making one is a 404 or a 409, no harm.
 */
final class ServiceAllocationRepair {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceAllocationRepair.class);

  /**
   * How old an orphaned claim must be before it is released by default: longer than a create may
   * take between its claim and its write (the gateway's write timeout, 30 s), so no claim of a
   * create still in flight is taken away.
   */
  static final Duration GRACE = Duration.ofSeconds(60);

  /** The system property that shortens or lengthens {@link #GRACE}, as an ISO-8601 duration. */
  static final String GRACE_PROPERTY = "streamplane.service-allocation.grace";

  private final StoredObjects cache;
  private final SystemWrites writes;
  private final Clock clock;
  private final Duration grace;

  ServiceAllocationRepair(StoredObjects cache, SystemWrites writes, Clock clock, Duration grace) {
    this.cache = cache;
    this.writes = writes;
    this.clock = clock;
    this.grace = grace;
  }

  /** The grace {@link #GRACE_PROPERTY} names, or {@link #GRACE}. */
  static Duration configuredGrace() {
    String value = System.getProperty(GRACE_PROPERTY);
    return value == null ? GRACE : Duration.parse(value);
  }

  /** One pass over every Service and claim; returns how many claims it made and deleted. */
  int[] repair() {
    int[] total = new int[2];
    List<ObjectNode> services = cache.list("", "services", null, o -> true).items();
    for (ServiceClaim kind : ServiceClaim.values()) {
      int[] counts = repair(kind, services);
      total[0] += counts[0];
      total[1] += counts[1];
    }
    return total;
  }

  /** A value a Service holds, and the Service as {@code <ns>/<name>}. */
  private record Held(String value, String owner) {}

  private int[] repair(ServiceClaim kind, List<ObjectNode> services) {
    // By the name of the claim each value needs.
    Map<String, Held> held = new HashMap<>();
    for (ObjectNode svc : services) {
      String owner =
          svc.at("/metadata/namespace").asText() + "/" + svc.at("/metadata/name").asText();
      for (String value : kind.values(svc)) {
        Held previous = held.put(kind.name(value), new Held(value, owner));
        if (previous != null) {
          LOG.warn("{} {} is held by two Services, {} and {}", kind, value, previous.owner, owner);
        }
      }
    }
    Map<String, ObjectNode> claims = new HashMap<>();
    for (ObjectNode claim :
        cache.list(kind.group, kind.resource, kind.namespace, o -> true).items()) {
      claims.put(claim.at("/metadata/name").asText(), claim);
    }
    int made = 0;
    int deleted = 0;
    for (Map.Entry<String, Held> needed : held.entrySet()) {
      if (claims.containsKey(needed.getKey())) {
        continue;
      }
      Held h = needed.getValue();
      String[] owner = h.owner.split("/", 2);
      try {
        writes.create(
            kind.group, kind.resource, kind.namespace, kind.object(h.value, owner[0], owner[1]));
        made++;
      } catch (ApiException e) {
        if (e.code() != 409) {
          LOG.warn("could not claim {} {} for {}: {}", kind, h.value, h.owner, e.getMessage());
        }
      }
    }
    Instant now = clock.instant();
    for (ObjectNode claim : claims.values()) {
      String name = claim.at("/metadata/name").asText();
      Held holder = held.get(name);
      if (!kind.ours(claim)
          || (holder != null && kind.holder(claim).equals(holder.owner))
          || !older(claim, now)) {
        continue;
      }
      try {
        writes.delete(kind.group, kind.resource, kind.namespace, name);
        deleted++;
      } catch (ApiException e) {
        LOG.warn("could not release {} {}: {}", kind, name, e.getMessage());
      }
    }
    return new int[] {made, deleted};
  }

  /**
   * Releases the claims of a Service whose deletion was just seen: those that name it as holder,
   * for a value it held, made no later than it was (so not the claim of a create of the same name
   * in flight since), unless a Service of the name holds the value again. Returns how many it
   * deleted.
   */
  int releaseDeleted(ObjectNode deleted) {
    String namespace = deleted.at("/metadata/namespace").asText();
    String name = deleted.at("/metadata/name").asText();
    Instant created = timestamp(deleted);
    if (created == null) {
      return 0;
    }
    ObjectNode now = cache.get("", "services", namespace, name).orElse(null);
    int released = 0;
    for (ServiceClaim kind : ServiceClaim.values()) {
      for (String value : kind.values(deleted)) {
        if (now != null && kind.values(now).contains(value)) {
          continue;
        }
        ObjectNode claim =
            cache.get(kind.group, kind.resource, kind.namespace, kind.name(value)).orElse(null);
        Instant claimed = claim == null ? null : timestamp(claim);
        if (claimed == null
            || !kind.ours(claim)
            || !kind.holder(claim).equals(namespace + "/" + name)
            || claimed.isAfter(created)) {
          continue;
        }
        try {
          writes.delete(kind.group, kind.resource, kind.namespace, kind.name(value));
          released++;
        } catch (ApiException e) {
          LOG.warn("could not release {} {}: {}", kind, value, e.getMessage());
        }
      }
    }
    return released;
  }

  private static Instant timestamp(ObjectNode object) {
    try {
      return Instant.parse(object.at("/metadata/creationTimestamp").asText());
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private boolean older(ObjectNode claim, Instant now) {
    Instant created = timestamp(claim);
    return created != null && created.plus(grace).isBefore(now);
  }
}
