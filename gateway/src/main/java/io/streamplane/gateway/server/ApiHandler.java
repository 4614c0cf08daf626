package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Discovery;
import io.streamplane.gateway.api.OpenApiV2;
import io.streamplane.gateway.api.OpenApiV3;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.api.table.TableConverter;
import io.streamplane.gateway.apply.ApplyStatuses;
import io.streamplane.gateway.audit.RequestAudit;
import io.streamplane.gateway.authz.AccessReviews;
import io.streamplane.gateway.cache.CacheUnavailableException;
import io.streamplane.gateway.cache.TooOldResourceVersionException;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.codec.ProtobufBodies;
import io.streamplane.gateway.eviction.PodEviction;
import io.streamplane.gateway.request.QueryBooleans;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.gateway.resourcemetrics.ResourceMetricsApi;
import io.streamplane.gateway.storage.ReadAt;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.gateway.storage.Written;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kubernetes REST API over HTTP, the endpoint inside the {@link HandlerChain}: routes each
 * request (discovery, OpenAPI, probes, {@code /metrics}, resources and their status, scale and log
 * subresources, watch) to the parts that answer it, and turns every failure into a Kubernetes
 * {@code Status} body. A request reaches it authenticated, audited, impersonated and authorized; it
 * reads the request's {@link RequestInfo}, query, acting user and audit id from the {@link
 * RequestContext}, then reads or writes through the {@link ResourceService}, where writes are
 * admitted and carry the audit id into their commands. {@code /metrics} serves the JVM's default
 * Prometheus registry, as kube-apiserver serves its metrics on its own port.
 */
