package io.streamplane.node;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The variables a container gets for each Service it may see, as the kubelet writes them
 * (pkg/kubelet/envvars): {@code <NAME>_SERVICE_HOST}, {@code <NAME>_SERVICE_PORT} (the first port),
 * {@code <NAME>_SERVICE_PORT_<PORT NAME>} for each named port, and the Docker link variables {@code
 * <NAME>_PORT}, {@code <NAME>_PORT_<port>_<PROTO>} with its {@code _PROTO}, {@code _PORT} and
 * {@code _ADDR}. NAME is the Service's name upper-cased with dashes as underscores; Services
 * without a cluster IP (headless, ExternalName) give none.
 */
final class ServiceEnv {

  private ServiceEnv() {}

  /** The variables of {@code services} (Kubernetes JSON), in order; a later name wins. */
  static Map<String, String> of(List<JsonNode> services) {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode service : services) {
      String ip = service.at("/spec/clusterIP").asText("");
      JsonNode ports = service.at("/spec/ports");
      if (ip.isEmpty() || ip.equals("None") || !ports.isArray() || ports.isEmpty()) {
        continue;
      }
      String name = variable(service.at("/metadata/name").asText());
      env.put(name + "_SERVICE_HOST", ip);
      env.put(name + "_SERVICE_PORT", ports.get(0).path("port").asText());
      for (JsonNode port : ports) {
        String portName = port.path("name").asText("");
        if (!portName.isEmpty()) {
          env.put(name + "_SERVICE_PORT_" + variable(portName), port.path("port").asText());
        }
      }
      JsonNode first = ports.get(0);
      env.put(name + "_PORT", url(first, ip));
      for (JsonNode port : ports) {
        String protocol = port.path("protocol").asText("TCP");
        String prefix =
            name + "_PORT_" + port.path("port").asText() + "_" + protocol.toUpperCase(Locale.ROOT);
        env.put(prefix, url(port, ip));
        env.put(prefix + "_PROTO", protocol.toLowerCase(Locale.ROOT));
        env.put(prefix + "_PORT", port.path("port").asText());
        env.put(prefix + "_ADDR", ip);
      }
    }
    return env;
  }

  private static String url(JsonNode port, String ip) {
    return port.path("protocol").asText("TCP").toLowerCase(Locale.ROOT)
        + "://"
        + ip
        + ":"
        + port.path("port").asText();
  }

  private static String variable(String name) {
    return name.toUpperCase(Locale.ROOT).replace('-', '_');
  }
}
