package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.audit.RequestAudit;
import io.streamplane.gateway.request.QueryBooleans;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The {@code pods/log} subresource, as kube-apiserver's {@code LogREST} serves it: decode and
 * validate the {@code PodLogOptions} query, read the pod, pick the container, find its node's
 * kubelet endpoint and proxy {@code /containerLogs/{namespace}/{pod}/{container}} there, streaming
 * the answer as it arrives (so {@code kubectl logs -f} follows).
 *
 * <p>Contract, as kube-apiserver: no container given and one container in the pod → that one;
 * several → 400 {@code a container name must be specified for pod X, choose one of: [a b]} (init
 * containers first); an unknown name → 400 {@code container y is not valid for pod X}; a pod not
 * bound to a node → 204 and no body. The node is reached at its {@code InternalIP} (else its {@code
 * Hostname}) and {@code status.daemonEndpoints.kubeletEndpoint.Port} (10250 when 0). An error from
 * the node becomes a Status as kube-apiserver's response checker makes it (400 keeps the node's
 * message); a node that cannot be reached is a 500 naming the URL and the cause. A client that
 * disconnects closes the connection to the node.
 *
 * <p>Differences: kube-apiserver prefers the Hostname address (Streamplane's Hostname is the node
 * name, which does not resolve); the {@code kubectl.kubernetes.io/default-container} annotation is
 * honoured by kubectl, not here, as in kube-apiserver; plain HTTP to the node, no TLS.
 */
final class PodLogs {

  static final int DEFAULT_KUBELET_PORT = 10250;
  private static final int MAX_ERROR_BODY = 50_000;
  private static final DateTimeFormatter RFC3339 =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");

  private final ResourceService service;
  private final ResourceType pods;
  private final ResourceType nodes;

  /** How the gateway dials nodes and pods (logs, proxies): HTTP/1.1, 10 s to connect. */
  static final HttpClient NODES =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private final HttpClient http = NODES;

  PodLogs(ResourceRegistry registry, ResourceService service) {
    this.service = service;
    this.pods = registry.byResource("", "pods").orElseThrow();
    this.nodes = registry.byResource("", "nodes").orElseThrow();
  }

