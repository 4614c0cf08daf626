package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Credentials;
import io.streamplane.gateway.authn.ServiceAccountTokens;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The authentication API, answered by the gateway and never stored, as kube-apiserver answers it:
 * {@code SelfSubjectReview} (who am I: {@code kubectl auth whoami}), {@code TokenReview} (who does
 * this token name) and the {@code serviceaccounts/token} subresource ({@code TokenRequest}: a
 * ServiceAccount token for audiences, an expiry, optionally bound to a pod). Each is a {@code
 * create} answered 201 with the request's object and its status filled in.
 *
 * <p>Limits: a token binds to a pod only (not a Secret or a Node); dry-run requests issue a token
 * all the same.
 */
final class AuthenticationApi {

  static final String GROUP = "authentication.k8s.io";
  private static final String API_VERSION = GROUP + "/v1";

  private final ResourceService service;
  private final ResourceType serviceAccounts;
  private final ResourceType pods;
  private final Optional<ServiceAccountTokens> tokens;
  private final Authentication authentication;
  private final Clock clock;

  AuthenticationApi(
      ResourceRegistry registry,
      ResourceService service,
      Optional<ServiceAccountTokens> tokens,
      Authentication authentication,
      Clock clock) {
    this.service = service;
    this.serviceAccounts = registry.byResource("", "serviceaccounts").orElseThrow();
    this.pods = registry.byResource("", "pods").orElseThrow();
    this.tokens = tokens;
    this.authentication = authentication;
    this.clock = clock;
  }

  /** Whether {@code request} is one of this API's. */
  static boolean serves(RequestInfo request) {
    if (!request.resourceRequest() || !"v1".equals(request.version())) {
      return false;
    }
    if (GROUP.equals(request.group())) {
      return List.of("selfsubjectreviews", "tokenreviews").contains(request.resource())
          && request.subresource() == null;
    }
    return "".equals(request.group())
        && "serviceaccounts".equals(request.resource())
        && "token".equals(request.subresource());
  }

  /** The answer to a create of this API by {@code user} with {@code body}. */
  ObjectNode create(RequestInfo request, UserInfo user, ObjectNode body) {
    if (!"create".equals(request.verb())) {
      String resource =
          request.subresource() == null
              ? request.resource()
              : request.resource() + "/" + request.subresource();
      throw new ApiException(Statuses.methodNotAllowed(request.group(), resource, request.verb()));
    }
    return switch (request.resource()) {
      case "selfsubjectreviews" -> selfSubjectReview(user);
      case "tokenreviews" -> tokenReview(body);
      default -> tokenRequest(request.namespace(), request.name(), body);
    };
  }

  /** kube-apiserver's SelfSubjectReview: the requesting user as authentication named it. */
  ObjectNode selfSubjectReview(UserInfo user) {
    ObjectNode review = object("SelfSubjectReview");
    review.putObject("status").set("userInfo", userInfo(user));
    return review;
  }

  /** kube-apiserver's TokenReview: the user a bearer token names, or why it names none. */
  ObjectNode tokenReview(ObjectNode body) {
    String token = body.path("spec").path("token").asText("");
    ObjectNode review = object("TokenReview");
    review.set("spec", body.path("spec").deepCopy());
    ObjectNode status = review.putObject("status");
    if (token.isEmpty()) {
      throw new ApiException(
          Statuses.invalid(
              GROUP, "TokenReview", "", List.of(FieldError.required("spec.token", ""))));
    }
    Credentials credentials = new Credentials("Bearer " + token, List.of(), null);
    // A token with blanks is none a request's Authorization header can carry whole: no user.
    Optional<UserInfo> user =
        credentials.bearerToken().equals(Optional.of(token))
            ? authentication.authenticate(credentials)
            : Optional.empty();
    if (user.isEmpty() || user.get().getUsername().equals(Authentication.ANONYMOUS_USER)) {
      status.put("authenticated", false);
      status.put("error", "invalid bearer token");
      status.putObject("user");
      return review;
    }
    status.put("authenticated", true);
    status.set("user", userInfo(user.get()));
    ArrayNode audiences = status.putArray("audiences");
    tokens.ifPresent(t -> t.apiAudiences().forEach(audiences::add));
    return review;
  }

