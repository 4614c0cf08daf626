package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.storage.ReadAt;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The proxy subresources, as kube-apiserver's: {@code /api/v1/nodes/{name}/proxy/{path}} reaches
 * the node's kubelet-style server ({@code /stats/summary}, {@code /metrics}, {@code /configz},
 * {@code /logs/}, {@code /containerLogs/...}), and {@code
 * /api/v1/namespaces/{ns}/pods/{name}[:{port}]/proxy/{path}} the pod's IP on that port (the first
 * declared container port, else 80). Method, query, body and headers go through (but the caller's
 * credentials and the hop-by-hop headers); the answer comes back as the target gave it. Every
 * request has passed the {@link HandlerChain} (a {@code get}, {@code create}, ... of {@code
 * nodes/proxy} or {@code pods/proxy}).
 *
 * <p>Differences: one node server may serve several nodes of one process (a node fleet), so a node
 * request carries the node's name in {@code X-Streamplane-Node}; plain HTTP to nodes and pods.
 */
final class Proxies extends Handler.Wrapper {

  static final Pattern NODE = Pattern.compile("^/api/v1/nodes/([^/]+)/proxy(/.*)?$");
  static final Pattern POD =
      Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/:]+)(?::(\\d+))?/proxy(/.*)?$");
  static final Pattern SERVICE =
      Pattern.compile("^/api/v1/namespaces/([^/]+)/services/([^/:]+)(?::([^/]+))?/proxy(/.*)?$");

  /** The header that names the node a node server answers for. */
  static final String NODE_HEADER = "X-Streamplane-Node";

  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "authorization",
          "connection",
          "content-length",
          "host",
          "impersonate-user",
          "impersonate-group",
          "keep-alive",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "expect");

  private final ResourceService service;
  private final ResourceType pods;
  private final ResourceType nodes;
  private final ResourceType services;
  private final Random random = new Random();
  private final HttpClient http = PodLogs.NODES;

  Proxies(ResourceRegistry registry, ResourceService service) {
    this.service = service;
    this.pods = registry.byResource("", "pods").orElseThrow();
    this.nodes = registry.byResource("", "nodes").orElseThrow();
    this.services = registry.byResource("", "services").orElseThrow();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getPath();
    Matcher node = NODE.matcher(path);
    Matcher pod = POD.matcher(path);
    Matcher toService = SERVICE.matcher(path);
    try {
      if (toService.matches()) {
        String target = serviceTarget(toService.group(1), toService.group(2), toService.group(3));
        forward(request, response, callback, target + rest(toService.group(4)), null);
        return true;
      }
      if (node.matches()) {
        ObjectNode object = service.get(nodes, null, node.group(1));
        String target = "http://" + PodLogs.hostPort(object) + rest(node.group(2));
        forward(request, response, callback, target, node.group(1));
        return true;
      }
      if (pod.matches()) {
        ObjectNode object = service.get(pods, pod.group(1), pod.group(2));
        String ip = object.at("/status/podIP").asText("");
        if (ip.isEmpty()) {
          throw new ApiException(
              Statuses.failure(
                  503,
                  "ServiceUnavailable",
                  "address not allowed",
                  Statuses.details("", "pods", pod.group(2))));
        }
        int port = pod.group(3) != null ? Integer.parseInt(pod.group(3)) : firstPort(object);
        String host = ip.contains(":") ? "[" + ip + "]" : ip;
        forward(
            request, response, callback, "http://" + host + ":" + port + rest(pod.group(4)), null);
        return true;
      }
    } catch (ApiException e) {
      Responses.status(response, callback, e.status());
      return true;
    }
    return super.handle(request, response, callback);
  }

  /**
   * Where a service's proxy goes, as kube-apiserver's service proxy picks it: a ready pod the
   * service selects, at the target port of the service port named or numbered in the URL (the first
   * port when none is); a named target port is looked up in the pod's containers.
   */
  private String serviceTarget(String namespace, String name, String portName) {
    ObjectNode svc = service.get(services, namespace, name);
    JsonNode ports = svc.at("/spec/ports");
    JsonNode port = null;
    for (JsonNode p : ports) {
      if (portName == null
          || portName.equals(p.path("name").asText())
          || portName.equals(p.path("port").asText())) {
        port = p;
        break;
      }
    }
    JsonNode selector = svc.at("/spec/selector");
    if (port == null || !selector.isObject() || selector.isEmpty()) {
      throw unavailable(name);
    }
    StringBuilder labels = new StringBuilder();
    selector
        .properties()
        .forEach(
            e ->
                labels
                    .append(labels.isEmpty() ? "" : ",")
                    .append(e.getKey())
                    .append('=')
                    .append(e.getValue().asText()));
    List<JsonNode> ready = new ArrayList<>();
    for (JsonNode pod :
        service
            .list(
                pods,
                namespace,
                Selectors.parseLabels(labels.toString()),
                Selectors.parseFields(null, pods),
                0,
                null,
                ReadAt.latest())
            .path("items")) {
      if (!pod.at("/status/podIP").asText("").isEmpty() && ready(pod)) {
        ready.add(pod);
      }
    }
    if (ready.isEmpty()) {
      throw unavailable(name);
    }
    JsonNode chosen = ready.get(random.nextInt(ready.size()));
    JsonNode targetPort = port.path("targetPort");
    int number =
        targetPort.isNumber() ? targetPort.asInt() : containerPort(chosen, targetPort.asText());
    if (number <= 0) {
      throw unavailable(name);
    }
    String ip = chosen.at("/status/podIP").asText();
    return "http://" + (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + number;
  }

  private static boolean ready(JsonNode pod) {
    for (JsonNode condition : pod.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Ready")) {
        return condition.path("status").asText().equals("True");
      }
    }
    return false;
  }

  private static int containerPort(JsonNode pod, String name) {
    for (JsonNode container : pod.at("/spec/containers")) {
      for (JsonNode port : container.path("ports")) {
        if (name.equals(port.path("name").asText())) {
          return port.path("containerPort").asInt();
        }
      }
    }
    return 0;
  }

  private static ApiException unavailable(String name) {
    return new ApiException(
        Statuses.failure(
            503,
            "ServiceUnavailable",
            "no endpoints available for service \"" + name + "\"",
            Statuses.details("", "services", name)));
  }

  private static String rest(String path) {
    return path == null || path.isEmpty() ? "/" : path;
  }

  private static int firstPort(JsonNode pod) {
    for (JsonNode container : pod.at("/spec/containers")) {
      for (JsonNode port : container.path("ports")) {
        if (port.path("containerPort").asInt(0) > 0) {
          return port.path("containerPort").asInt();
        }
      }
    }
    return 80;
  }

  private void forward(
      Request request, Response response, Callback callback, String target, String nodeName)
      throws IOException {
    String query = request.getHttpURI().getQuery();
    byte[] body = Content.Source.asInputStream(request).readAllBytes();
    HttpRequest.Builder out =
        HttpRequest.newBuilder(URI.create(target + (query == null ? "" : "?" + query)))
            .timeout(Duration.ofMinutes(1))
            .method(
                request.getMethod(),
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    for (HttpField field : request.getHeaders()) {
      if (!NOT_FORWARDED.contains(field.getName().toLowerCase(Locale.ROOT))) {
        try {
          out.header(field.getName(), field.getValue());
        } catch (IllegalArgumentException restricted) {
          // a header the JDK client sets itself
        }
      }
    }
    if (nodeName != null) {
      out.setHeader(NODE_HEADER, nodeName);
    }
    HttpResponse<InputStream> answer;
    try {
      answer = http.send(out.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(Statuses.internalError("interrupted"));
    } catch (IOException e) {
      throw new ApiException(
          Statuses.failure(
              503, "ServiceUnavailable", "error trying to reach service: " + e.getMessage(), null));
    }
    response.setStatus(answer.statusCode());
    answer
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))
                  && !name.equalsIgnoreCase(HttpHeader.CONTENT_LENGTH.asString())) {
                values.forEach(v -> response.getHeaders().add(name, v));
              }
            });
    byte[] content;
    try (InputStream in = answer.body()) {
      content = in.readAllBytes();
    }
    response.write(true, ByteBuffer.wrap(content), callback);
  }
}