  /** Decoded {@code PodLogOptions}; null fields were not given. */
  record Options(
      String container,
      boolean follow,
      boolean previous,
      boolean timestamps,
      Long tailLines,
      Long sinceSeconds,
      OffsetDateTime sinceTime,
      Long limitBytes) {

    static Options parse(Map<String, String> query) {
      OffsetDateTime sinceTime = null;
      String since = query.get("sinceTime");
      if (since != null && !since.isEmpty()) {
        try {
          sinceTime = OffsetDateTime.parse(since);
        } catch (DateTimeParseException e) {
          throw new ApiException(
              Statuses.badRequest(
                  "parsing time "
                      + quote(since)
                      + " as \"2006-01-02T15:04:05Z07:00\": cannot parse"));
        }
      }
      return new Options(
          query.getOrDefault("container", ""),
          QueryBooleans.get(query, "follow"),
          QueryBooleans.get(query, "previous"),
          QueryBooleans.get(query, "timestamps"),
          number(query, "tailLines"),
          number(query, "sinceSeconds"),
          sinceTime,
          number(query, "limitBytes"));
    }

    /** ValidatePodLogOptions. */
    List<FieldError> validate() {
      List<FieldError> errors = new ArrayList<>();
      if (tailLines != null && tailLines < 0) {
        errors.add(
            FieldError.invalid("tailLines", tailLines, "must be greater than or equal to 0"));
      }
      if (limitBytes != null && limitBytes < 1) {
        errors.add(FieldError.invalid("limitBytes", limitBytes, "must be greater than 0"));
      }
      if (sinceSeconds != null && sinceTime != null) {
        errors.add(
            FieldError.forbidden(
                "", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
      } else if (sinceSeconds != null && sinceSeconds < 1) {
        errors.add(FieldError.invalid("sinceSeconds", sinceSeconds, "must be greater than 0"));
      }
      return errors;
    }

    /** The kubelet query, as LogLocation builds it. */
    String kubeletQuery() {
      StringJoiner q = new StringJoiner("&");
      if (follow) {
        q.add("follow=true");
      }
      if (limitBytes != null) {
        q.add("limitBytes=" + limitBytes);
      }
      if (previous) {
        q.add("previous=true");
      }
      if (sinceSeconds != null) {
        q.add("sinceSeconds=" + sinceSeconds);
      }
      if (sinceTime != null) {
        String formatted =
            RFC3339.format(
                sinceTime.withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS));
        q.add("sinceTime=" + URLEncoder.encode(formatted, StandardCharsets.UTF_8));
      }
      if (tailLines != null) {
        q.add("tailLines=" + tailLines);
      }
      if (timestamps) {
        q.add("timestamps=true");
      }
      return q.toString();
    }
  }

  void serve(HttpExchange exchange, String namespace, String name, Map<String, String> query)
      throws IOException {
    Options options = Options.parse(query);
    List<FieldError> errors = options.validate();
    if (!errors.isEmpty()) {
      throw new ApiException(Statuses.invalid("", "PodLogOptions", name, errors));
    }
    ObjectNode pod = service.get(pods, namespace, name);
    String container = container(pod, name, options.container());
    String nodeName = pod.at("/spec/nodeName").asText("");
    if (nodeName.isEmpty()) {
      // kube-apiserver's LogLocation has no location for an unscheduled pod: 204, no body.
      exchange.sendResponseHeaders(204, -1);
      return;
    }
    ObjectNode node = service.get(nodes, null, nodeName);
    URI uri =
        URI.create(
            "http://"
                + hostPort(node)
                + "/containerLogs/"
                + encode(namespace)
                + "/"
                + encode(name)
                + "/"
                + encode(container)
                + (options.kubeletQuery().isEmpty() ? "" : "?" + options.kubeletQuery()));
    HttpResponse<InputStream> answer;
    try {
      answer =
          http.send(
              HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(
          Statuses.unknownError("Get " + quote(uri.toString()) + ": interrupted"));
    } catch (IOException e) {
      throw new ApiException(
          Statuses.unknownError("Get " + quote(uri.toString()) + ": " + cause(uri, e)));
    }
    try (InputStream in = answer.body()) {
      int code = answer.statusCode();
      if (code < 200 || code > 206) {
        throw new ApiException(kubeletError(code, name, in.readNBytes(MAX_ERROR_BODY)));
      }
      exchange
          .getResponseHeaders()
          .set("Content-Type", answer.headers().firstValue("Content-Type").orElse("text/plain"));
      exchange.sendResponseHeaders(code, 0);
      RequestAudit.responseStarted(exchange, code);
      OutputStream out = exchange.getResponseBody();
      byte[] buffer = new byte[8192];
      // Flushed as it arrives, so a follower sees each line; a client that went away makes the
      // write fail, and closing `in` then closes the connection to the node.
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
      out.close();
    }
  }

  /** validateContainer: the container the request is about. */
  static String container(JsonNode pod, String podName, String requested) {
    List<String> all = new ArrayList<>();
    for (String field : List.of("initContainers", "containers", "ephemeralContainers")) {
      for (JsonNode c : pod.path("spec").path(field)) {
        all.add(c.path("name").asText());
      }
    }
    if (requested.isEmpty()) {
      JsonNode containers = pod.path("spec").path("containers");
      if (containers.size() == 1) {
        return containers.get(0).path("name").asText();
      }
      if (containers.isEmpty()) {
        throw new ApiException(
            Statuses.badRequest("a container name must be specified for pod " + podName));
      }
      throw new ApiException(
          Statuses.badRequest(
              "a container name must be specified for pod "
                  + podName
                  + ", choose one of: ["
                  + String.join(" ", all)
                  + "]"));
    }
    if (!all.contains(requested)) {
      throw new ApiException(
          Statuses.badRequest("container " + requested + " is not valid for pod " + podName));
    }
    return requested;
  }

  /** The kubelet endpoint of a Node: its InternalIP (else Hostname) and daemon port. */
  static String hostPort(JsonNode node) {
    String host = address(node, "InternalIP");
    if (host == null) {
      host = address(node, "Hostname");
    }
    if (host == null) {
      List<String> known = new ArrayList<>();
      for (JsonNode a : node.at("/status/addresses")) {
        known.add("{" + a.path("type").asText() + " " + a.path("address").asText() + "}");
      }
      throw new ApiException(
          Statuses.unknownError(
              "no preferred addresses found; known addresses: [" + String.join(" ", known) + "]"));
    }
    int port = node.at("/status/daemonEndpoints/kubeletEndpoint/Port").asInt(0);
    if (port <= 0) {
      port = DEFAULT_KUBELET_PORT;
    }
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  private static String address(JsonNode node, String type) {
    for (JsonNode a : node.at("/status/addresses")) {
      if (type.equals(a.path("type").asText()) && !a.path("address").asText("").isEmpty()) {
        return a.path("address").asText();
      }
    }
    return null;
  }

  /**
   * GenericHttpResponseChecker: 400 and 500 keep the node's message (the {@code message} of a
   * Status body, or the text kubelet writes), other codes get the generic wording.
   */
  static ObjectNode kubeletError(int code, String podName, byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    try {
      JsonNode status = Responses.JSON.readTree(body);
      if (status != null && "Status".equals(status.path("kind").asText())) {
        text = status.path("message").asText("");
      }
    } catch (IOException e) {
      // Not JSON: kubelet's plain-text error, used as it is.
    }
    return switch (code) {
      case 500 -> Statuses.internalError(text);
      case 400 -> Statuses.badRequest(text);
      default -> Statuses.genericServerResponse(code, "", "pods/log", podName, text);
    };
  }

  /** How Go's net/http words a failed dial, which kubectl users know from real clusters. */
  private static String cause(URI uri, IOException e) {
    String target = uri.getHost() + ":" + uri.getPort();
    if (e instanceof HttpConnectTimeoutException) {
      return "dial tcp " + target + ": i/o timeout";
    }
    if (e instanceof ConnectException) {
      return "dial tcp " + target + ": connect: connection refused";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static Long number(Map<String, String> query, String name) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new ApiException(
          Statuses.badRequest("strconv.ParseInt: parsing " + quote(value) + ": invalid syntax"));
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