  /**
   * kube-apiserver's TokenRequest: a token of ServiceAccount {@code name}, for the request's
   * audiences (default: the API's), {@code expirationSeconds} (default an hour, at least ten
   * minutes), bound to the pod of {@code boundObjectRef} when given.
   */
  ObjectNode tokenRequest(String namespace, String name, ObjectNode body) {
    ServiceAccountTokens issuer =
        tokens.orElseThrow(
            () ->
                new ApiException(
                    Statuses.failure(
                        404,
                        "NotFound",
                        "the server could not find the requested resource (serviceaccounts/token"
                            + " is served only with --service-account-signing-key-file)",
                        null)));
    ObjectNode serviceAccount = service.get(serviceAccounts, namespace, name);
    JsonNode spec = body.path("spec");
    long expirationSeconds =
        spec.path("expirationSeconds").isNumber()
            ? spec.path("expirationSeconds").asLong()
            : ServiceAccountTokens.DEFAULT_EXPIRY.toSeconds();
    if (expirationSeconds < ServiceAccountTokens.MIN_EXPIRY.toSeconds()) {
      throw invalid(
          name,
          FieldError.invalid(
              "spec.expirationSeconds",
              expirationSeconds,
              "may not specify a duration less than 10 minutes"));
    }
    if (expirationSeconds > 1L << 32) {
      throw invalid(
          name,
          FieldError.invalid(
              "spec.expirationSeconds",
              expirationSeconds,
              "may not specify a duration larger than 2^32 seconds"));
    }
    Duration expiry =
        Duration.ofSeconds(
            Math.min(expirationSeconds, ServiceAccountTokens.MAX_EXPIRY.toSeconds()));
    List<String> audiences = new ArrayList<>();
    spec.path("audiences").forEach(a -> audiences.add(a.asText()));
    if (audiences.isEmpty()) {
      audiences.addAll(issuer.apiAudiences());
    }
    ServiceAccountTokens.BoundPod bound = null;
    JsonNode ref = spec.path("boundObjectRef");
    if (ref.isObject()) {
      bound = boundPod(namespace, name, ref);
    }
    ServiceAccountTokens.Issued issued =
        issuer.issue(
            namespace,
            name,
            serviceAccount.path("metadata").path("uid").asText(""),
            audiences,
            expiry,
            bound);
    ObjectNode answer = object("TokenRequest");
    ObjectNode metadata = answer.putObject("metadata");
    metadata.put("name", name);
    metadata.put("namespace", namespace);
    metadata.put("creationTimestamp", now());
    ObjectNode answerSpec = answer.putObject("spec");
    ArrayNode audienceArray = answerSpec.putArray("audiences");
    audiences.forEach(audienceArray::add);
    answerSpec.put("expirationSeconds", expiry.toSeconds());
    if (ref.isObject()) {
      answerSpec.set("boundObjectRef", ref.deepCopy());
    } else {
      answerSpec.putNull("boundObjectRef");
    }
    ObjectNode status = answer.putObject("status");
    status.put("token", issued.token());
    status.put("expirationTimestamp", issued.expiration().toString());
    return answer;
  }

  private ServiceAccountTokens.BoundPod boundPod(
      String namespace, String serviceAccount, JsonNode ref) {
    String kind = ref.path("kind").asText("");
    String apiVersion = ref.path("apiVersion").asText("");
    if (!kind.equals("Pod") || !apiVersion.equals("v1")) {
      throw new ApiException(
          Statuses.badRequest(
              "cannot bind token for object of type "
                  + (apiVersion.isEmpty() ? "" : apiVersion + ", ")
                  + "Kind="
                  + kind));
    }
    String podName = ref.path("name").asText("");
    ObjectNode pod = service.get(pods, namespace, podName);
    String uid = pod.path("metadata").path("uid").asText("");
    String wanted = ref.path("uid").asText("");
    if (!wanted.isEmpty() && !wanted.equals(uid)) {
      throw new ApiException(
          Statuses.conflict(
              pods,
              podName,
              "the UID in the bound object reference ("
                  + wanted
                  + ") does not match the UID in record. The object might have been deleted and"
                  + " then recreated"));
    }
    String podServiceAccount = pod.path("spec").path("serviceAccountName").asText("default");
    if (!podServiceAccount.equals(serviceAccount)) {
      throw new ApiException(
          Statuses.badRequest(
              "cannot bind token to pod "
                  + podName
                  + ": pod does not use service account "
                  + serviceAccount));
    }
    return new ServiceAccountTokens.BoundPod(
        podName, uid, pod.path("spec").path("nodeName").asText(""));
  }

  private ApiException invalid(String name, FieldError error) {
    return new ApiException(Statuses.invalid(GROUP, "TokenRequest", name, List.of(error)));
  }

  private ObjectNode object(String kind) {
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object.put("kind", kind);
    object.put("apiVersion", API_VERSION);
    object.putObject("metadata").put("creationTimestamp", now());
    return object;
  }

  private String now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** A user as authentication.k8s.io/v1 UserInfo. */
  static ObjectNode userInfo(UserInfo user) {
    ObjectNode info = JsonNodeFactory.instance.objectNode();
    info.put("username", user.getUsername());
    if (user.getUid() != null && !user.getUid().isEmpty()) {
      info.put("uid", user.getUid());
    }
    ArrayNode groups = info.putArray("groups");
    user.getGroups().forEach(groups::add);
    if (!user.getExtra().isEmpty()) {
      ObjectNode extra = info.putObject("extra");
      for (Map.Entry<String, List<String>> entry : user.getExtra().entrySet()) {
        ArrayNode values = extra.putArray(entry.getKey());
        entry.getValue().forEach(values::add);
      }
    }
    return info;
  }
}
