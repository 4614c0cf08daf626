package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Builders for the {@code metav1.Status} bodies kube-apiserver answers with, reproducing the
 * message, reason, code and details of {@code k8s.io/apimachinery/pkg/api/errors}, because kubectl
 * prints the message verbatim and branches on reason and code (IsNotFound, IsConflict, ...).
 *
 * <p>Contract: every method returns a fresh {@code ObjectNode} in JSON field order {@code kind,
 * apiVersion, metadata, status, message, reason, details, code}; the {@code exception} variants
 * wrap it in an {@link ApiException}. Resources are named as Kubernetes does in messages: "pods"
 * for the core group, "deployments.apps" otherwise; details carry the group (omitted when empty)
 * and the plural resource as {@code kind}.
 */
public final class Statuses {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private Statuses() {}

  // ------------------------------------------------------------------ resource errors

  /** 404 {@code pods "x" not found}. */
  public static ObjectNode notFound(String group, String resource, String name) {
    return failure(
        404,
        "NotFound",
        qualified(group, resource) + " " + quote(name) + " not found",
        details(group, resource, name));
  }

  public static ObjectNode notFound(ResourceType type, String name) {
    return notFound(type.group(), type.plural(), name);
  }

  /** 404 for a URL that names no resource: what kube-apiserver's mux answers. */
  public static ObjectNode notFoundPath() {
    return failure(
        404, "NotFound", "the server could not find the requested resource", JSON.objectNode());
  }

  /** 409 {@code pods "x" already exists}. */
  public static ObjectNode alreadyExists(ResourceType type, String name) {
    return failure(
        409,
        "AlreadyExists",
        type.qualifiedResource() + " " + quote(name) + " already exists",
        details(type.group(), type.plural(), name));
  }

  /** 409 Conflict with the cause Kubernetes gives for a stale resourceVersion. */
  public static ObjectNode conflictModified(ResourceType type, String name) {
    return conflict(
        type,
        name,
        "the object has been modified; please apply your changes to the latest version and try"
            + " again");
  }

  /** 409 {@code Operation cannot be fulfilled on pods "x": <cause>}. */
  public static ObjectNode conflict(ResourceType type, String name, String cause) {
    return failure(
        409,
        "Conflict",
        "Operation cannot be fulfilled on "
            + type.qualifiedResource()
            + " "
            + quote(name)
            + ": "
            + cause,
        details(type.group(), type.plural(), name));
  }

  /**
   * 422 {@code Pod "x" is invalid: [a: Required value, b: Invalid value: ...]}: the kind (not the
   * resource) names the object, one error is printed bare, several in brackets with duplicates
   * dropped (utilerrors.Aggregate).
   */
  public static ObjectNode invalid(ResourceType type, String name, List<FieldError> errors) {
    return invalid(type.group(), type.kind(), name, errors);
  }

  public static ObjectNode invalid(
      String group, String kind, String name, List<FieldError> errors) {
    Set<String> messages = new LinkedHashSet<>();
    ArrayNode causes = JSON.arrayNode();
    for (FieldError e : errors) {
      messages.add(e.message());
      causes
          .addObject()
          .put("reason", e.type().reason())
          .put("message", e.body())
          .put("field", e.field());
    }
    String aggregate =
        messages.size() == 1 ? messages.iterator().next() : "[" + String.join(", ", messages) + "]";
    String qualifiedKind = group.isEmpty() ? kind : kind + "." + group;
    ObjectNode details = JSON.objectNode();
    if (!name.isEmpty()) {
      details.put("name", name);
    }
    if (!group.isEmpty()) {
      details.put("group", group);
    }
    details.put("kind", kind);
    if (!causes.isEmpty()) {
      details.set("causes", causes);
    }
    return failure(
        422, "Invalid", qualifiedKind + " " + quote(name) + " is invalid: " + aggregate, details);
  }

  /** 400 with the message as given (errors.NewBadRequest). */
  public static ObjectNode badRequest(String message) {
    return failure(400, "BadRequest", message, null);
  }

  /** 405 {@code create is not supported on resources of kind "pods/log"}. */
  public static ObjectNode methodNotAllowed(String group, String resource, String action) {
    return failure(
        405,
        "MethodNotAllowed",
        action + " is not supported on resources of kind " + quote(qualified(group, resource)),
        details(group, resource, ""));
  }

  /** 415 for a body in a media type the endpoint does not decode. */
  public static ObjectNode unsupportedMediaType(List<String> accepted) {
    return failure(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
            + String.join(", ", accepted),
        null);
  }

