package io.streamplane.network;

import io.streamplane.api.EndpointAddress;
import io.streamplane.api.EndpointPort;
import io.streamplane.api.EndpointSubset;
import io.streamplane.api.Endpoints;
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
   * One address behind a Service: its IP, its hostname in the Service's subdomain (or null), and
   * its ports by the Service port's name ({@code ""} for the one unnamed port).
   */
  public record Endpoint(String ip, String hostname, boolean ready, Map<String, Port> ports) {}

  /** A port of an endpoint: its number and protocol. */
  public record Port(int port, String protocol) {}

  private final Map<String, Service> services = new ConcurrentHashMap<>();
  private final Map<String, List<Endpoint>> endpoints = new ConcurrentHashMap<>();
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

  /** A Service's Endpoints as the log has them now; null removes them. */
  public void putEndpoints(String namespace, String name, Endpoints object) {
    if (object == null) {
      endpoints.remove(key(namespace, name));
    } else {
      endpoints.put(key(namespace, name), List.copyOf(flatten(object)));
    }
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

  /** Every endpoint of a Service, ready or not. */
  public List<Endpoint> endpoints(String namespace, String name) {
    return endpoints.getOrDefault(key(namespace, name), List.of());
  }

  /**
   * The ready endpoints of one port of a Service, as {@code ip:port} pairs: where a connection to
   * that port may go.
   */
  public List<Backend> backends(String namespace, String name, ServicePort servicePort) {
    String portName = servicePort.getName() == null ? "" : servicePort.getName();
    String protocol = protocol(servicePort.getProtocol());
    List<Backend> backends = new ArrayList<>();
    for (Endpoint endpoint : endpoints(namespace, name)) {
      Port port = endpoint.ports().get(portName);
      if (endpoint.ready() && port != null && port.protocol().equals(protocol)) {
        backends.add(new Backend(endpoint.ip(), port.port()));
      }
    }
    return backends;
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

  private static List<Endpoint> flatten(Endpoints object) {
    List<Endpoint> flat = new ArrayList<>();
    for (EndpointSubset subset : list(object.getSubsets())) {
      Map<String, Port> ports = new java.util.LinkedHashMap<>();
      for (EndpointPort port : list(subset.getPorts())) {
        if (port.getPort() != null) {
          ports.put(
              Objects.requireNonNullElse(port.getName(), ""),
              new Port(port.getPort(), protocol(port.getProtocol())));
        }
      }
      Map<String, Port> shared = Map.copyOf(ports);
      for (EndpointAddress address : list(subset.getAddresses())) {
        flat.add(new Endpoint(address.getIp(), address.getHostname(), true, shared));
      }
      for (EndpointAddress address : list(subset.getNotReadyAddresses())) {
        flat.add(new Endpoint(address.getIp(), address.getHostname(), false, shared));
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
