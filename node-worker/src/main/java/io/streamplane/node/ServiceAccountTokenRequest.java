package io.streamplane.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Pod;
import io.streamplane.api.ServiceAccountTokenProjection;
import io.streamplane.schema.convert.KubeJson;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * The token of a projected {@code serviceAccountToken} source, as kubelet's token manager asks for
 * it: a {@code TokenRequest} for the pod's ServiceAccount, for the projection's audience (the API's
 * when it names none) and {@code expirationSeconds} (an hour by default), bound to the pod by its
 * name and uid, sent with the node's own identity.
 */
final class ServiceAccountTokenRequest {

  /** What kubelet asks for when a projection names no expiry. */
  static final long DEFAULT_EXPIRATION_SECONDS = 3600;

  /** A token, when it was issued, and when it expires. */
  record Token(String token, Instant issued, Instant expiration) {

    /** kubelet refreshes a token once 80% of its life has passed. */
    Instant refreshAt() {
      return issued.plus(Duration.between(issued, expiration).multipliedBy(8).dividedBy(10));
    }
  }

  private ServiceAccountTokenRequest() {}

  static CompletableFuture<Token> request(
      GatewayClient api, Pod pod, ServiceAccountTokenProjection projection) {
    String serviceAccount =
        pod.getSpec().getServiceAccountName() == null
                || pod.getSpec().getServiceAccountName().isEmpty()
            ? "default"
            : pod.getSpec().getServiceAccountName();
    ObjectNode request = JsonNodeFactory.instance.objectNode();
    request.put("apiVersion", "authentication.k8s.io/v1");
    request.put("kind", "TokenRequest");
    ObjectNode spec = request.putObject("spec");
    if (projection.getAudience() != null && !projection.getAudience().isEmpty()) {
      spec.putArray("audiences").add(projection.getAudience());
    }
    spec.put(
        "expirationSeconds",
        projection.getExpirationSeconds() == null
            ? DEFAULT_EXPIRATION_SECONDS
            : projection.getExpirationSeconds());
    ObjectNode bound = spec.putObject("boundObjectRef");
    bound.put("apiVersion", "v1");
    bound.put("kind", "Pod");
    bound.put("name", pod.getMetadata().getName());
    bound.put("uid", pod.getMetadata().getUid());
    String path =
        "/api/v1/namespaces/"
            + encode(pod.getMetadata().getNamespace())
            + "/serviceaccounts/"
            + encode(serviceAccount)
            + "/token";
    Instant asked = Instant.now();
    return api.postJson(path, KubeJson.writeJson(request))
        .thenApply(
            reply -> {
              if (PodInputsResolver.unavailable(reply)) {
                throw new PodInputsResolver.Unavailable(
                    "failed to fetch token: "
                        + reply.body().path("message").asText(reply.toString()),
                    null);
              }
              if (!reply.ok()) {
                throw new PodInputsResolver.MissingInput(
                    "failed to fetch token: "
                        + reply.body().path("message").asText(reply.toString()));
              }
              JsonNode status = reply.body().path("status");
              return new Token(
                  status.path("token").asText(),
                  asked,
                  Instant.parse(status.path("expirationTimestamp").asText()));
            });
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8);
  }
}