  /** 406 for an {@code Accept} header that admits none of the media types an endpoint serves. */
  public static ObjectNode notAcceptable(List<String> served) {
    return failure(
        406,
        "NotAcceptable",
        "only the following media types are accepted: " + String.join(", ", served),
        null);
  }

  /** 413 {@code Request entity too large: <message>}. */
  public static ObjectNode requestEntityTooLarge(String message) {
    return failure(413, "RequestEntityTooLarge", "Request entity too large: " + message, null);
  }

  /** 504 {@code Timeout: <message>}, with the retry hint kubectl honours. */
  public static ObjectNode timeout(String message, int retryAfterSeconds) {
    ObjectNode details = JSON.objectNode();
    if (retryAfterSeconds > 0) {
      details.put("retryAfterSeconds", retryAfterSeconds);
    }
    return failure(504, "Timeout", "Timeout: " + message, details);
  }

  /**
   * 504 {@code Too large resource version: X, current: Y} for a read at a version the log has not
   * reached, with kube-apiserver's cause {@code ResourceVersionTooLarge} and a retry hint.
   */
  public static ObjectNode tooLargeResourceVersion(String requested, String current) {
    ObjectNode details = JSON.objectNode();
    details
        .putArray("causes")
        .addObject()
        .put("reason", "ResourceVersionTooLarge")
        .put("message", "Too large resource version");
    details.put("retryAfterSeconds", 1);
    return failure(
        504,
        "Timeout",
        "Too large resource version: " + requested + ", current: " + current,
        details);
  }

  /**
   * 410 Expired for a watch or list from a compacted version: {@code too old resource version: X
   * (Y)} where Y is the oldest version still served.
   */
  public static ObjectNode tooOldResourceVersion(String requested, String oldest) {
    return expired("too old resource version: " + requested + " (" + oldest + ")");
  }

  /** 410 Expired (errors.NewResourceExpired), e.g. for a continue token that outlived the data. */
  public static ObjectNode expired(String message) {
    return failure(410, "Expired", message, null);
  }

  /** 410 Gone (errors.NewGone). */
  public static ObjectNode gone(String message) {
    return failure(410, "Gone", message, null);
  }

  /**
   * 403 {@code pods "x" is forbidden: <cause>}; {@code pods is forbidden: <cause>} without a name;
   * {@code forbidden: <cause>} without a resource.
   */
  public static ObjectNode forbidden(String group, String resource, String name, String cause) {
    String message;
    if (group.isEmpty() && resource.isEmpty()) {
      message = "forbidden: " + cause;
    } else if (name.isEmpty()) {
      message = qualified(group, resource) + " is forbidden: " + cause;
    } else {
      message = qualified(group, resource) + " " + quote(name) + " is forbidden: " + cause;
    }
    return failure(403, "Forbidden", message, details(group, resource, name));
  }

  /**
   * 403 as the authorization filter words it: {@code pods is forbidden: User "bob" cannot list
   * resource "pods" in API group "" in the namespace "default"}.
   */
  public static ObjectNode forbiddenByAuthorizer(
      String user,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name) {
    return forbiddenByAuthorizer(user, verb, group, resource, subresource, namespace, name, "");
  }

  /**
   * The same with the authorizers' {@code reason} after a colon, as kube-apiserver's {@code
   * responsewriters.Forbidden} adds it: {@code ... in the namespace "a": no relationship found
   * between node 'n1' and this object}.
   */
  public static ObjectNode forbiddenByAuthorizer(
      String user,
      String verb,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name,
      String reason) {
    String target = subresource.isEmpty() ? resource : resource + "/" + subresource;
    String cause =
        "User "
            + quote(user)
            + " cannot "
            + verb
            + " resource "
            + quote(target)
            + " in API group "
            + quote(group)
            + (namespace.isEmpty()
                ? " at the cluster scope"
                : " in the namespace " + quote(namespace))
            + (reason == null || reason.isEmpty() ? "" : ": " + reason);
    return forbidden(group, resource, name, cause);
  }

  /** 403 for a non-resource URL: {@code forbidden: User "bob" cannot get path "/metrics"}. */
  public static ObjectNode forbiddenPath(String user, String verb, String path) {
    return forbiddenPath(user, verb, path, "");
  }

  /** The same with the authorizers' {@code reason} after a colon. */
  public static ObjectNode forbiddenPath(String user, String verb, String path, String reason) {
    return forbidden(
        "",
        "",
        "",
        "User "
            + quote(user)
            + " cannot "
            + verb
            + " path "
            + quote(path)
            + (reason == null || reason.isEmpty() ? "" : ": " + reason));
  }

