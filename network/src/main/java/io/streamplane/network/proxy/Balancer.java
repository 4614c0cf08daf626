package io.streamplane.network.proxy;

import io.streamplane.network.ServiceTable;
import io.streamplane.network.ServiceTable.Backend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Chooses the endpoint of a new connection: the ready endpoints of the Service port in turn, or,
 * under {@code sessionAffinity: ClientIP}, the one the client's address had last, while it stays
 * ready and the affinity has not timed out (kube-proxy's {@code recent} match).
 */
final class Balancer {

  private record Client(ServiceProxy.Frontend frontend, String clientIp) {}

  private record Stuck(Backend backend, long untilNanos) {}

  /** Past this many remembered clients, the expired ones are forgotten before one is added. */
  private static final int MAX_CLIENTS = 10_000;

  private final ServiceTable table;
  private final Map<ServiceProxy.Frontend, AtomicInteger> turns = new ConcurrentHashMap<>();
  private final Map<Client, Stuck> affinity = new ConcurrentHashMap<>();

  Balancer(ServiceTable table) {
    this.table = table;
  }

  /** The endpoint for a new connection from {@code clientIp}, or null when none is ready. */
  Backend choose(ServiceProxy.Frontend frontend, ServiceProxy.Route route, String clientIp) {
    List<Backend> ready = table.backends(route.namespace(), route.service(), route.port());
    if (ready.isEmpty()) {
      return null;
    }
    long now = System.nanoTime();
    Client client = new Client(frontend, clientIp);
    if (route.affinitySeconds() > 0) {
      Stuck stuck = affinity.get(client);
      if (stuck != null && stuck.untilNanos() - now > 0 && ready.contains(stuck.backend())) {
        affinity.put(
            client, new Stuck(stuck.backend(), now + route.affinitySeconds() * 1_000_000_000L));
        return stuck.backend();
      }
    }
    int turn = turns.computeIfAbsent(frontend, f -> new AtomicInteger()).getAndIncrement();
    Backend chosen = ready.get(Math.floorMod(turn, ready.size()));
    if (route.affinitySeconds() > 0) {
      if (affinity.size() >= MAX_CLIENTS) {
        affinity.values().removeIf(s -> s.untilNanos() - now <= 0);
      }
      affinity.put(client, new Stuck(chosen, now + route.affinitySeconds() * 1_000_000_000L));
    }
    return chosen;
  }
}