final class ApiHandler implements HttpHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);
  static final int MAX_BODY_BYTES = 3 * 1024 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> WRITE_VERBS =
      List.of("create", "update", "patch", "delete", "deletecollection");
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final String APPLY_PATCH = "application/apply-patch";
  private final ResourceRegistry registry;
  private final ResourceService service;
  private final PodEviction evictions;
  private final WatchCache cache;
  private final Discovery discovery;
  private final OpenApiV3 openApi;
  private final OpenApiV2 openApiV2;
  private final TableConverter tables;
  private final Watches watches;

  /** Where the history of an object is served: this, then the object's API path. */
  public static final String HISTORY_PREFIX = "/history";

  private final PodLogs podLogs;
  private final AccessReviews reviews;
  private final AuthenticationApi authenticationApi;
  private final HttpHandler metrics = new MetricsHandler(PrometheusRegistry.defaultRegistry);
  private final HealthChecks health = new HealthChecks().add("ping", java.util.Optional::empty);
  private volatile ResourceMetricsApi resourceMetrics;

  ApiHandler(
      RequestChain chain,
      ResourceRegistry registry,
      ResourceService service,
      WatchCache cache,
      Discovery discovery,
      OpenApiV3 openApi,
      TableConverter tables,
      AuthenticationApi authenticationApi) {
    this.authenticationApi = authenticationApi;
    this.registry = registry;
    this.service = service;
    this.cache = cache;
    this.discovery = discovery;
    this.openApi = openApi;
    this.openApiV2 = new OpenApiV2(registry);
    this.tables = tables;
    this.watches = new Watches(cache, tables);
    this.podLogs = new PodLogs(registry, service);
    this.evictions = new PodEviction(service, registry, Clock.systemUTC());
    this.reviews = new AccessReviews(chain.authorization());
  }

  /** Serves {@code metrics.k8s.io} from {@code api}; without it that group answers 503. */
  ApiHandler serveResourceMetrics(ResourceMetricsApi api) {
    this.resourceMetrics = api;
    return this;
  }

  /** The checks of {@code /livez}, {@code /readyz} and {@code /healthz}. */
  HealthChecks health() {
    return health;
  }

  /** The watches this API serves, which {@link WebSocketWatches} serves over WebSocket too. */
  Watches watches() {
    return watches;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      RequestInfo info = RequestContext.info(exchange);
      try {
        if (info.resourceRequest()) {
          resource(
              exchange,
              info,
              RequestContext.query(exchange),
              RequestContext.user(exchange),
              RequestContext.auditId(exchange));
        } else {
          nonResource(exchange, info, RequestContext.query(exchange));
        }
      } catch (ApiException e) {
        Responses.status(exchange, e.status());
      } catch (TooOldResourceVersionException e) {
        Responses.status(exchange, Statuses.tooOldResourceVersion(e.requested(), e.current()));
      } catch (CacheUnavailableException e) {
        Responses.status(exchange, Statuses.timeout(e.getMessage(), 1));
      } catch (RuntimeException e) {
        // Answered here, as a Status without the stack trace; the audit records it as a panic.
        LOG.error("{} {} failed", exchange.getRequestMethod(), info.path(), e);
        RequestAudit audit = RequestAudit.of(exchange);
        if (audit != null) {
          audit.panic(e.toString());
        }
        Responses.status(
            exchange, Statuses.internalError(e.getClass().getSimpleName() + ": " + e.getMessage()));
      }
    } catch (IOException e) {
      // The client went away; nothing to answer.
      LOG.debug("client connection closed", e);
    } catch (RuntimeException e) {
      // Jetty's exchange reports a client that went away while the answer was finished (closing
      // the exchange) as an unchecked wrapper of the I/O error.
      if (!(e.getCause() instanceof IOException)) {
        throw e;
      }
      LOG.debug("client connection closed", e);
    }
  }

  // ---------------------------------------------------------------- non-resource paths

  private void nonResource(HttpExchange exchange, RequestInfo info, Map<String, String> query)
      throws IOException {
    String path = info.path().replaceAll("/+$", "");
    String method = exchange.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      // Discovery, OpenAPI, probes and history are read-only, as kube-apiserver's routes are.
      throw new ApiException(
          Statuses.failure(
              405,
              "MethodNotAllowed",
              "the server does not allow this method on the requested resource",
              null));
    }
    String accept = exchange.getRequestHeaders().getFirst("Accept");
    if (path.matches("/(healthz|livez|readyz)(/.+)?")) {
      Optional<HealthChecks.Answer> answer =
          health.answer(
              path,
              query.containsKey("verbose"),
              query.containsKey("exclude") ? Set.of(query.get("exclude")) : Set.of());
      if (answer.isEmpty()) {
        throw new ApiException(Statuses.notFoundPath());
      }
      Responses.text(exchange, answer.get().code(), answer.get().body());
      return;
    }
    switch (path) {
      case "/version" -> Responses.json(exchange, 200, discovery.version());
      case "/metrics" -> metrics.handle(exchange);
      case "/api" -> {
        Optional<Discovery.AggregatedFormat> aggregated = Discovery.negotiateAggregated(accept);
        if (aggregated.isPresent()) {
          Responses.json(
              exchange,
              200,
              discovery.aggregatedCore(aggregated.get()),
              aggregated.get().contentType());
        } else {
          Responses.json(exchange, 200, discovery.apiVersions(serverAddress(exchange)));
        }
      }
      case "/apis" -> {
        Optional<Discovery.AggregatedFormat> aggregated = Discovery.negotiateAggregated(accept);
        if (aggregated.isPresent()) {
          Responses.json(
              exchange,
              200,
              discovery.aggregatedGroups(aggregated.get()),
              aggregated.get().contentType());
        } else {
          Responses.json(exchange, 200, discovery.apiGroupList());
        }
      }
      case "/openapi/v3" -> Responses.json(exchange, 200, openApi.index());
      case "/openapi/v2" -> {
        if (OpenApiV2.prefersProtobuf(accept)) {
          Responses.send(exchange, 200, openApiV2.protobuf(), OpenApiV2.PROTOBUF_CONTENT_TYPE);
        } else if (OpenApiV2.acceptsJson(accept)) {
          Responses.json(exchange, 200, openApiV2.document());
        } else {
          throw new ApiException(
              Statuses.notAcceptable(List.of("application/json", OpenApiV2.PROTOBUF)));
        }
      }
      default -> {
        List<String> parts = info.parts();
        Optional<ObjectNode> document = Optional.empty();
        if (path.startsWith(HISTORY_PREFIX + "/")) {
          history(exchange, path.substring(HISTORY_PREFIX.length()), query);
          return;
        }
        if (path.startsWith("/openapi/v3/")) {
          openApiDocument(exchange, path.substring("/openapi/v3/".length()), query.get("hash"));
          return;
        } else if (parts.size() == 2 && parts.get(0).equals("api")) {
          document = discovery.apiResourceList("", parts.get(1));
        } else if (parts.size() == 2 && parts.get(0).equals("apis")) {
          document = discovery.apiGroup(parts.get(1));
        } else if (parts.size() == 3 && parts.get(0).equals("apis")) {
          document = discovery.apiResourceList(parts.get(1), parts.get(2));
        }
        if (document.isEmpty()) {
          throw new ApiException(Statuses.notFoundPath());
        }
        Responses.json(exchange, 200, document.get());
      }
    }
  }

  /**
   * One group-version's OpenAPI v3 document, cached as kube-apiserver (k8s.io/kube-openapi
   * handler3) caches it: at its content-addressed URL it never changes ({@code public, immutable});
   * a stale hash is redirected (301) to the current URL; without a hash it must be revalidated.
   */
  private void openApiDocument(HttpExchange exchange, String gvPath, String hash)
      throws IOException {
    ObjectNode document =
        openApi.document(gvPath).orElseThrow(() -> new ApiException(Statuses.notFoundPath()));
    String current = openApi.hash(gvPath);
    if (hash != null && !hash.isEmpty()) {
      if (!hash.equals(current)) {
        exchange.getResponseHeaders().set("Location", openApi.documentUrl(gvPath));
        Responses.text(exchange, 301, "");
        return;
      }
      exchange.getResponseHeaders().set("Cache-Control", "public, immutable");
      exchange
          .getResponseHeaders()
          .set(
              "Expires",
              DateTimeFormatter.RFC_1123_DATE_TIME.format(
                  ZonedDateTime.now(ZoneOffset.UTC).plusYears(1)));
    } else {
      exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
    }
    exchange.getResponseHeaders().set("Etag", "\"" + current + "\"");
    Responses.json(exchange, 200, document);
  }

  /**
   * {@code GET /history/<an object's API path>}: every version of that object ({@link
   * ResourceService#history}), optionally only those from {@code since} to {@code until} (RFC
   * 3339). Kubernetes has no such API.
   */
  private void history(HttpExchange exchange, String objectPath, Map<String, String> query)
      throws IOException {
    if (!exchange.getRequestMethod().equals("GET")) {
      throw new ApiException(Statuses.methodNotAllowed("", "history", exchange.getRequestMethod()));
    }
    RequestInfo object = RequestInfo.parse("GET", objectPath, query);
    if (!object.resourceRequest() || !"get".equals(object.verb()) || object.subresource() != null) {
      throw new ApiException(Statuses.notFoundPath());
    }
    ResourceType type =
        registry
            .served(object.group(), object.version(), object.resource())
            .orElseThrow(() -> new ApiException(Statuses.notFoundPath()));
    if (type.namespaced() != (object.namespace() != null)) {
      throw new ApiException(Statuses.notFoundPath());
    }
    Responses.json(
        exchange,
        200,
        service.history(
            type,
            object.namespace(),
            object.name(),
            instant(query, "since"),
            instant(query, "until")));
  }

  private static Instant instant(Map<String, String> query, String name) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeParseException e) {
      throw new ApiException(
          Statuses.badRequest(
              name + ": " + value + " is not a time in RFC 3339 (2006-01-02T15:04:05Z)"));
    }
  }

  private static String serverAddress(HttpExchange exchange) {
    return exchange.getLocalAddress().getHostString() + ":" + exchange.getLocalAddress().getPort();
  }

  /** Where admission's audit annotations of the request go: its audit, when it is audited. */
  private static BiConsumer<String, String> auditAnnotations(HttpExchange exchange) {
    RequestAudit audit = RequestAudit.of(exchange);
    return audit == null ? null : audit::annotate;
  }

  // ---------------------------------------------------------------- resources

  private void resource(
      HttpExchange exchange,
      RequestInfo info,
      Map<String, String> query,
      UserInfo user,
      String auditId)
      throws IOException {
    if (AccessReviews.isReview(info.group(), info.resource()) && "v1".equals(info.version())) {
      review(exchange, info, user);
      return;
    }
    if (ResourceMetricsApi.serves(info)) {
      ResourceMetricsApi api = resourceMetrics;
      if (api == null) {
        // kube-apiserver's answer when the aggregated API behind a group is unavailable.
        throw new ApiException(
            Statuses.failure(
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request",
                null));
      }
      Responses.json(exchange, 200, api.answer(info, query));
      return;
    }
    if (AuthenticationApi.serves(info)) {
      ObjectNode review = "create".equals(info.verb()) ? body(exchange) : null;
      Responses.json(exchange, 201, authenticationApi.create(info, user, review));
      return;
    }
    ResourceType type =
        registry
            .served(info.group(), info.version(), info.resource())
            .orElseThrow(() -> new ApiException(Statuses.notFoundPath()));
    String namespace = type.namespaced() ? info.namespace() : null;
    if (type.namespaced() && namespace == null && !List.of("list", "watch").contains(info.verb())) {
      throw new ApiException(Statuses.notFoundPath());
    }
    String subresource = info.subresource();
    if (subresource != null && type.subresource(subresource).isEmpty()) {
      throw new ApiException(Statuses.notFoundPath());
    }
    type.strategy().deprecationWarning().ifPresent(w -> warn(exchange, w));
    if ("log".equals(subresource)) {
      if (!info.verb().equals("get")) {
        throw new ApiException(
            Statuses.methodNotAllowed(type.group(), type.plural() + "/log", info.verb()));
      }
      podLogs.serve(exchange, namespace, info.name(), query);
      return;
    }
    if (WRITE_VERBS.contains(info.verb())) {
      // A read-only API refuses a write without decoding its body, as kube-apiserver refuses a verb
      // a resource does not serve. The body is read all the same (and dropped), as Go's server
      // does, so that the client may send its next request on the same connection.
      try {
        service.checkWritable(type.group(), type.plural(), info.verb());
      } catch (ApiException refused) {
        exchange.getRequestBody().transferTo(OutputStream.nullOutputStream());
        throw refused;
      }
    }
    String accept = exchange.getRequestHeaders().getFirst("Accept");
    boolean table = TableConverter.requested(accept);
    TableConverter.IncludeObject include =
        TableConverter.IncludeObject.parse(query.get("includeObject"));
    WriteOptions options =
        new WriteOptions(
            user,
            "All".equals(query.get("dryRun")),
            query.get("fieldValidation"),
            auditId,
            query.get("fieldManager"),
            exchange.getRequestHeaders().getFirst("User-Agent"),
            query.containsKey("force") ? QueryBooleans.get(query, "force") : null,
            auditAnnotations(exchange));
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    boolean apply = contentType != null && contentType.startsWith(APPLY_PATCH);
    String optionsKind =
        switch (info.verb()) {
          case "create" -> "CreateOptions";
          case "update" -> "UpdateOptions";
          case "patch" -> "PatchOptions";
          default -> null;
        };
    if (optionsKind != null) {
      ObjectNode invalid =
          ApplyStatuses.invalidOptions(
              optionsKind, options.fieldManager(), options.force() != null, apply);
      if (invalid != null) {
        throw new ApiException(invalid);
      }
    }
    switch (info.verb()) {
      case "get" -> {
        ObjectNode object =
            "scale".equals(subresource)
                ? service.scale(type, namespace, info.name())
                : service.get(
                    type,
                    namespace,
                    info.name(),
                    ReadAt.ofGet(query.get("resourceVersion"), query.get("resourceVersionMatch")));
        Responses.json(
            exchange,
            200,
            table && subresource == null ? tables.forObject(type, object, include) : object);
      }
      case "list" -> {
        ObjectNode list =
            service.list(
                type,
                namespace,
                Selectors.parseLabels(query.get("labelSelector")),
                Selectors.parseFields(query.get("fieldSelector"), type),
                parseLong(query.get("limit")),
                query.get("continue"),
                ReadAt.ofList(
                    query.get("resourceVersion"),
                    query.get("resourceVersionMatch"),
                    query.get("continue")));
        Responses.json(exchange, 200, table ? tables.forList(type, list, include) : list);
      }
      case "watch" ->
          watches.serve(exchange, Watches.Request.of(type, namespace, info, query, accept));
      case "create" -> {
        if ("eviction".equals(subresource)) {
          respond(exchange, evictions.evict(namespace, info.name(), body(exchange), options));
          return;
        }
        if (subresource != null) {
          throw new ApiException(
              Statuses.methodNotAllowed(type.group(), type.plural() + "/" + subresource, "create"));
        }
        respond(exchange, service.create(type, namespace, body(exchange, type), options));
      }
      case "update" -> {
        ObjectNode body = body(exchange, type);
        Written written =
            switch (subresource == null ? "" : subresource) {
              case "status", "approval", "ephemeralcontainers" ->
                  service.updateSubresource(
                      type, namespace, info.name(), subresource, body, options);
              case "scale" ->
                  service.updateScale(type, namespace, info.name(), null, body, options);
              default -> service.update(type, namespace, info.name(), body, options);
            };
        respond(exchange, written);
      }
      case "patch" -> {
        if (apply) {
          if ("scale".equals(subresource)) {
            throw new ApiException(
                Statuses.unsupportedMediaType(
                    List.of(
                        "application/json-patch+json",
                        "application/merge-patch+json",
                        "application/strategic-merge-patch+json")));
          }
          respond(
              exchange,
              service.apply(
                  type, namespace, info.name(), subresource, applyBody(exchange), options));
          return;
        }
        JsonNode patch = parseJson(readBody(exchange));
        Written written =
            "scale".equals(subresource)
                ? service.updateScale(type, namespace, info.name(), contentType, patch, options)
                : service.patch(
                    type, namespace, info.name(), subresource, contentType, patch, options);
        respond(exchange, written);
      }
      case "delete" -> {
        JsonNode deleteOptions = deleteOptions(exchange, query);
        respond(
            exchange,
            service.delete(
                type, namespace, info.name(), deleteOptions, withDryRun(options, deleteOptions)));
      }
      case "deletecollection" -> {
        if (subresource != null || !type.verbs().contains("deletecollection")) {
          throw new ApiException(
              Statuses.methodNotAllowed(type.group(), type.plural(), "deletecollection"));
        }
        JsonNode deleteOptions = deleteOptions(exchange, query);
        Responses.json(
            exchange,
            200,
            service.deleteCollection(
                type,
                namespace,
                Selectors.parseLabels(query.get("labelSelector")),
                Selectors.parseFields(query.get("fieldSelector"), type),
                deleteOptions,
                withDryRun(options, deleteOptions)));
      }
      default ->
          throw new ApiException(
              Statuses.methodNotAllowed(type.group(), type.plural(), info.verb()));
    }
  }

  /**
   * An access review: created, answered and never stored, as kube-apiserver's authorization.k8s.io
   * group; only {@code create} is served, namespaced for LocalSubjectAccessReview only.
   */
  private void review(HttpExchange exchange, RequestInfo info, UserInfo user) throws IOException {
    boolean local = info.resource().equals("localsubjectaccessreviews");
    if (info.name() != null || info.subresource() != null || local != (info.namespace() != null)) {
      throw new ApiException(Statuses.notFoundPath());
    }
    if (!info.verb().equals("create")) {
      throw new ApiException(
          Statuses.methodNotAllowed(AccessReviews.GROUP, info.resource(), info.verb()));
    }
    Responses.json(
        exchange, 201, reviews.review(info.resource(), info.namespace(), body(exchange), user));
  }

  /**
   * The request's DeleteOptions: its body (JSON, YAML or protobuf), with {@code gracePeriodSeconds}
   * and {@code propagationPolicy} from the query where the body does not give them.
   */
  private static JsonNode deleteOptions(HttpExchange exchange, Map<String, String> query)
      throws IOException {
    byte[] raw = readBody(exchange);
    JsonNode deleteOptions =
        raw.length == 0 ? JsonNodeFactory.instance.objectNode() : decodeBody(exchange, raw, null);
    ObjectNode merged =
        deleteOptions.isObject()
            ? ((ObjectNode) deleteOptions).deepCopy()
            : JsonNodeFactory.instance.objectNode();
    for (String param : List.of("gracePeriodSeconds", "propagationPolicy")) {
      if (query.containsKey(param) && !merged.has(param)) {
        merged.put(param, query.get(param));
      }
    }
    if (merged.has("gracePeriodSeconds") && merged.get("gracePeriodSeconds").isTextual()) {
      merged.put("gracePeriodSeconds", parseLong(merged.get("gracePeriodSeconds").asText()));
    }
    return merged;
  }

  private static WriteOptions withDryRun(WriteOptions options, JsonNode deleteOptions) {
    if (deleteOptions.path("dryRun").isArray()
        && deleteOptions.path("dryRun").toString().contains("All")) {
      return options.withDryRun();
    }
    return options;
  }

  /**
   * The body of a server-side apply: YAML, of which JSON is a subset, as kube-apiserver reads it.
   */
  private static JsonNode applyBody(HttpExchange exchange) throws IOException {
    byte[] raw = readBody(exchange);
    try {
      JsonNode body = YAML.readTree(raw);
      if (body == null || body.isMissingNode()) {
        throw new ApiException(Statuses.badRequest("the request body is empty"));
      }
      return body;
    } catch (IOException e) {
      throw new ApiException(Statuses.badRequest("error decoding YAML: " + e.getMessage()));
    }
  }

  private void respond(HttpExchange exchange, Written written) throws IOException {
    for (String warning : written.warnings()) {
      warn(exchange, warning);
    }
    Responses.json(exchange, written.code(), written.object());
  }

  private static void warn(HttpExchange exchange, String warning) {
    exchange.getResponseHeaders().add("Warning", "299 - \"" + warning.replace("\"", "\\\"") + "\"");
  }

  /**
   * The body of a create or update of {@code type}: JSON that does not parse is kube-apiserver's
   * decode error ({@code the object provided is unrecognized (must be of type Namespace): couldn't
   * get version/kind; json parse error: invalid character 'a' looking for beginning of value
   * (61706956657273696f6e3a2076310a6b696e643a204e616d657370 ...)}).
   */
  private ObjectNode body(HttpExchange exchange, ResourceType type) throws IOException {
    JsonNode body = decodeBody(exchange, readBody(exchange), type);
    if (!(body instanceof ObjectNode object)) {
      throw new ApiException(Statuses.badRequest("the request body is not an object"));
    }
    return object;
  }

  private ObjectNode body(HttpExchange exchange) throws IOException {
    JsonNode body = decodeBody(exchange, readBody(exchange), null);
    if (!(body instanceof ObjectNode object)) {
      throw new ApiException(Statuses.badRequest("the request body is not an object"));
    }
    return object;
  }

  /**
   * The body as JSON, read as its Content-Type says. JSON that does not parse, for a create or
   * update of {@code into} (null: another request), is kube-apiserver's decode error ({@code the
   * object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json
   * parse error: invalid character 'a' looking for beginning of value (6170...)}).
   */
  private static JsonNode decodeBody(HttpExchange exchange, byte[] raw, ResourceType into) {
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    String media = contentType == null ? "application/json" : contentType.split(";", 2)[0].trim();
    if (ProtobufBodies.isProtobuf(contentType)) {
      return ProtobufBodies.decode(raw);
    }
    if (media.equals("application/yaml") || media.equals("application/x-yaml")) {
      try {
        return YAML.readTree(raw);
      } catch (IOException e) {
        throw new ApiException(Statuses.badRequest("invalid YAML: " + e.getMessage()));
      }
    }
    if (!media.equals("application/json") && !media.equals("*/*")) {
      throw new ApiException(
          Statuses.unsupportedMediaType(
              List.of("application/json", "application/yaml", ProtobufBodies.MEDIA_TYPE)));
    }
    return parseJson(raw, into);
  }

  private static JsonNode parseJson(byte[] raw) {
    return parseJson(raw, null);
  }

  private static JsonNode parseJson(byte[] raw, ResourceType into) {
    try {
      JsonNode node = JSON.readTree(raw);
      if (node == null) {
        throw new ApiException(Statuses.badRequest("the request body is empty"));
      }
      return node;
    } catch (IOException e) {
      if (into == null) {
        throw new ApiException(Statuses.badRequest("invalid JSON: " + e.getMessage()));
      }
      throw new ApiException(
          Statuses.badRequest(
              "the object provided is unrecognized (must be of type "
                  + into.kind()
                  + "): couldn't get version/kind; json parse error: "
                  + GoJsonErrors.of(raw, e)
                  + " ("
                  + GoJsonErrors.summarize(raw)
                  + ")"));
    }
  }

  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      if (body.length > MAX_BODY_BYTES) {
        throw new ApiException(Statuses.requestEntityTooLarge("limit is " + MAX_BODY_BYTES));
      }
      return body;
    }
  }

  static long parseLong(String value) {
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new ApiException(Statuses.badRequest("not a number: \"" + value + "\""));
    }
  }

  static void writeAll(OutputStream out, byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }
}
