package io.streamplane.gateway.authn;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Issues ServiceAccount tokens as kube-apiserver's {@code TokenRequest} does: RS256 JWTs signed by
 * the cluster's {@code --service-account-signing-key-file}, whose claims are Kubernetes' ({@code
 * iss}, {@code sub} {@code system:serviceaccount:NS:NAME}, {@code aud}, {@code exp}, {@code iat},
 * {@code nbf}, {@code jti}, and {@code kubernetes.io} with the namespace, the ServiceAccount's name
 * and uid, and the pod the token is bound to). {@link ServiceAccountAuthenticator} verifies them.
 */
public final class ServiceAccountTokens {

  /** kube-apiserver's {@code --service-account-issuer} as kubeadm sets it. */
  public static final String DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

  /** TokenRequest's shortest expiry: ten minutes. */
  public static final Duration MIN_EXPIRY = Duration.ofMinutes(10);

  /** TokenRequest's default expiry: an hour. */
  public static final Duration DEFAULT_EXPIRY = Duration.ofHours(1);

  /**
   * A token's longest life here, as kube-apiserver's {@code --service-account-max-token-expiration}
   * may set it.
   */
  public static final Duration MAX_EXPIRY = Duration.ofDays(2);

  /** The object a token is bound to: a pod (name and uid) and the node it runs on, if any. */
  public record BoundPod(String name, String uid, String nodeName) {}

  /** A token and when it expires. */
  public record Issued(String token, Instant expiration) {}

  private final PrivateKey signingKey;
  private final String keyId;
  private final String issuer;
  private final List<String> apiAudiences;
  private final Clock clock;

  public ServiceAccountTokens(
      PrivateKey signingKey,
      PublicKey publicKey,
      String issuer,
      List<String> apiAudiences,
      Clock clock) {
    this.signingKey = signingKey;
    this.keyId = keyId(publicKey);
    this.issuer = issuer;
    this.apiAudiences = List.copyOf(apiAudiences);
    this.clock = clock;
  }

  public String issuer() {
    return issuer;
  }

  /** The audiences a token is for when its request names none: the API server's own. */
  public List<String> apiAudiences() {
    return apiAudiences;
  }

  /**
   * A token of ServiceAccount {@code name} (uid {@code uid}) in {@code namespace}, for {@code
   * audiences}, valid for {@code expiry}, bound to {@code pod} when it is not null.
   */
  public Issued issue(
      String namespace,
      String name,
      String uid,
      List<String> audiences,
      Duration expiry,
      BoundPod pod) {
    Instant now = clock.instant();
    Instant expiration = now.plus(expiry);
    Map<String, Object> serviceAccount = new LinkedHashMap<>();
    serviceAccount.put("name", name);
    serviceAccount.put("uid", uid);
    Map<String, Object> kubernetes = new LinkedHashMap<>();
    kubernetes.put("namespace", namespace);
    if (pod != null) {
      kubernetes.put("pod", Map.of("name", pod.name(), "uid", pod.uid()));
      if (pod.nodeName() != null && !pod.nodeName().isEmpty()) {
        kubernetes.put("node", Map.of("name", pod.nodeName()));
      }
    }
    kubernetes.put("serviceaccount", serviceAccount);
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(issuer)
            .subject(ServiceAccountAuthenticator.USER_PREFIX + namespace + ":" + name)
            .audience(audiences)
            .expirationTime(Date.from(expiration))
            .issueTime(Date.from(now))
            .notBeforeTime(Date.from(now))
            .jwtID(UUID.randomUUID().toString())
            .claim("kubernetes.io", kubernetes)
            .build();
    SignedJWT jwt =
        new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(keyId).build(), claims);
    try {
      jwt.sign(new RSASSASigner(signingKey));
    } catch (JOSEException e) {
      throw new IllegalStateException("cannot sign a token: " + e.getMessage(), e);
    }
    // JWT times are whole seconds.
    return new Issued(jwt.serialize(), Instant.ofEpochSecond(expiration.getEpochSecond()));
  }

  /** kube-apiserver's key id: the unpadded base64url SHA-256 of the public key's DER encoding. */
  static String keyId(PublicKey key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
