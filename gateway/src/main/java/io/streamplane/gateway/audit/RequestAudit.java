package io.streamplane.gateway.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.sun.net.httpserver.HttpExchange;
import io.streamplane.gateway.codec.ProtobufBodies;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.ObjectRef;
import io.streamplane.log.ResponseStatus;
import io.streamplane.log.UserInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The audit of one request: writes its events, stage by stage, as kube-apiserver's audit filter
 * does. {@link #received} when the request is authenticated, {@link #responseStarted} when a
 * long-running request (watch, log, exec, attach, port-forward) sends its headers, then exactly one
 * of {@link #complete} or {@link #panic}. Stages the policy omits, and everything at level None,
 * are not written. At level Request the request body is recorded (as JSON, whatever its encoding),
 * at RequestResponse the response body too: the bodies are handed over as they pass ({@link
 * #requestRead}, {@link #responseWritten}). The user is the authenticated one; an impersonated user
 * is recorded apart ({@link #impersonated}), from the stage after RequestReceived on, as
 * kube-apiserver records it.
 *
 * <p>Safe to call from the threads a request passes through (a watch's, Jetty's completing one);
 * stages are written in order, each at most once.
 */
public final class RequestAudit {

  /** The exchange attribute under which the request's audit is found. */
  public static final String ATTRIBUTE = RequestAudit.class.getName();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final int MAX_CAPTURE = 3 * 1024 * 1024 + 1;
  private static final Set<String> LONG_RUNNING_SUBRESOURCES =
      Set.of("attach", "exec", "proxy", "log", "portforward");

  private final AuditSink sink;
  private final Clock clock;
  private final AuditPolicy.Decision decision;
  private final AuditEvent.Builder event;
  private final boolean longRunning;
  private final boolean create;
  private final Map<String, String> annotations = new LinkedHashMap<>();
  private BodyCapture requestBody;
  private String requestContentType;
  private BodyCapture responseBody;
  private boolean started;
  private boolean finished;

  RequestAudit(
      AuditSink sink,
      Clock clock,
      AuditPolicy.Decision decision,
      String auditId,
      Instant received,
      RequestInfo request,
      UserInfo user,
      RequestMeta meta) {
    this.sink = sink;
    this.clock = clock;
    this.decision = decision;
    this.longRunning = longRunning(request);
    this.create = "create".equals(request.verb());
    this.event =
        AuditEvent.newBuilder()
            .setLevel(decision.level().name())
            .setAuditID(auditId)
            .setStage(AuditStage.RequestReceived.name())
            .setRequestURI(meta.requestURI())
            .setVerb(request.verb())
            .setUser(user == null ? UserInfo.newBuilder().setUsername("").build() : user)
            .setSourceIPs(meta.sourceIPs())
            .setUserAgent(meta.userAgent())
            .setObjectRef(request.resourceRequest() ? objectRef(request) : null)
            .setRequestReceivedTimestamp(received)
            .setStageTimestamp(received);
  }

  /** kube-apiserver's long-running requests: their ResponseStarted stage is recorded. */
  static boolean longRunning(RequestInfo request) {
    return "watch".equals(request.verb())
        || "proxy".equals(request.verb())
        || (request.subresource() != null
            && LONG_RUNNING_SUBRESOURCES.contains(request.subresource()));
  }

  private static ObjectRef objectRef(RequestInfo request) {
    return ObjectRef.newBuilder()
        .setResource(request.resource())
        .setNamespace(request.namespace())
        .setName(request.name())
        .setApiGroup(request.group() == null || request.group().isEmpty() ? null : request.group())
        .setApiVersion(request.version())
        .setSubresource(request.subresource())
        .build();
  }

  public AuditLevel level() {
    return decision.level();
  }

  /** The audit of the request {@code exchange} is, if it is audited. */
  public static RequestAudit of(HttpExchange exchange) {
    return exchange.getAttribute(ATTRIBUTE) instanceof RequestAudit audit ? audit : null;
  }

  /** Tells the audit of {@code exchange}, if any, that its response headers went out. */
  public static void responseStarted(HttpExchange exchange, int code) {
    RequestAudit audit = of(exchange);
    if (audit != null) {
      audit.responseStarted(code);
    }
  }

  /**
   * Whether the request body is copied as it is read ({@link #requestRead}): from level Request on,
   * and for a create at Metadata too, to name the object it creates, as kube-apiserver fills the
   * objectRef from the created object.
   */
  public boolean recordsRequestBody() {
    return decision.level().atLeast(AuditLevel.Request) || create;
  }

  /** Request bytes were read; {@code contentType} is the request's, to decode them. */
  public synchronized void requestRead(String contentType, ByteBuffer content) {
    if (!recordsRequestBody()) {
      return;
    }
    if (requestBody == null) {
      requestBody = new BodyCapture(MAX_CAPTURE);
      requestContentType = contentType;
    }
    requestBody.add(content);
  }

  /**
   * Response bytes went out with {@code code}, the headers with the first of them. They are copied
   * at level RequestResponse and for a create (not for a long-running request, whose answer is a
   * stream), and whenever the code is an error, whose body is the Status the event records.
   */
  public synchronized void responseWritten(int code, ByteBuffer content) {
    if (responseBody == null) {
      if (((decision.level() == AuditLevel.RequestResponse || create) && !longRunning)
          || code >= 400) {
        responseBody = new BodyCapture(MAX_CAPTURE);
      }
      responseStarted(code);
    }
    if (responseBody != null) {
      responseBody.add(content);
    }
  }

  /** The user the request acts as, named by its impersonation headers. */
  public synchronized void impersonated(UserInfo user) {
    event.setImpersonatedUser(user);
  }

  /** Adds an annotation to the events still to be written. */
  public synchronized void annotate(String key, String value) {
    annotations.put(key, value);
  }

  public synchronized void received() {
    event.setStage(AuditStage.RequestReceived.name());
    event.setStageTimestamp(event.getRequestReceivedTimestamp());
    write(AuditStage.RequestReceived);
  }

  /** The headers of a long-running request's response went out with {@code code}. */
  public synchronized void responseStarted(int code) {
    if (started || finished) {
      return;
    }
    started = true;
    event.setResponseStatus(ResponseStatus.newBuilder().setCode(code).build());
    event.setStage(AuditStage.ResponseStarted.name());
    event.setStageTimestamp(clock.instant());
    if (longRunning) {
      write(AuditStage.ResponseStarted);
    }
  }

  /**
   * The response is complete with {@code code}; its Status, when the answer was one, is read from
   * the body written.
   */
  public synchronized void complete(int code) {
    if (finished) {
      return;
    }
    if (longRunning && !started) {
      responseStarted(code);
    }
    finished = true;
    JsonNode response = parsed(responseBody, "application/json");
    JsonNode status =
        response != null && "Status".equals(response.path("kind").asText()) ? response : null;
    event.setResponseStatus(responseStatus(code, status));
    nameCreatedObject(response);
    if (decision.level().atLeast(AuditLevel.Request)) {
      event.setRequestObject(json(parsed(requestBody, requestContentType)));
    }
    if (decision.level() == AuditLevel.RequestResponse && status == null) {
      event.setResponseObject(json(response));
    }
    event.setStage(AuditStage.ResponseComplete.name());
    event.setStageTimestamp(clock.instant());
    write(AuditStage.ResponseComplete);
  }

  /** The request failed with an unexpected exception, answered 500 InternalError. */
  public synchronized void panic(String message) {
    if (finished) {
      return;
    }
    finished = true;
    event.setResponseStatus(
        ResponseStatus.newBuilder()
            .setCode(500)
            .setStatus("Failure")
            .setReason("InternalError")
            .setMessage("APIServer panic'd: " + message)
            .build());
    event.setStage(AuditStage.Panic.name());
    event.setStageTimestamp(clock.instant());
    write(AuditStage.Panic);
  }

  /**
   * A request whose credentials were refused: kube-apiserver writes one event, at ResponseStarted,
   * with the 401 and which methods were attempted, and no user.
   */
  synchronized void failedAuthentication(int code, String attempted) {
    finished = true;
    event.setResponseStatus(
        ResponseStatus.newBuilder()
            .setCode(code)
            .setMessage("Authentication failed, attempted: " + attempted)
            .build());
    event.setStage(AuditStage.ResponseStarted.name());
    event.setStageTimestamp(clock.instant());
    write(AuditStage.ResponseStarted);
  }

  private void nameCreatedObject(JsonNode response) {
    ObjectRef ref = event.getObjectRef();
    if (!create || ref == null || ref.getName() != null) {
      return;
    }
    JsonNode object = response;
    if (object == null || "Status".equals(object.path("kind").asText())) {
      object = parsed(requestBody, requestContentType);
    }
    String name = object == null ? "" : object.path("metadata").path("name").asText("");
    if (!name.isEmpty()) {
      event.setObjectRef(ObjectRef.newBuilder(ref).setName(name).build());
    }
  }

  private static ResponseStatus responseStatus(int code, JsonNode status) {
    ResponseStatus.Builder built = ResponseStatus.newBuilder().setCode(code);
    if (status != null) {
      built
          .setStatus(text(status, "status"))
          .setReason(text(status, "reason"))
          .setMessage(text(status, "message"));
    }
    return built.build();
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || !value.isTextual() || value.asText().isEmpty() ? null : value.asText();
  }

  /**
   * A captured body as a JSON tree, whatever its encoding; null when there is none or no object.
   */
  private static JsonNode parsed(BodyCapture capture, String contentType) {
    byte[] bytes = capture == null ? null : capture.bytes();
    if (bytes == null || bytes.length == 0) {
      return null;
    }
    String media = contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase();
    try {
      if (ProtobufBodies.isProtobuf(contentType)) {
        return ProtobufBodies.decode(bytes);
      }
      if (media.contains("yaml")) {
        return YAML.readTree(bytes);
      }
      return JSON.readTree(bytes);
    } catch (IOException | RuntimeException e) {
      // A body the API refused as undecodable is no object to record.
      return null;
    }
  }

  private static String json(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return null;
    }
    try {
      return JSON.writeValueAsString(node);
    } catch (IOException e) {
      return null;
    }
  }

  private void write(AuditStage stage) {
    if (!decision.records(stage)) {
      return;
    }
    event.setAnnotations(Map.copyOf(annotations));
    sink.write(event.build());
  }

  /** What the audit records of a request besides its RequestInfo. */
  public record RequestMeta(String requestURI, List<String> sourceIPs, String userAgent) {
    public RequestMeta {
      sourceIPs = List.copyOf(sourceIPs);
    }
  }
}
