package io.streamplane.gateway.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.ObjectRef;
import io.streamplane.log.ResponseStatus;
import io.streamplane.log.UserInfo;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * An {@link AuditEvent} as the audit.k8s.io/v1 {@code Event} JSON kube-apiserver's log backend
 * writes: empty fields left out, timestamps in microseconds (metav1.MicroTime), request and
 * response objects embedded as JSON.
 */
public final class AuditJson {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX").withZone(ZoneOffset.UTC);

  private AuditJson() {}

  public static ObjectNode of(AuditEvent event) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put("kind", "Event");
    json.put("apiVersion", "audit.k8s.io/v1");
    json.put("level", event.getLevel());
    json.put("auditID", event.getAuditID());
    json.put("stage", event.getStage());
    json.put("requestURI", event.getRequestURI());
    json.put("verb", event.getVerb());
    json.set("user", user(event.getUser()));
    if (event.getImpersonatedUser() != null) {
      json.set("impersonatedUser", user(event.getImpersonatedUser()));
    }
    if (!event.getSourceIPs().isEmpty()) {
      ArrayNode ips = json.putArray("sourceIPs");
      event.getSourceIPs().forEach(ips::add);
    }
    putText(json, "userAgent", event.getUserAgent());
    if (event.getObjectRef() != null) {
      json.set("objectRef", objectRef(event.getObjectRef()));
    }
    if (event.getResponseStatus() != null) {
      json.set("responseStatus", responseStatus(event.getResponseStatus()));
    }
    putObject(json, "requestObject", event.getRequestObject());
    putObject(json, "responseObject", event.getResponseObject());
    json.put("requestReceivedTimestamp", microTime(event.getRequestReceivedTimestamp()));
    json.put("stageTimestamp", microTime(event.getStageTimestamp()));
    if (!event.getAnnotations().isEmpty()) {
      ObjectNode annotations = json.putObject("annotations");
      new java.util.TreeMap<>(event.getAnnotations()).forEach(annotations::put);
    }
    return json;
  }

  /** metav1.MicroTime's format: RFC 3339 with six fractional digits. */
  public static String microTime(Instant instant) {
    return MICRO_TIME.format(instant);
  }

  private static ObjectNode user(UserInfo user) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    putText(json, "username", user.getUsername());
    putText(json, "uid", user.getUid());
    if (!user.getGroups().isEmpty()) {
      ArrayNode groups = json.putArray("groups");
      user.getGroups().forEach(groups::add);
    }
    if (!user.getExtra().isEmpty()) {
      ObjectNode extra = json.putObject("extra");
      for (Map.Entry<String, List<String>> e : user.getExtra().entrySet()) {
        ArrayNode values = extra.putArray(e.getKey());
        e.getValue().forEach(values::add);
      }
    }
    return json;
  }

  private static ObjectNode objectRef(ObjectRef ref) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    putText(json, "resource", ref.getResource());
    putText(json, "namespace", ref.getNamespace());
    putText(json, "name", ref.getName());
    putText(json, "uid", ref.getUid());
    putText(json, "apiGroup", ref.getApiGroup());
    putText(json, "apiVersion", ref.getApiVersion());
    putText(json, "resourceVersion", ref.getResourceVersion());
    putText(json, "subresource", ref.getSubresource());
    return json;
  }

  private static ObjectNode responseStatus(ResponseStatus status) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.putObject("metadata");
    putText(json, "status", status.getStatus());
    putText(json, "message", status.getMessage());
    putText(json, "reason", status.getReason());
    json.put("code", status.getCode());
    return json;
  }

  private static void putText(ObjectNode json, String field, String value) {
    if (value != null && !value.isEmpty()) {
      json.put(field, value);
    }
  }

  private static void putObject(ObjectNode json, String field, String value) {
    if (value == null) {
      return;
    }
    try {
      JsonNode parsed = JSON.readTree(value);
      if (parsed != null) {
        json.set(field, parsed);
      }
    } catch (IOException e) {
      json.put(field, value);
    }
  }
}
