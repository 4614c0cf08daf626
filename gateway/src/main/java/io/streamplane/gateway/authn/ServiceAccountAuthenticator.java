package io.streamplane.gateway.authn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.streamplane.log.UserInfo;
import java.security.PublicKey;
import java.security.interfaces.RSAPublicKey;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * ServiceAccount tokens, as kube-apiserver's service account authenticator: a JWT issued by this
 * cluster's issuer, signed by one of the {@code --service-account-key-file} keys, for one of the
 * API's audiences, not expired, whose ServiceAccount (and bound pod) still exists with the uid the
 * token names. The user is {@code system:serviceaccount:NS:NAME} (uid: the ServiceAccount's) in
 * {@code system:serviceaccounts} and {@code system:serviceaccounts:NS}, with the bound pod in its
 * extra ({@code authentication.kubernetes.io/pod-name}, {@code pod-uid}). A token that is no JWT,
 * or another issuer's, is not this authenticator's. Limits: no legacy Secret-based tokens.
 */
public final class ServiceAccountAuthenticator implements BearerToken.TokenAuthenticator {

  public static final String USER_PREFIX = "system:serviceaccount:";
  public static final String ALL_GROUP = "system:serviceaccounts";

  /** Reads an object of the cluster: group, resource, namespace, name. */
  public interface Objects {
    Optional<ObjectNode> get(String group, String resource, String namespace, String name);
  }

  private final List<RSAPublicKey> keys;
  private final String issuer;
  private final List<String> audiences;
  private final Objects objects;
  private final Clock clock;

  public ServiceAccountAuthenticator(
      List<PublicKey> keys, String issuer, List<String> audiences, Objects objects, Clock clock) {
    this.keys =
        keys.stream().filter(k -> k instanceof RSAPublicKey).map(k -> (RSAPublicKey) k).toList();
    this.issuer = issuer;
    this.audiences = List.copyOf(audiences);
    this.objects = objects;
    this.clock = clock;
  }

  @Override
  public Optional<UserInfo> authenticate(String token) throws AuthenticationException {
    SignedJWT jwt;
    JWTClaimsSet claims;
    try {
      jwt = SignedJWT.parse(token);
      claims = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      return Optional.empty();
    }
    if (!issuer.equals(claims.getIssuer())) {
      return Optional.empty();
    }
    if (!JWSAlgorithm.RS256.equals(jwt.getHeader().getAlgorithm()) || !verified(jwt)) {
      throw new AuthenticationException("square/go-jose: error in cryptographic primitive");
    }
    Instant now = clock.instant();
    if (claims.getExpirationTime() == null
        || !now.isBefore(claims.getExpirationTime().toInstant())) {
      throw new AuthenticationException("service account token has expired");
    }
    if (claims.getNotBeforeTime() != null
        && now.plusSeconds(60).isBefore(claims.getNotBeforeTime().toInstant())) {
      throw new AuthenticationException("service account token is not valid yet");
    }
    List<String> tokenAudiences = claims.getAudience() == null ? List.of() : claims.getAudience();
    if (tokenAudiences.stream().noneMatch(audiences::contains)) {
      throw new AuthenticationException(
          "token audiences "
              + quoted(tokenAudiences)
              + " is invalid for the target audiences "
              + quoted(audiences));
    }
    Map<String, Object> kubernetes = map(claims.getClaim("kubernetes.io"));
    String namespace = string(kubernetes.get("namespace"));
    Map<String, Object> serviceAccount = map(kubernetes.get("serviceaccount"));
    String name = string(serviceAccount.get("name"));
    String uid = string(serviceAccount.get("uid"));
    if (namespace.isEmpty()
        || name.isEmpty()
        || !(USER_PREFIX + namespace + ":" + name).equals(claims.getSubject())) {
      throw new AuthenticationException("service account token claims are not valid");
    }
    if (!exists("serviceaccounts", namespace, name, uid)) {
      throw new AuthenticationException("service account token has been invalidated");
    }
    Map<String, List<String>> extra = new LinkedHashMap<>();
    Map<String, Object> pod = map(kubernetes.get("pod"));
    if (!pod.isEmpty()) {
      String podName = string(pod.get("name"));
      String podUid = string(pod.get("uid"));
      if (!exists("pods", namespace, podName, podUid)) {
        throw new AuthenticationException("service account token has been invalidated");
      }
      extra.put("authentication.kubernetes.io/pod-name", List.of(podName));
      extra.put("authentication.kubernetes.io/pod-uid", List.of(podUid));
    }
    Map<String, Object> node = map(kubernetes.get("node"));
    if (!node.isEmpty()) {
      extra.put("authentication.kubernetes.io/node-name", List.of(string(node.get("name"))));
    }
    if (claims.getJWTID() != null) {
      extra.put("authentication.kubernetes.io/credential-id", List.of("JTI=" + claims.getJWTID()));
    }
    List<String> groups = new ArrayList<>(List.of(ALL_GROUP, ALL_GROUP + ":" + namespace));
    return Optional.of(
        UserInfo.newBuilder()
            .setUsername(claims.getSubject())
            .setUid(uid.isEmpty() ? null : uid)
            .setGroups(groups)
            .setExtra(extra)
            .build());
  }

  private boolean verified(SignedJWT jwt) {
    for (RSAPublicKey key : keys) {
      try {
        if (jwt.verify(new RSASSAVerifier(key))) {
          return true;
        }
      } catch (JOSEException e) {
        // Not this key.
      }
    }
    return false;
  }

  /**
   * Whether the object exists with {@code uid}. A ServiceAccount being deleted invalidates its
   * tokens; a pod's stay valid while it terminates, so that it can finish its work.
   */
  private boolean exists(String resource, String namespace, String name, String uid) {
    Optional<ObjectNode> object = objects.get("", resource, namespace, name);
    if (object.isEmpty()) {
      return false;
    }
    var metadata = object.get().path("metadata");
    boolean deleting =
        !metadata.path("deletionTimestamp").isMissingNode()
            && !metadata.path("deletionTimestamp").isNull();
    if (deleting && resource.equals("serviceaccounts")) {
      return false;
    }
    return uid.isEmpty() || uid.equals(metadata.path("uid").asText());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  private static String string(Object value) {
    return value == null ? "" : value.toString();
  }

  private static String quoted(List<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").toList().toString();
  }
}