  /** 401; an empty reason reads "Unauthorized", as kube-apiserver answers unauthenticated calls. */
  public static ObjectNode unauthorized(String reason) {
    return failure(
        401, "Unauthorized", reason == null || reason.isEmpty() ? "Unauthorized" : reason, null);
  }

  /** 500 {@code Internal error occurred: <cause>} with the cause repeated in details.causes. */
  public static ObjectNode internalError(String cause) {
    ObjectNode details = JSON.objectNode();
    details.putArray("causes").addObject().put("message", cause);
    return failure(500, "InternalError", "Internal error occurred: " + cause, details);
  }

  /**
   * A failure for an error that is no API status (responsewriters.ErrorToAPIStatus): code 500, no
   * reason, the error's text as message — e.g. a kubelet that cannot be reached.
   */
  public static ObjectNode unknownError(String message) {
    ObjectNode status = base();
    status.put("status", "Failure");
    status.put("message", message);
    status.put("code", 500);
    return status;
  }

  /**
   * errors.NewGenericServerResponse(code, "", resource, name, serverMessage): how kube-apiserver
   * words an answer it proxied (from a kubelet) that it cannot interpret — a fixed message per
   * code, followed by {@code ( pods/log name)} (the verb is empty there, hence the space).
   */
  public static ObjectNode genericServerResponse(
      int code, String group, String resource, String name, String serverMessage) {
    String reason = "";
    String message =
        "the server responded with the status code "
            + code
            + " but did not return more information";
    switch (code) {
      case 409 -> {
        reason = "Conflict";
        message = "the server reported a conflict";
      }
      case 404 -> {
        reason = "NotFound";
        message = "the server could not find the requested resource";
      }
      case 400 -> {
        reason = "BadRequest";
        message = "the server rejected our request for an unknown reason";
      }
      case 401 -> {
        reason = "Unauthorized";
        message = "the server has asked for the client to provide credentials";
      }
      case 403 -> {
        reason = "Forbidden";
        message = serverMessage;
      }
      case 405 -> {
        reason = "MethodNotAllowed";
        message = "the server does not allow this method on the requested resource";
      }
      case 422 -> {
        reason = "Invalid";
        message = "the server rejected our request due to an error in our request";
      }
      case 504 -> {
        reason = "Timeout";
        message =
            "the server was unable to return a response in the time allotted, but may still be"
                + " processing the request";
      }
      case 429 -> {
        reason = "TooManyRequests";
        message = "the server has received too many requests and has asked us to try again later";
      }
      default -> {
        if (code >= 500) {
          reason = "InternalError";
          message =
              "an error on the server ("
                  + quote(serverMessage)
                  + ") has prevented the request from succeeding";
        }
      }
    }
    message += " ( " + qualified(group, resource) + " " + name + ")";
    ObjectNode status = base();
    status.put("status", "Failure");
    status.put("message", message);
    if (!reason.isEmpty()) {
      status.put("reason", reason);
    }
    status.set("details", details(group, resource, name));
    status.put("code", code);
    return status;
  }

  /** 200 Success, as a DELETE answers when it returns a Status instead of the object. */
  public static ObjectNode success(ResourceType type, String name, String uid) {
    ObjectNode status = base();
    status.put("status", "Success");
    ObjectNode details = details(type.group(), type.plural(), name);
    if (uid != null && !uid.isEmpty()) {
      details.put("uid", uid);
    }
    status.set("details", details);
    return status;
  }

  public static ApiException exception(ObjectNode status) {
    return new ApiException(status);
  }

  // ------------------------------------------------------------------ shape

  private static ObjectNode base() {
    ObjectNode status = JSON.objectNode();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.putObject("metadata");
    return status;
  }

  /** A failure Status with any code, reason, message and details. */
  public static ObjectNode failure(int code, String reason, String message, ObjectNode details) {
    ObjectNode status = base();
    status.put("status", "Failure");
    status.put("message", message);
    status.put("reason", reason);
    if (details != null) {
      status.set("details", details);
    }
    status.put("code", code);
    return status;
  }

  public static ObjectNode details(String group, String resource, String name) {
    ObjectNode details = JSON.objectNode();
    if (!name.isEmpty()) {
      details.put("name", name);
    }
    if (!group.isEmpty()) {
      details.put("group", group);
    }
    if (!resource.isEmpty()) {
      details.put("kind", resource);
    }
    return details;
  }

  private static String qualified(String group, String resource) {
    return group.isEmpty() ? resource : resource + "." + group;
  }

  private static String quote(String s) {
    return FieldError.goQuote(s);
  }
}
