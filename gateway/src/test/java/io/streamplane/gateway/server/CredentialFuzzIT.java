package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.authn.ServiceAccountTokens;
import io.streamplane.gateway.pki.CertificateAuthority;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.gateway.pki.Pem;
import io.streamplane.gateway.testing.FuzzRun;
import io.streamplane.gateway.testing.StoredState;
import io.streamplane.gateway.testing.TestPlane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.topics.Topics;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import org.awaitility.Awaitility;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials under fire: thousands of generated requests with bad credentials against a real
 * gateway that authenticates (HTTPS, client certificates of the cluster CA, a static token file,
 * ServiceAccount tokens, anonymous requests allowed) and a real store. Bad bearer tokens (empty,
 * non-ASCII, huge, random, malformed JWTs, {@code alg: none}, HS256 keyed with the public key, a
 * foreign signing key, a changed payload, expired, not yet valid, another audience or issuer, a
 * deleted ServiceAccount, a pod that does not exist, a token of the token file with one character
 * changed), other {@code Authorization} schemes and duplicated headers, bad client certificates
 * over real TLS (self-signed, a foreign CA, expired, not yet valid, a CA or serving certificate, a
 * chain through a foreign intermediate), and impersonation by users who may not impersonate.
 *
 * <p>Every answer must be a Kubernetes Status of exactly the expected code: 401 when credentials
 * were presented and none authenticates (kube-apiserver does not fall back to anonymous then), 403
 * naming the user when the request authenticated (or carried no credentials and is {@code
 * system:anonymous}) but is not allowed; never a 5xx, never no answer; and nothing is stored: the
 * {@code events} topic's end offsets and the objects of the fuzzed namespace are the same after as
 * before. The bad credentials claim {@code kubernetes-admin} in {@code system:masters}, or derive
 * from credentials that may write ConfigMaps, and the requests are real writes, so a credential
 * wrongly accepted shows as a 2xx and a stored object.
 *
 * <p>Seeded and sized like {@link ApiFuzzIT}: the seed is printed, {@code
 * -Dstreamplane.fuzz.seed=N} replays a run and {@code -Dstreamplane.credentials.requests=N} sets
 * its size.
 *
 * <p>Limits: a token longer than Jetty's 8 KiB request header limit is answered 431 (a Status)
 * before any authenticator sees it, where kube-apiserver (1 MiB limit) answers 401.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CredentialFuzzIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int TIMEOUT_MS = 30_000;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String NS = "fuzz";
  private static final String ADMIN = ClusterPki.ADMIN_USER;
  private static final String MASTERS = ClusterPki.MASTERS_GROUP;
  private static final String ANONYMOUS = "system:anonymous";
  private static final String VIEWER = "fuzz-viewer";
  private static final String NOBODY = "fuzz-nobody";
  private static final String ISSUER = ServiceAccountTokens.DEFAULT_ISSUER;
  private static final UserInfo SYSTEM =
      UserInfo.newBuilder().setUsername("system:apiserver").setGroups(List.of(MASTERS)).build();

  /** A TLS client identity: the chain it presents (none: empty) and its key. */
  record Identity(String description, List<X509Certificate> chain, PrivateKey key) {

    static final Identity NONE = new Identity("no certificate", List.of(), null);
  }

  /**
   * A request and its one right answer: {@code code}, and for a 403 the user the Status names
   * ({@code User "NAME" cannot ...}).
   */
  record Case(
      String description,
      Identity identity,
      String method,
      String target,
      List<String> headers,
      byte[] body,
      int code,
      String forbiddenUser) {}

  private final Map<Identity, SSLContext> contexts = new HashMap<>();
  private TestPlane plane;
  private Topics topics;
  private GatewayServer gateway;
  private String bootstrap;
  private ClusterPki pki;
  private X509Certificate clusterCa;

  private Identity admin;
  private Identity nobody;
  private String adminToken;
  private String viewerToken;
  private String robotToken;
  private String robotUid;
  private String idleToken;
  private String doomedToken;
  private PublicKey signingPublicKey;
  private PrivateKey signingKey;
  private byte[] signingPublicPem;
  private KeyPair foreignRsa;
  private List<Identity> badCertificates;

  @BeforeAll
  void start(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
    plane = TestPlane.start(broker, "credfuzz", dir.resolve("store"));
    bootstrap = plane.bootstrap();
    topics = plane.topics();

    pki = ClusterPki.loadOrCreate(dir.resolve("pki"), Clock.systemUTC());
    clusterCa = pki.ca().certificate();
    Random tokens = new Random();
    adminToken = alphanumeric(tokens, 32);
    viewerToken = alphanumeric(tokens, 32);
    Path tokenFile = dir.resolve("tokens.csv");
    Files.writeString(
        tokenFile,
        adminToken
            + ",fuzz-admin,1001,\""
            + MASTERS
            + "\"\n"
            + viewerToken
            + ","
            + VIEWER
            + ",1002,\"fuzz-viewers\"\n");
    GatewaySecurity security =
        new GatewaySecurity(
            pki.servingCertificate(),
            pki.servingKey(),
            pki.caCertificate(),
            tokenFile,
            List.of(pki.serviceAccountPublicKey()),
            pki.serviceAccountKey(),
            ISSUER,
            true);
    gateway =
        GatewayServer.start(
            bootstrap,
            topics,
            "127.0.0.1",
            0,
            0,
            dir.resolve("history"),
            security,
            AuditPolicy.defaultPolicy());
    gateway.ensureSystemNamespaces(SYSTEM);
    signingKey = Pem.privateKey(pki.serviceAccountKey());
    signingPublicKey = Pem.publicKeys(pki.serviceAccountPublicKey()).get(0);
    signingPublicPem = Files.readAllBytes(pki.serviceAccountPublicKey());
    foreignRsa = CertificateAuthority.rsaKeyPair();

    ClusterPki.ClientIdentity adminIdentity = pki.admin();
    admin = new Identity("admin", List.of(adminIdentity.certificate()), adminIdentity.key());
    ClusterPki.ClientIdentity nobodyIdentity = pki.client(NOBODY, List.of());
    nobody = new Identity(NOBODY, List.of(nobodyIdentity.certificate()), nobodyIdentity.key());
    badCertificates = badCertificates();
    setUpNamespace();
  }

  /**
   * The fuzzed namespace: a ConfigMap; ServiceAccount {@code robot}, which may write ConfigMaps
   * (its valid token reads them), {@code idle}, which may do nothing, and {@code doomed}, deleted
   * once its token is issued.
   */
  private void setUpNamespace() throws Exception {
    expectCode(asAdmin("POST", "/api/v1/namespaces", namespaceJson(NS)), 201);
    expectCode(asAdmin("POST", configMaps(), configMapJson("base")), 201);
    expectCode(
        asAdmin(
            "POST",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/" + NS + "/roles",
            json(
                "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'Role',"
                    + "'metadata':{'name':'configmap-writer'},'rules':[{'apiGroups':[''],"
                    + "'resources':['configmaps'],'verbs':['*']}]}")),
        201);
    expectCode(
        asAdmin(
            "POST",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/" + NS + "/rolebindings",
            json(
                "{'apiVersion':'rbac.authorization.k8s.io/v1','kind':'RoleBinding',"
                    + "'metadata':{'name':'robot-writes'},'roleRef':{'apiGroup':"
                    + "'rbac.authorization.k8s.io','kind':'Role','name':'configmap-writer'},"
                    + "'subjects':[{'kind':'ServiceAccount','name':'robot','namespace':'"
                    + NS
                    + "'}]}")),
        201);
    for (String name : List.of("robot", "idle", "doomed")) {
      expectCode(
          asAdmin(
              "POST",
              serviceAccounts(),
              json(
                  "{'apiVersion':'v1','kind':'ServiceAccount','metadata':{'name':'"
                      + name
                      + "'}}")),
          201);
    }
    robotUid =
        JSON.readTree(asAdmin("GET", serviceAccounts() + "/robot", null).body())
            .at("/metadata/uid")
            .asText();
    robotToken = tokenRequest("robot");
    idleToken = tokenRequest("idle");
    doomedToken = tokenRequest("doomed");
    expectCode(asAdmin("DELETE", serviceAccounts() + "/doomed", null), 200);

    // The valid credentials the bad ones derive from do what they should, once the gateway's
    // cache and authorization index have the objects above.
    Awaitility.await("the robot's token may read ConfigMaps")
        .atMost(WAIT)
        .until(() -> code(bearer(robotToken, "GET", configMaps())) == 200);
    Awaitility.await("the deleted ServiceAccount's token is refused")
        .atMost(WAIT)
        .until(() -> code(bearer(doomedToken, "GET", configMaps())) == 401);
    assertThat(code(bearer(idleToken, "GET", configMaps()))).isEqualTo(403);
    assertThat(code(bearer(adminToken, "GET", configMaps()))).isEqualTo(200);
    assertThat(code(bearer(viewerToken, "GET", configMaps()))).isEqualTo(403);
    assertThat(code(request(nobody, "GET", configMaps()))).isEqualTo(403);
    assertThat(code(request(Identity.NONE, "GET", configMaps()))).isEqualTo(403);
    // What the cluster writes by itself into a new namespace, before the fuzz counts writes.
    Awaitility.await("the default ServiceAccount and kube-root-ca.crt of " + NS)
        .atMost(WAIT)
        .until(
            () ->
                asAdmin("GET", serviceAccounts() + "/default", null).code() == 200
                    && asAdmin("GET", configMaps() + "/kube-root-ca.crt", null).code() == 200);
  }

  @AfterAll
  void stop() throws Exception {
    TestPlane.closeAll(gateway, plane);
  }

  @Test
  void everyBadCredentialIsA401AndEveryForbiddenOneA403StatusAndNothingIsStored() throws Exception {
    long seed = FuzzRun.seed();
    long eventsBefore = eventsEnd();
    Map<String, TreeSet<String>> objectsBefore = objects();

    List<String> failures =
        FuzzRun.run(
            "CredentialFuzzIT",
            seed,
            Integer.getInteger("streamplane.credentials.requests", 300),
            this::generate,
            c -> {
              ApiFuzzIT.Answer answer = send(c);
              return new FuzzRun.Tried(answer.code(), check(c, answer));
            },
            c ->
                c.description()
                    + " ["
                    + c.identity().description()
                    + "] "
                    + c.method()
                    + " "
                    + c.target());

    assertThat(failures).as("seed %d: failed cases", seed).isEmpty();
    assertThat(eventsEnd()).as("seed %d: events written", seed).isEqualTo(eventsBefore);
    assertThat(objects()).as("seed %d: objects", seed).isEqualTo(objectsBefore);
  }

  private static String check(Case c, ApiFuzzIT.Answer answer) {
    String body = new String(answer.body(), StandardCharsets.UTF_8);
    if (answer.code() != c.code()) {
      return "answered " + answer.code() + ", not " + c.code() + ": " + abbreviate(body, 300);
    }
    JsonNode status;
    try {
      status = JSON.readTree(answer.body());
    } catch (IOException e) {
      return "answered " + answer.code() + " with no JSON: " + abbreviate(body, 200);
    }
    if (status == null
        || !"Status".equals(status.path("kind").asText())
        || status.path("code").asInt() != answer.code()) {
      return "answered " + answer.code() + " with no Status of that code: " + abbreviate(body, 200);
    }
    String reason = status.path("reason").asText();
    if (c.code() == 401 && !reason.equals("Unauthorized")) {
      return "answered 401 with reason " + reason;
    }
    if (c.code() == 403) {
      String message = status.path("message").asText();
      if (!reason.equals("Forbidden") || !message.contains("User \"" + c.forbiddenUser() + "\"")) {
        return "answered 403 not naming User \"" + c.forbiddenUser() + "\": " + message;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- generation

  private Case generate(Random r) {
    return switch (r.nextInt(20)) {
      case 0 -> noToken(r);
      case 1 -> nonAsciiToken(r);
      case 2 -> longToken(r);
      case 3 -> randomBase64Token(r);
      case 4 -> malformedJwt(r);
      case 5 -> algNone(r);
      case 6 -> hmacWithThePublicKey(r);
      case 7 -> foreignSigningKey(r);
      case 8 -> changedPayload(r);
      case 9 -> mutatedServiceAccountToken(r);
      case 10 -> outOfTime(r);
      case 11 -> wrongAudienceOrIssuer(r);
      case 12 -> invalidatedServiceAccountToken(r);
      case 13 -> mutatedTokenFileToken(r);
      case 14 -> otherScheme(r);
      case 15 -> twoAuthorizationHeaders(r);
      case 16, 17 -> badCertificate(r);
      case 18 -> impersonation(r);
      default -> validButForbidden(r);
    };
  }

  /**
   * No token as kube-apiserver reads the header: empty, {@code Bearer} without a value, blanks, or
   * the admin's token after two spaces or a tab. Anonymous.
   */
  private Case noToken(Random r) {
    String value =
        pick(
            r,
            "",
            "Bearer",
            "Bearer ",
            "Bearer    ",
            "bearer\t",
            "  Bearer  ",
            "Bearer  " + adminToken,
            "Bearer\t" + adminToken);
    return unauthenticatedRequest(r, "no token " + quote(value), value, 403, ANONYMOUS);
  }

  private Case nonAsciiToken(Random r) {
    String alphabet = "äöüßéñ€漢字кириллица\u00a0\u2028☃🙂";
    StringBuilder token = new StringBuilder();
    int n = 1 + r.nextInt(40);
    for (int i = 0; i < n; i++) {
      int at = r.nextInt(alphabet.length());
      token.append(r.nextBoolean() ? alphabet.charAt(at) : (char) ('a' + r.nextInt(26)));
    }
    if (Character.isHighSurrogate(token.charAt(token.length() - 1))) {
      token.setLength(token.length() - 1);
    }
    token.insert(0, 'x');
    return bearerCase(r, "non-ASCII token", token.toString());
  }

  private Case longToken(Random r) {
    if (r.nextInt(20) == 0) {
      String token = base64(randomBytes(r, 786_432), r.nextBoolean());
      return new Case(
          "1 MiB token (header too large)",
          Identity.NONE,
          "GET",
          configMaps(),
          List.of("Authorization: Bearer " + token),
          new byte[0],
          431,
          null);
    }
    // Below Jetty's 8 KiB header limit: the authenticators see it.
    return bearerCase(r, "long token", base64(randomBytes(r, 1000 + r.nextInt(4800)), true));
  }

  private Case randomBase64Token(Random r) {
    return bearerCase(
        r, "random base64 token", base64(randomBytes(r, 1 + r.nextInt(300)), r.nextBoolean()));
  }

  /** JWTs of 1, 2 or 4 segments (or 3 with empty ones), from the robot's token or random. */
  private Case malformedJwt(Random r) {
    String[] robot = robotToken.split("\\.");
    String garbage = base64(randomBytes(r, 1 + r.nextInt(200)), true);
    String token =
        switch (r.nextInt(7)) {
          case 0 -> robot[0];
          case 1 -> robot[0] + "." + robot[1];
          case 2 -> robot[0] + "." + robot[1] + ".";
          case 3 -> robotToken + "." + garbage;
          case 4 -> robot[0] + "." + robot[1] + "." + robot[2] + "." + robot[2];
          case 5 -> "..";
          default -> garbage + "." + garbage + (r.nextBoolean() ? "" : "." + garbage + ".x");
        };
    return bearerCase(r, "malformed JWT", token);
  }

  /** {@code alg: none} over the robot's real claims, unsigned or with its signature kept. */
  private Case algNone(Random r) {
    String[] robot = robotToken.split("\\.");
    String header = pick(r, "{\"alg\":\"none\"}", "{\"alg\":\"none\",\"typ\":\"JWT\"}");
    String token = base64Url(header) + "." + robot[1] + "." + (r.nextBoolean() ? "" : robot[2]);
    return bearerCase(r, "alg none " + header, token);
  }

  /** The key confusion attack: HS256, keyed with the public key that verifies RS256 tokens. */
  private Case hmacWithThePublicKey(Random r) {
    String[] robot = robotToken.split("\\.");
    String header =
        base64Url(
            "{\"alg\":\"HS256\",\"typ\":\"JWT\",\"kid\":\"" + keyId(signingPublicKey) + "\"}");
    byte[] secret = r.nextBoolean() ? signingPublicPem : signingPublicKey.getEncoded();
    String signed = header + "." + robot[1];
    return bearerCase(r, "HS256 keyed with the public key", signed + "." + hmac(secret, signed));
  }

  /** RS256 with a key the cluster does not know, its header naming the cluster's key id. */
  private Case foreignSigningKey(Random r) {
    ServiceAccountTokens foreign =
        new ServiceAccountTokens(
            foreignRsa.getPrivate(), signingPublicKey, ISSUER, List.of(ISSUER), Clock.systemUTC());
    return bearerCase(
        r,
        "signed by a foreign key",
        foreign.issue(NS, "robot", robotUid, List.of(ISSUER), Duration.ofHours(1), null).token());
  }

  /** The robot's valid token with one claim changed and its signature kept. */
  private Case changedPayload(Random r) {
    String[] robot = robotToken.split("\\.");
    ObjectNode claims;
    try {
      claims = (ObjectNode) JSON.readTree(Base64.getUrlDecoder().decode(robot[1]));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    String change;
    switch (r.nextInt(5)) {
      case 0 -> {
        change = "subject";
        claims.put("sub", "system:serviceaccount:" + NS + ":idle");
        ((ObjectNode) claims.at("/kubernetes.io/serviceaccount")).put("name", "idle");
      }
      case 1 -> {
        change = "expiry";
        claims.put("exp", claims.path("exp").asLong() + 86_400 * (1 + r.nextInt(365)));
      }
      case 2 -> {
        change = "namespace";
        ((ObjectNode) claims.path("kubernetes.io")).put("namespace", "kube-system");
      }
      case 3 -> {
        change = "groups";
        claims.putArray("groups").add(MASTERS);
      }
      default -> {
        change = "uid";
        ((ObjectNode) claims.at("/kubernetes.io/serviceaccount"))
            .put("uid", UUID.randomUUID().toString());
      }
    }
    return bearerCase(
        r,
        "payload changed: " + change,
        robot[0] + "." + base64Url(claims.toString()) + "." + robot[2]);
  }

  /**
   * The robot's valid token with one character of its header, claims or signature replaced. Never
   * the last character of a segment: its low bits may be padding that base64url decoders ignore
   * (Go's as well), which would leave the token unchanged.
   */
  private Case mutatedServiceAccountToken(Random r) {
    String[] segments = robotToken.split("\\.");
    int segment = r.nextInt(3);
    String s = segments[segment];
    int at = r.nextInt(s.length() - 1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char replacement;
    do {
      replacement = alphabet.charAt(r.nextInt(alphabet.length()));
    } while (replacement == s.charAt(at));
    segments[segment] = s.substring(0, at) + replacement + s.substring(at + 1);
    return bearerCase(
        r,
        "ServiceAccount token with a character of segment " + segment + " changed",
        String.join(".", segments));
  }

  /** Signed by the cluster's key, for the robot, but expired or not valid yet. */
  private Case outOfTime(Random r) {
    boolean expired = r.nextBoolean();
    Duration shift =
        expired
            ? Duration.ofMinutes(-10).minusSeconds(1 + r.nextInt(86_400))
            : Duration.ofSeconds(120 + r.nextInt(86_400));
    ServiceAccountTokens tokens =
        new ServiceAccountTokens(
            signingKey,
            signingPublicKey,
            ISSUER,
            List.of(ISSUER),
            Clock.offset(Clock.systemUTC(), shift));
    String token =
        tokens
            .issue(NS, "robot", robotUid, List.of(ISSUER), ServiceAccountTokens.MIN_EXPIRY, null)
            .token();
    return bearerCase(r, expired ? "expired token" : "token not valid yet", token);
  }

  private Case wrongAudienceOrIssuer(Random r) {
    boolean audience = r.nextBoolean();
    String issuer =
        audience
            ? ISSUER
            : pick(r, "https://evil.example", ISSUER + "/", "", "https://kubernetes.default.svc");
    List<String> audiences =
        audience
            ? List.of(pick(r, "vault", "https://kubernetes.default.svc", ISSUER + "/", "api"))
            : List.of(ISSUER);
    ServiceAccountTokens tokens =
        new ServiceAccountTokens(
            signingKey, signingPublicKey, issuer, List.of(issuer), Clock.systemUTC());
    String token =
        tokens.issue(NS, "robot", robotUid, audiences, Duration.ofHours(1), null).token();
    return bearerCase(r, audience ? "audience " + audiences : "issuer " + quote(issuer), token);
  }

  /**
   * Tokens the cluster signed whose ServiceAccount or pod is gone: the deleted ServiceAccount's
   * (issued by TokenRequest), one bound to a pod that does not exist, one naming another uid.
   */
  private Case invalidatedServiceAccountToken(Random r) {
    ServiceAccountTokens tokens =
        new ServiceAccountTokens(
            signingKey, signingPublicKey, ISSUER, List.of(ISSUER), Clock.systemUTC());
    return switch (r.nextInt(3)) {
      case 0 -> bearerCase(r, "token of a deleted ServiceAccount", doomedToken);
      case 1 ->
          bearerCase(
              r,
              "token bound to a pod that does not exist",
              tokens
                  .issue(
                      NS,
                      "robot",
                      robotUid,
                      List.of(ISSUER),
                      Duration.ofHours(1),
                      new ServiceAccountTokens.BoundPod(
                          "ghost-" + r.nextInt(100), UUID.randomUUID().toString(), ""))
                  .token());
      default ->
          bearerCase(
              r,
              "token of a ServiceAccount with another uid",
              tokens
                  .issue(
                      NS,
                      "robot",
                      UUID.randomUUID().toString(),
                      List.of(ISSUER),
                      Duration.ofHours(1),
                      null)
                  .token());
    };
  }

  /** A token of the token file (the admin's or the viewer's) with one character changed. */
  private Case mutatedTokenFileToken(Random r) {
    String token = r.nextBoolean() ? adminToken : viewerToken;
    String mutated;
    String how;
    int at = r.nextInt(token.length());
    switch (r.nextInt(5)) {
      case 0 -> {
        how = "replaced";
        char c;
        do {
          c = alphanumeric(r, 1).charAt(0);
        } while (c == token.charAt(at));
        mutated = token.substring(0, at) + c + token.substring(at + 1);
      }
      case 1 -> {
        how = "deleted";
        mutated = token.substring(0, at) + token.substring(at + 1);
      }
      case 2 -> {
        how = "inserted";
        mutated = token.substring(0, at) + alphanumeric(r, 1) + token.substring(at);
      }
      case 3 -> {
        how = "appended";
        mutated = token + alphanumeric(r, 1);
      }
      default -> {
        how = "case changed";
        int letter = at;
        while (!Character.isLetter(token.charAt(letter))) {
          letter = (letter + 1) % token.length();
        }
        char c = token.charAt(letter);
        char swapped =
            Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c);
        mutated = token.substring(0, letter) + swapped + token.substring(letter + 1);
      }
    }
    return bearerCase(
        r, "token-file token with a character " + how, mutated.equals(token) ? "x" : mutated);
  }

  /**
   * Schemes other than Bearer, even carrying the admin's valid token: no credentials kube-apiserver
   * reads (basic authentication is gone since 1.19), so anonymous.
   */
  private Case otherScheme(Random r) {
    String value =
        switch (r.nextInt(6)) {
          case 0 -> "Basic " + base64(randomBytes(r, 1 + r.nextInt(60)), false);
          case 1 ->
              "Basic "
                  + Base64.getEncoder()
                      .encodeToString((ADMIN + ":" + adminToken).getBytes(StandardCharsets.UTF_8));
          case 2 -> "Token " + adminToken;
          case 3 -> adminToken;
          case 4 -> "Negotiate " + base64(randomBytes(r, 1 + r.nextInt(60)), false);
          default -> "Digest username=\"" + ADMIN + "\", response=\"" + adminToken + "\"";
        };
    return unauthenticatedRequest(r, "scheme " + abbreviate(value, 12), value, 403, ANONYMOUS);
  }

  /** Two Authorization headers: kube-apiserver reads the first, whatever the second. */
  private Case twoAuthorizationHeaders(Random r) {
    Case first =
        r.nextBoolean()
            ? mutatedTokenFileToken(r)
            : unauthenticatedRequest(r, "basic", "Basic " + alphanumeric(r, 20), 403, ANONYMOUS);
    List<String> headers = new ArrayList<>(first.headers());
    headers.add("Authorization: Bearer " + adminToken);
    return new Case(
        "two Authorization headers, the first: " + first.description(),
        first.identity(),
        first.method(),
        first.target(),
        headers,
        first.body(),
        first.code(),
        first.forbiddenUser());
  }

  /** A bad client certificate alone (401), or with the viewer's valid token, which then wins. */
  private Case badCertificate(Random r) {
    Identity identity = badCertificates.get(r.nextInt(badCertificates.size()));
    if (identity.description().startsWith("the cluster CA")) {
      // As kube-apiserver (Go's x509 takes a certificate that is itself a root): the CA's holder
      // is user CN=kubernetes, in no group.
      return request(
          r, identity, List.of(), "certificate: " + identity.description(), 403, "kubernetes");
    }
    if (r.nextInt(4) == 0) {
      return request(
          r,
          identity,
          List.of("Authorization: Bearer " + viewerToken),
          "bad certificate and a valid token",
          403,
          VIEWER);
    }
    return request(r, identity, List.of(), "certificate: " + identity.description(), 401, null);
  }

  /** Users who may not impersonate asking to act as the admin, a group, a ServiceAccount. */
  private Case impersonation(Random r) {
    List<String> headers = new ArrayList<>();
    String user;
    Identity identity = Identity.NONE;
    switch (r.nextInt(4)) {
      case 0 -> {
        user = VIEWER;
        headers.add("Authorization: Bearer " + viewerToken);
      }
      case 1 -> {
        user = "system:serviceaccount:" + NS + ":idle";
        headers.add("Authorization: Bearer " + idleToken);
      }
      case 2 -> {
        user = NOBODY;
        identity = nobody;
      }
      default -> user = ANONYMOUS;
    }
    headers.add(
        "Impersonate-User: "
            + pick(r, ADMIN, "system:serviceaccount:" + NS + ":robot", "system:admin", VIEWER));
    int groups = r.nextInt(3);
    for (int g = 0; g < groups; g++) {
      headers.add("Impersonate-Group: " + pick(r, MASTERS, "system:nodes", "system:authenticated"));
    }
    if (r.nextInt(4) == 0) {
      headers.add("Impersonate-Uid: " + UUID.randomUUID());
    }
    if (r.nextInt(4) == 0) {
      headers.add("Impersonate-Extra-Scopes: " + pick(r, "view", "admin"));
    }
    return request(r, identity, headers, "impersonation by " + user, 403, user);
  }

  /** Valid credentials of users who may not do this: they authenticate, so a 403 naming them. */
  private Case validButForbidden(Random r) {
    return switch (r.nextInt(3)) {
      case 0 -> request(r, nobody, List.of(), "valid certificate", 403, NOBODY);
      case 1 ->
          request(
              r,
              Identity.NONE,
              List.of("Authorization: Bearer " + viewerToken),
              "valid token-file token",
              403,
              VIEWER);
      default ->
          request(
              r,
              Identity.NONE,
              List.of("Authorization: Bearer " + idleToken),
              "valid ServiceAccount token",
              403,
              "system:serviceaccount:" + NS + ":idle");
    };
  }

  private Case bearerCase(Random r, String description, String token) {
    return unauthenticatedRequest(r, description, "Bearer " + token, 401, null);
  }

  private Case unauthenticatedRequest(
      Random r, String description, String authorization, int code, String user) {
    return request(
        r, Identity.NONE, List.of("Authorization: " + authorization), description, code, user);
  }

  /**
   * A request one of the bad credentials' originals may make: reads and writes of ConfigMaps (the
   * robot's and the admin's), a namespace, secrets, a token, a watch.
   */
  private Case request(
      Random r,
      Identity identity,
      List<String> headers,
      String description,
      int code,
      String user) {
    List<String> all = new ArrayList<>(headers);
    byte[] body = new byte[0];
    String method;
    String target;
    switch (r.nextInt(9)) {
      case 0 -> {
        method = "GET";
        target = configMaps();
      }
      case 1 -> {
        method = "GET";
        target = configMaps() + "/base";
      }
      case 2 -> {
        method = "GET";
        target = configMaps() + "?watch=true&timeoutSeconds=1";
      }
      case 3 -> {
        method = "POST";
        target = configMaps();
        body = configMapJson("fz-" + r.nextInt(1000));
      }
      case 4 -> {
        method = "PUT";
        target = configMaps() + "/base";
        body = configMapJson("base");
      }
      case 5 -> {
        method = "PATCH";
        target = configMaps() + "/base";
        body = "{\"data\":{\"fuzzed\":\"yes\"}}".getBytes(StandardCharsets.UTF_8);
        all.add("Content-Type: application/merge-patch+json");
      }
      case 6 -> {
        method = "DELETE";
        target = configMaps() + "/base";
      }
      case 7 -> {
        method = "POST";
        target = "/api/v1/namespaces";
        body = namespaceJson("fz-" + r.nextInt(1000));
      }
      default -> {
        method = "POST";
        target = serviceAccounts() + "/robot/token";
        body = json("{'apiVersion':'authentication.k8s.io/v1','kind':'TokenRequest','spec':{}}");
      }
    }
    if (body.length > 0 && !method.equals("PATCH")) {
      all.add("Content-Type: application/json");
    }
    return new Case(description, identity, method, target, all, body, code, user);
  }

  // ---------------------------------------------------------------- certificates

  /**
   * Client certificates of {@code kubernetes-admin} in {@code system:masters} that must not
   * authenticate, and the cluster CA's own certificate, which does (as user {@code kubernetes}).
   */
  private List<Identity> badCertificates() throws GeneralSecurityException {
    Clock now = Clock.systemUTC();
    List<Identity> identities = new ArrayList<>();
    X500Name adminName = name(ADMIN, MASTERS);

    KeyPair self = ecKeyPair();
    identities.add(
        new Identity(
            "self-signed",
            List.of(
                certificate(
                    adminName, adminName, self.getPublic(), self.getPrivate(), false, true)),
            self.getPrivate()));

    // A foreign CA with the cluster CA's very name.
    CertificateAuthority foreign = CertificateAuthority.create("kubernetes", now);
    CertificateAuthority.Issued foreignAdmin = foreign.issueClient(ADMIN, List.of(MASTERS));
    identities.add(
        new Identity(
            "signed by a foreign CA", List.of(foreignAdmin.certificate()), foreignAdmin.key()));
    identities.add(
        new Identity(
            "a foreign CA's own certificate", List.of(foreign.certificate()), foreign.key()));

    CertificateAuthority past =
        new CertificateAuthority(
            clusterCa,
            pki.ca().key(),
            Clock.offset(now, CertificateAuthority.CERTIFICATE_VALIDITY.plusDays(1).negated()));
    CertificateAuthority.Issued expired = past.issueClient(ADMIN, List.of(MASTERS));
    identities.add(new Identity("expired", List.of(expired.certificate()), expired.key()));
    CertificateAuthority future =
        new CertificateAuthority(clusterCa, pki.ca().key(), Clock.offset(now, Duration.ofDays(1)));
    CertificateAuthority.Issued early = future.issueClient(ADMIN, List.of(MASTERS));
    identities.add(new Identity("not valid yet", List.of(early.certificate()), early.key()));

    CertificateAuthority.Issued serving =
        pki.ca().issueServing(ADMIN, List.of("localhost"), List.of("127.0.0.1"));
    identities.add(
        new Identity(
            "a serving certificate of the cluster CA",
            List.of(serving.certificate()),
            serving.key()));

    // A chain through an intermediate signed by the foreign CA that bears the cluster CA's name.
    KeyPair intermediateKeys = ecKeyPair();
    X500Name intermediateName = name("intermediate", null);
    X509Certificate intermediate =
        certificate(
            intermediateName,
            X500Name.getInstance(foreign.certificate().getSubjectX500Principal().getEncoded()),
            intermediateKeys.getPublic(),
            foreign.key(),
            true,
            false);
    KeyPair leafKeys = ecKeyPair();
    X509Certificate leaf =
        certificate(
            adminName,
            intermediateName,
            leafKeys.getPublic(),
            intermediateKeys.getPrivate(),
            false,
            true);
    identities.add(
        new Identity(
            "a chain with a foreign intermediate",
            List.of(leaf, intermediate),
            leafKeys.getPrivate()));
    identities.add(
        new Identity(
            "a chain with a foreign intermediate and the cluster CA",
            List.of(leaf, intermediate, clusterCa),
            leafKeys.getPrivate()));

    identities.add(
        new Identity("the cluster CA's own certificate", List.of(clusterCa), pki.ca().key()));
    return identities;
  }

  private static X509Certificate certificate(
      X500Name subject,
      X500Name issuer,
      PublicKey publicKey,
      PrivateKey signer,
      boolean ca,
      boolean clientAuth)
      throws GeneralSecurityException {
    Instant now = Instant.now();
    try {
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  issuer,
                  new BigInteger(63, new java.security.SecureRandom()).add(BigInteger.ONE),
                  Date.from(now.minus(Duration.ofMinutes(5))),
                  Date.from(now.plus(Duration.ofDays(30))),
                  subject,
                  publicKey)
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      if (clientAuth) {
        builder.addExtension(
            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
      }
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    } catch (org.bouncycastle.operator.OperatorCreationException | IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static X500Name name(String commonName, String organization) {
    X500NameBuilder name = new X500NameBuilder(BCStyle.INSTANCE);
    if (organization != null) {
      name.addRDN(BCStyle.O, organization);
    }
    name.addRDN(BCStyle.CN, commonName);
    return name.build();
  }

  private static KeyPair ecKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  // ---------------------------------------------------------------- the wire

  /**
   * Sends {@code c} over TLS presenting its identity's chain, whatever it is: the key manager
   * offers it even when the server's advertised CAs did not sign it.
   */
  private ApiFuzzIT.Answer send(Case c) throws IOException {
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress("127.0.0.1", gateway.port()), 5_000);
      plain.setSoTimeout(TIMEOUT_MS);
      try (SSLSocket socket =
          (SSLSocket)
              context(c.identity())
                  .getSocketFactory()
                  .createSocket(plain, "127.0.0.1", gateway.port(), true)) {
        socket.startHandshake();
        OutputStream out = socket.getOutputStream();
        StringBuilder head = new StringBuilder();
        head.append(c.method()).append(' ').append(c.target()).append(" HTTP/1.1\r\n");
        head.append("Host: 127.0.0.1\r\nConnection: close\r\nAccept: application/json\r\n");
        c.headers().forEach(h -> head.append(h).append("\r\n"));
        head.append("Content-Length: ").append(c.body().length).append("\r\n\r\n");
        try {
          out.write(head.toString().getBytes(StandardCharsets.UTF_8));
          out.write(c.body());
          out.flush();
        } catch (IOException e) {
          // The server may answer (431) and close before reading a huge header: read its answer.
        }
        return ApiFuzzIT.read(new BufferedInputStream(socket.getInputStream()), false);
      }
    }
  }

  private SSLContext context(Identity identity) {
    return contexts.computeIfAbsent(
        identity,
        i -> {
          try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", clusterCa);
            TrustManagerFactory trustManagers =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                new KeyManager[] {new PresentedChain(i)}, trustManagers.getTrustManagers(), null);
            return context;
          } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** Presents one chain (or none) whatever the server asks for. */
  private static final class PresentedChain extends X509ExtendedKeyManager {

    private final Identity identity;

    PresentedChain(Identity identity) {
      this.identity = identity;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return identity.chain().isEmpty() || !List.of(keyType).contains(identity.key().getAlgorithm())
          ? null
          : "client";
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return chooseClientAlias(keyType, issuers, null);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return identity.chain().toArray(X509Certificate[]::new);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return identity.key();
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return identity.chain().isEmpty() ? null : new String[] {"client"};
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }
  }

  private int code(Case c) throws IOException {
    return send(c).code();
  }

  private ApiFuzzIT.Answer asAdmin(String method, String target, byte[] body) throws IOException {
    List<String> headers = body == null ? List.of() : List.of("Content-Type: application/json");
    return send(
        new Case(
            "setup", admin, method, target, headers, body == null ? new byte[0] : body, 0, null));
  }

  private static Case bearer(String token, String method, String target) {
    return new Case(
        "check",
        Identity.NONE,
        method,
        target,
        List.of("Authorization: Bearer " + token),
        new byte[0],
        0,
        null);
  }

  private static Case request(Identity identity, String method, String target) {
    return new Case("check", identity, method, target, List.of(), new byte[0], 0, null);
  }

  private static void expectCode(ApiFuzzIT.Answer answer, int code) {
    assertThat(answer.code()).as(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo(code);
  }

  private String tokenRequest(String serviceAccount) throws IOException {
    ApiFuzzIT.Answer answer =
        asAdmin(
            "POST",
            serviceAccounts() + "/" + serviceAccount + "/token",
            json("{'apiVersion':'authentication.k8s.io/v1','kind':'TokenRequest','spec':{}}"));
    expectCode(answer, 201);
    return JSON.readTree(answer.body()).at("/status/token").asText();
  }

  // ---------------------------------------------------------------- state

  private long eventsEnd() {
    return StoredState.eventsEnd(bootstrap, topics);
  }

  private Map<String, TreeSet<String>> objects() throws IOException {
    return StoredState.objects(
        List.of(
            configMaps(),
            serviceAccounts(),
            "/api/v1/namespaces/" + NS + "/secrets",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/" + NS + "/roles",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/" + NS + "/rolebindings",
            "/api/v1/namespaces"),
        path -> {
          ApiFuzzIT.Answer list = asAdmin("GET", path, null);
          assertThat(list.code()).isEqualTo(200);
          return list.body();
        });
  }

  // ---------------------------------------------------------------- values

  private static String configMaps() {
    return "/api/v1/namespaces/" + NS + "/configmaps";
  }

  private static String serviceAccounts() {
    return "/api/v1/namespaces/" + NS + "/serviceaccounts";
  }

  private static byte[] namespaceJson(String name) {
    return json("{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'" + name + "'}}");
  }

  private static byte[] configMapJson(String name) {
    return json(
        "{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'"
            + name
            + "'},'data':{'key':'value'}}");
  }

  /** JSON written with single quotes, for legibility. */
  private static byte[] json(String singleQuoted) {
    return singleQuoted.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
  }

  private static String alphanumeric(Random r, int length) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      s.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  private static byte[] randomBytes(Random r, int length) {
    byte[] bytes = new byte[length];
    r.nextBytes(bytes);
    return bytes;
  }

  private static String base64(byte[] bytes, boolean url) {
    return url
        ? Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)
        : Base64.getEncoder().encodeToString(bytes);
  }

  private static String base64Url(String text) {
    return base64(text.getBytes(StandardCharsets.UTF_8), true);
  }

  private static String hmac(byte[] secret, String signed) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return base64(mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII)), true);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** kube-apiserver's key id: the unpadded base64url SHA-256 of the public key's DER encoding. */
  private static String keyId(PublicKey key) {
    try {
      return base64(MessageDigest.getInstance("SHA-256").digest(key.getEncoded()), true);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @SafeVarargs
  private static <T> T pick(Random r, T... values) {
    return values[r.nextInt(values.length)];
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  private static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "...";
  }
}
