package io.streamplane.network;

import io.streamplane.api.DiscoveryV1EndpointPort;
import io.streamplane.api.EndpointConditions;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Services of the cluster and the endpoints behind them: what kube-proxy and CoreDNS watch.
 *
 * <p>A Service's endpoints are those of its EndpointSlices (labelled {@code
 * kubernetes.io/service-name}), as kube-proxy and CoreDNS read them, and only those: a Service
 * without a selector, whose Endpoints are written by hand or by the gateway ({@code kubernetes},
 * {@code kube-dns}), has the slices the controllers mirror from its Endpoints, and none until they
 * have (none at all on a cluster that runs no controllers).
 *
 * <p>{@link ServiceTableReader} fills it from the log; the proxy and the DNS server read it. Reads
 * are safe from any thread; a change is visible to the next lookup, and {@link Listener}s hear of
 * each batch of changes once it is applied.
 */
public final class ServiceTable {

  /** Told after a batch of changes has been applied. */
  public interface Listener {
    void changed();
  }

  /**
   * One address behind a Service: its IP, its hostname in the Service's subdomain (or null), its
   * conditions, and its ports by the Service port's name ({@code ""} for the one unnamed port).
   */
  public record Endpoint(
      String ip,
      String hostname,
      boolean ready,
      boolean serving,
      boolean terminating,
      Map<String, Port> ports) {}

  /** A port of an endpoint: its number and protocol. */
  public record Port(int port, String protocol) {}

  /** The label naming the Service an EndpointSlice is of. */
  public static final String SERVICE_NAME = "kubernetes.io/service-name";

  private final Map<String, Service> services = new ConcurrentHashMap<>();

  /** Each Service's slices' endpoints, by slice name. */
  private final Map<String, Map<String, List<Endpoint>>> slices = new ConcurrentHashMap<>();

  /** The Service each slice is of, by slice key. */
  private final Map<String, String> sliceOwners = new ConcurrentHashMap<>();

  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  /** A Service as the log has it now; null removes it. */
  public void putService(String namespace, String name, Service service) {
    if (service == null) {
      services.remove(key(namespace, name));
    } else {
      services.put(key(namespace, name), service);
    }
  }

  /** An EndpointSlice as the log has it now; null removes it. */
  public void putSlice(String namespace, String name, EndpointSlice slice) {
    String sliceKey = key(namespace, name);
    String previous = sliceOwners.remove(sliceKey);
    if (previous != null) {
      slices.computeIfPresent(
          previous,
          (service, byName) -> {
            byName.remove(name);
            return byName.isEmpty() ? null : byName;
          });
    }
    String service =
        slice == null || slice.getMetadata().getLabels() == null
            ? null
            : slice.getMetadata().getLabels().get(SERVICE_NAME);
    if (service == null) {
      return;
    }
    String serviceKey = key(namespace, service);
    sliceOwners.put(sliceKey, serviceKey);
    slices
        .computeIfAbsent(serviceKey, k -> new ConcurrentHashMap<>())
        .put(name, List.copyOf(flatten(slice)));
  }

  /** Tells the listeners that a batch of changes is in. */
  public void changed() {
    for (Listener listener : listeners) {
      listener.changed();
    }
  }

  public Collection<Service> services() {
    return services.values();
  }

  public Optional<Service> service(String namespace, String name) {
    return Optional.ofNullable(services.get(key(namespace, name)));
  }

  /** Every endpoint of a Service's slices, ready or not. */
  public List<Endpoint> endpoints(String namespace, String name) {
    Map<String, List<Endpoint>> ofService = slices.get(key(namespace, name));
    if (ofService == null) {
      return List.of();
    }
    List<Endpoint> all = new ArrayList<>();
    new java.util.TreeMap<>(ofService).values().forEach(all::addAll);
    return all;
  }

  /**
   * Where a connection to one port of a Service may go, as {@code ip:port} pairs: its ready
   * endpoints, or, when none is ready, those still serving while they terminate (kube-proxy's
   * terminating-endpoints fallback).
   */
  public List<Backend> backends(String namespace, String name, ServicePort servicePort) {
    String portName = servicePort.getName() == null ? "" : servicePort.getName();
    String protocol = protocol(servicePort.getProtocol());
    List<Backend> ready = new ArrayList<>();
    List<Backend> terminating = new ArrayList<>();
    for (Endpoint endpoint : endpoints(namespace, name)) {
      Port port = endpoint.ports().get(portName);
      if (port == null || !port.protocol().equals(protocol)) {
        continue;
      }
      Backend backend = new Backend(endpoint.ip(), port.port());
      if (endpoint.ready()) {
        ready.add(backend);
      } else if (endpoint.serving() && endpoint.terminating()) {
        terminating.add(backend);
      }
    }
    return ready.isEmpty() ? terminating : ready;
  }

  /** An address a connection can be sent to. */
  public record Backend(String ip, int port) {}

  /** The protocol of a port, TCP when unset, as Kubernetes defaults it. */
  public static String protocol(String protocol) {
    return protocol == null || protocol.isEmpty() ? "TCP" : protocol;
  }

  /** Whether a Service has a cluster IP the proxy serves (not headless, not ExternalName). */
  public static boolean hasClusterIP(Service service) {
    String ip = service.getSpec() == null ? null : service.getSpec().getClusterIP();
    return ip != null && !ip.isEmpty() && !ip.equals("None");
  }

  /** A slice's endpoints, one per address; an unset condition is true but terminating's. */
  private static List<Endpoint> flatten(EndpointSlice slice) {
    Map<String, Port> ports = new java.util.LinkedHashMap<>();
    for (DiscoveryV1EndpointPort port : list(slice.getPorts())) {
      if (port.getPort() != null) {
        ports.put(
            Objects.requireNonNullElse(port.getName(), ""),
            new Port(port.getPort(), protocol(port.getProtocol())));
      }
    }
    Map<String, Port> shared = Map.copyOf(ports);
    List<Endpoint> flat = new ArrayList<>();
    for (io.streamplane.api.Endpoint endpoint : list(slice.getEndpoints())) {
      EndpointConditions conditions = endpoint.getConditions();
      boolean ready = conditions == null || !Boolean.FALSE.equals(conditions.getReady());
      boolean serving =
          conditions == null || conditions.getServing() == null ? ready : conditions.getServing();
      boolean terminating = conditions != null && Boolean.TRUE.equals(conditions.getTerminating());
      for (String address : list(endpoint.getAddresses())) {
        flat.add(
            new Endpoint(address, endpoint.getHostname(), ready, serving, terminating, shared));
      }
    }
    return flat;
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
