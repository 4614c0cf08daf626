package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
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
import java.util.Locale;
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
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  Proxies(ResourceRegistry registry, ResourceService service) {
    this.service = service;
    this.pods = registry.byResource("", "pods").orElseThrow();
    this.nodes = registry.byResource("", "nodes").orElseThrow();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getPath();
    Matcher node = NODE.matcher(path);
    Matcher pod = POD.matcher(path);
    try {
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
