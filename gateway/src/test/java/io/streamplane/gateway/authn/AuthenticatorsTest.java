package io.streamplane.gateway.authn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.pki.CertificateAuthority;
import io.streamplane.log.UserInfo;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The authenticators of the cluster's chain, each on real certificates and real signed tokens: x509
 * client certificates, the static token file, ServiceAccount JWTs, and their union with anonymous
 * requests.
 */
class AuthenticatorsTest {

  private static final Instant NOW = Instant.parse("2026-11-23T08:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private static final CertificateAuthority CA = CertificateAuthority.create("kubernetes", CLOCK);
  private static final KeyPair SIGNING = CertificateAuthority.rsaKeyPair();
  private static final String ISSUER = ServiceAccountTokens.DEFAULT_ISSUER;

  private final Map<String, ObjectNode> objects = new HashMap<>();

  private static Credentials certificate(CertificateAuthority.Issued issued) {
    return new Credentials(null, List.of(issued.certificate()), null);
  }

  private static Credentials bearer(String token) {
    return new Credentials("Bearer " + token, List.of(), null);
  }

  @Test
  void aClientCertificateOfTheClusterCaNamesItsCommonNameAndOrganizations() throws Exception {
    X509Authenticator x509 = new X509Authenticator(List.of(CA.certificate()), CLOCK);
    Optional<UserInfo> user =
        x509.authenticate(certificate(CA.issueClient("alice", List.of("dev", "ops"))));
    assertThat(user).isPresent();
    assertThat(user.get().getUsername()).isEqualTo("alice");
    assertThat(user.get().getGroups()).containsExactly("dev", "ops");
  }

  @Test
  void aClientCertificateOfAnotherCaIsRejected() {
    X509Authenticator x509 = new X509Authenticator(List.of(CA.certificate()), CLOCK);
    CertificateAuthority other = CertificateAuthority.create("other", CLOCK);
    assertThatThrownBy(() -> x509.authenticate(certificate(other.issueClient("alice", List.of()))))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("x509: certificate signed by unknown authority");
  }

  @Test
  void anExpiredClientCertificateIsRejected() {
    Clock later = Clock.offset(CLOCK, CertificateAuthority.CERTIFICATE_VALIDITY.plusDays(1));
    X509Authenticator x509 = new X509Authenticator(List.of(CA.certificate()), later);
    assertThatThrownBy(() -> x509.authenticate(certificate(CA.issueClient("bob", List.of()))))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("expired");
  }

  @Test
  void aServingCertificateIsNoClientCertificate() {
    X509Authenticator x509 = new X509Authenticator(List.of(CA.certificate()), CLOCK);
    assertThatThrownBy(
            () ->
                x509.authenticate(
                    certificate(CA.issueServing("server", List.of("localhost"), List.of()))))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("incompatible key usage");
  }

  @Test
  void aRequestWithoutCertificateIsNotTheX509Authenticators() throws Exception {
    X509Authenticator x509 = new X509Authenticator(List.of(CA.certificate()), CLOCK);
    assertThat(x509.authenticate(bearer("abc"))).isEmpty();
  }

  @Test
  void theTokenFileNamesUserUidAndGroupsOfItsCsvLines() throws Exception {
    TokenFile file =
        TokenFile.parse("secret-1,alice,1001,\"dev,ops\"\nsecret-2,bob,1002\n\n", "tokens.csv");
    UserInfo alice = file.authenticate("secret-1").orElseThrow();
    assertThat(alice.getUsername()).isEqualTo("alice");
    assertThat(alice.getUid()).isEqualTo("1001");
    assertThat(alice.getGroups()).containsExactly("dev", "ops");
    assertThat(file.authenticate("secret-2").orElseThrow().getGroups()).isEmpty();
    assertThat(file.authenticate("secret-3")).isEmpty();
  }

  @Test
  void aTokenFileLineWithFewerThanThreeColumnsIsRefused() {
    assertThatThrownBy(() -> TokenFile.parse("secret,alice\n", "tokens.csv"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 3 columns");
  }

  @Test
  void aServiceAccountTokenNamesTheServiceAccountAndItsPod() throws Exception {
    serviceAccount("team", "builder", "sa-uid");
    pod("team", "job-1", "pod-uid");
    String token =
        tokens(CLOCK)
            .issue(
                "team",
                "builder",
                "sa-uid",
                List.of(ISSUER),
                Duration.ofHours(1),
                new ServiceAccountTokens.BoundPod("job-1", "pod-uid", "node-0"))
            .token();
    UserInfo user = serviceAccounts(CLOCK).authenticate(token).orElseThrow();
    assertThat(user.getUsername()).isEqualTo("system:serviceaccount:team:builder");
    assertThat(user.getUid()).isEqualTo("sa-uid");
    assertThat(user.getGroups())
        .containsExactly("system:serviceaccounts", "system:serviceaccounts:team");
    assertThat(user.getExtra().get("authentication.kubernetes.io/pod-name"))
        .containsExactly("job-1");
    assertThat(user.getExtra().get("authentication.kubernetes.io/node-name"))
        .containsExactly("node-0");
  }

  @Test
  void anExpiredServiceAccountTokenIsRejected() {
    serviceAccount("team", "builder", "sa-uid");
    String token =
        tokens(CLOCK)
            .issue("team", "builder", "sa-uid", List.of(ISSUER), Duration.ofMinutes(10), null)
            .token();
    Clock later = Clock.offset(CLOCK, Duration.ofMinutes(11));
    assertThatThrownBy(() -> serviceAccounts(later).authenticate(token))
        .isInstanceOf(AuthenticationException.class)
        .hasMessage("service account token has expired");
  }

  @Test
  void aTokenSignedByAnotherKeyIsRejected() {
    serviceAccount("team", "builder", "sa-uid");
    KeyPair other = CertificateAuthority.rsaKeyPair();
    String token =
        new ServiceAccountTokens(
                other.getPrivate(), other.getPublic(), ISSUER, List.of(ISSUER), CLOCK)
            .issue("team", "builder", "sa-uid", List.of(ISSUER), Duration.ofHours(1), null)
            .token();
    assertThatThrownBy(() -> serviceAccounts(CLOCK).authenticate(token))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void aTokenForAnotherAudienceIsRejected() {
    serviceAccount("team", "builder", "sa-uid");
    String token =
        tokens(CLOCK)
            .issue("team", "builder", "sa-uid", List.of("vault"), Duration.ofHours(1), null)
            .token();
    assertThatThrownBy(() -> serviceAccounts(CLOCK).authenticate(token))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("token audiences [\"vault\"] is invalid");
  }

  @Test
  void aTokenOfADeletedOrRecreatedServiceAccountIsRejected() {
    serviceAccount("team", "builder", "new-uid");
    String token =
        tokens(CLOCK)
            .issue("team", "builder", "old-uid", List.of(ISSUER), Duration.ofHours(1), null)
            .token();
    assertThatThrownBy(() -> serviceAccounts(CLOCK).authenticate(token))
        .isInstanceOf(AuthenticationException.class)
        .hasMessage("service account token has been invalidated");
    objects.clear();
    assertThatThrownBy(() -> serviceAccounts(CLOCK).authenticate(token))
        .hasMessage("service account token has been invalidated");
  }

  @Test
  void aTokenBoundToADeletedPodIsRejected() {
    serviceAccount("team", "builder", "sa-uid");
    String token =
        tokens(CLOCK)
            .issue(
                "team",
                "builder",
                "sa-uid",
                List.of(ISSUER),
                Duration.ofHours(1),
                new ServiceAccountTokens.BoundPod("gone", "pod-uid", ""))
            .token();
    assertThatThrownBy(() -> serviceAccounts(CLOCK).authenticate(token))
        .hasMessage("service account token has been invalidated");
  }

  @Test
  void aTokenThatIsNoJwtIsNotTheServiceAccountAuthenticators() throws Exception {
    assertThat(serviceAccounts(CLOCK).authenticate("not-a-jwt")).isEmpty();
  }

  @Test
  void aBearerTokenNoAuthenticatorAcceptsIsUnauthorizedNotAnonymous() {
    Authentication authentication =
        new Authentication(
            List.of(new BearerToken(List.of(TokenFile.parse("t,alice,1", "f")))), true);
    assertThat(authentication.authenticate(bearer("wrong"))).isEmpty();
    assertThat(authentication.authenticate(bearer("t")).orElseThrow().getGroups())
        .contains(Authentication.AUTHENTICATED_GROUP);
    UserInfo anonymous =
        authentication.authenticate(new Credentials(null, List.of(), null)).orElseThrow();
    assertThat(anonymous.getUsername()).isEqualTo("system:anonymous");
    assertThat(anonymous.getGroups()).containsExactly("system:unauthenticated");
  }

  @Test
  void theBearerTokenIsReadAsKubeApiserverReadsTheHeader() {
    assertThat(header("Bearer abc").bearerToken()).contains("abc");
    assertThat(header("bEaReR abc").bearerToken()).contains("abc");
    assertThat(header("  Bearer abc  ").bearerToken()).contains("abc");
    assertThat(header("Bearer abc def").bearerToken()).contains("abc");
    for (String none :
        new String[] {"", "Bearer", "Bearer ", "Bearer  abc", "Bearer\tabc", "Basic abc", "abc"}) {
      assertThat(header(none).bearerToken()).as(none).isEmpty();
    }
  }

  @Test
  void aBearerSchemeWithTwoSpacesIsAnonymousNotTheToken() throws Exception {
    Authentication authentication =
        new Authentication(
            List.of(new BearerToken(List.of(TokenFile.parse("t,alice,1", "f")))), true);
    assertThat(authentication.authenticate(header("Bearer  t")).orElseThrow().getUsername())
        .isEqualTo(Authentication.ANONYMOUS_USER);
    assertThat(authentication.authenticate(header("Bearer t extra")).orElseThrow().getUsername())
        .isEqualTo("alice");
  }

  private static Credentials header(String authorization) {
    return new Credentials(authorization, List.of(), null);
  }

  @Test
  void withoutAnonymousAuthARequestWithoutCredentialsIsUnauthorized() {
    Authentication authentication =
        new Authentication(List.of(new X509Authenticator(List.of(CA.certificate()), CLOCK)), false);
    assertThat(authentication.authenticate(new Credentials(null, List.of(), null))).isEmpty();
  }

  private ServiceAccountTokens tokens(Clock clock) {
    return new ServiceAccountTokens(
        SIGNING.getPrivate(), SIGNING.getPublic(), ISSUER, List.of(ISSUER), clock);
  }

  private ServiceAccountAuthenticator serviceAccounts(Clock clock) {
    return new ServiceAccountAuthenticator(
        List.of(SIGNING.getPublic()),
        ISSUER,
        List.of(ISSUER),
        (group, resource, namespace, name) ->
            Optional.ofNullable(objects.get(resource + "/" + namespace + "/" + name)),
        clock);
  }

  private void serviceAccount(String namespace, String name, String uid) {
    objects.put("serviceaccounts/" + namespace + "/" + name, object(namespace, name, uid));
  }

  private void pod(String namespace, String name, String uid) {
    objects.put("pods/" + namespace + "/" + name, object(namespace, name, uid));
  }

  private static ObjectNode object(String namespace, String name, String uid) {
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object.putObject("metadata").put("namespace", namespace).put("name", name).put("uid", uid);
    return object;
  }
}
