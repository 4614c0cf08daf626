package io.streamplane.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigTest {

  @TempDir Path dir;

  @Test
  void inlineDataFieldsGiveTheCaAndAClientCertificateWithItsPkcs1Key() throws Exception {
    KeyPair caKey = keyPair("RSA");
    X509Certificate ca = certificate("CN=kubernetes", caKey);
    KeyPair clientKey = keyPair("RSA");
    X509Certificate client = certificate("CN=kubernetes-admin,O=system:masters", clientKey);
    assertThat(pem(clientKey.getPrivate())).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: kind
          cluster:
            server: https://127.0.0.1:6443/
            certificate-authority-data: %s
        users:
        - name: admin
          user:
            client-certificate-data: %s
            client-key-data: %s
        contexts:
        - name: kind-admin
          context: {cluster: kind, user: admin, namespace: team-a}
        current-context: kind-admin
        """
            .formatted(base64(pem(ca)), base64(pem(client)), base64(pem(clientKey.getPrivate())));

    Kubeconfig config = Kubeconfig.parse(yaml, dir, null, Path.of("kind.yaml"));

    assertThat(config.server()).isEqualTo("https://127.0.0.1:6443");
    assertThat(config.context()).isEqualTo("kind-admin");
    assertThat(config.namespace()).isEqualTo("team-a");
    assertThat(config.certificateAuthority()).containsExactly(ca);
    assertThat(config.clientCertificate()).containsExactly(client);
    assertThat(config.clientKey().getAlgorithm()).isEqualTo("RSA");
    assertThat(config.clientKey().getEncoded()).isEqualTo(clientKey.getPrivate().getEncoded());
    assertThat(config.describe()).contains("client certificate").contains("kubernetes-admin");
    assertThat(config.toString()).doesNotContain("PRIVATE");
    // The TLS context is built from them without complaint.
    assertThat(new KubeClient(config).server()).isEqualTo("https://127.0.0.1:6443");
  }

  @Test
  void filePathsAreRelativeToTheKubeconfigAndAnEcKeyIsRead() throws Exception {
    KeyPair key = keyPair("EC");
    X509Certificate client = certificate("CN=alice", key);
    Files.createDirectories(dir.resolve("pki"));
    Files.writeString(dir.resolve("pki/alice.crt"), pem(client));
    Files.writeString(dir.resolve("pki/alice.key"), sec1(key));
    Path file = dir.resolve("config");
    Files.writeString(
        file,
        """
        clusters:
        - name: c
          cluster: {server: "https://k8s.example:443", insecure-skip-tls-verify: true}
        users:
        - name: alice
          user: {client-certificate: pki/alice.crt, client-key: pki/alice.key}
        contexts:
        - name: one
          context: {cluster: c, user: alice}
        - name: two
          context: {cluster: c}
        current-context: two
        """);

    Kubeconfig config = Kubeconfig.load(file, "one");

    assertThat(config.insecureSkipTlsVerify()).isTrue();
    assertThat(Files.readString(dir.resolve("pki/alice.key")))
        .startsWith("-----BEGIN EC PRIVATE KEY-----");
    assertThat(config.clientKey().getAlgorithm()).isEqualTo("EC");
    assertThat(((java.security.interfaces.ECPrivateKey) config.clientKey()).getS())
        .isEqualTo(((java.security.interfaces.ECPrivateKey) key.getPrivate()).getS());
    assertThat(config.clientCertificate()).containsExactly(client);
    assertThat(config.namespace()).isEqualTo("default");
  }

  @Test
  void aPlainHttpServerWithoutUserNeedsNoCredentials() {
    String yaml =
        """
        clusters:
        - name: sp
          cluster: {server: "http://127.0.0.1:6443"}
        users:
        - name: sp-admin
          user: {}
        contexts:
        - name: sp
          context: {cluster: sp, user: sp-admin, namespace: default}
        current-context: sp
        """;

    Kubeconfig config = Kubeconfig.parse(yaml, dir, null, Path.of("k"));

    assertThat(config.server()).isEqualTo("http://127.0.0.1:6443");
    assertThat(config.clientKey()).isNull();
    assertThat(config.token()).isNull();
    assertThat(config.describe()).contains("no credentials");
  }

  @Test
  void aTokenOrTokenFileAuthenticatesTheUser() throws Exception {
    Files.writeString(dir.resolve("token"), "abc.def\n");
    String yaml =
        """
        clusters: [{name: c, cluster: {server: "https://h"}}]
        users:
        - {name: t, user: {token: s3cret}}
        - {name: f, user: {tokenFile: token}}
        contexts:
        - {name: t, context: {cluster: c, user: t}}
        - {name: f, context: {cluster: c, user: f}}
        current-context: t
        """;

    assertThat(Kubeconfig.parse(yaml, dir, null, Path.of("k")).token()).isEqualTo("s3cret");
    assertThat(Kubeconfig.parse(yaml, dir, "f", Path.of("k")).token()).isEqualTo("abc.def");
  }

  @Test
  void execPluginsAreRefusedWithAReason() {
    String yaml =
        """
        clusters: [{name: c, cluster: {server: "https://h"}}]
        users: [{name: u, user: {exec: {command: aws}}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """;

    assertThatThrownBy(() -> Kubeconfig.parse(yaml, dir, null, Path.of("k")))
        .hasMessageContaining("exec credential plugin");
  }

  @Test
  void anUnknownContextIsNamedInTheError() {
    String yaml = "clusters: []\ncontexts: []\ncurrent-context: gone\n";

    assertThatThrownBy(() -> Kubeconfig.parse(yaml, dir, null, Path.of("k")))
        .hasMessageContaining("'gone'");
  }

  @Test
  void theDefaultFileIsKubeconfigThenTheLocalClusterThenTheHomeConfig() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    Path home = Files.createDirectories(dir.resolve("home"));
    Path explicit = Files.writeString(dir.resolve("explicit"), "x");

    assertThat(Kubeconfig.defaultFile(Map.of(), work, home)).isEmpty();
    Path homeConfig = Files.createDirectories(home.resolve(".kube")).resolve("config");
    Files.writeString(homeConfig, "x");
    assertThat(Kubeconfig.defaultFile(Map.of(), work, home)).contains(homeConfig);
    Path local = Files.createDirectories(work.resolve(".streamplane")).resolve("kubeconfig");
    Files.writeString(local, "x");
    assertThat(Kubeconfig.defaultFile(Map.of(), work, home)).contains(local);
    assertThat(
            Kubeconfig.defaultFile(
                Map.of("KUBECONFIG", dir.resolve("missing") + ":" + explicit), work, home))
        .contains(explicit);
  }

  private static KeyPair keyPair(String algorithm) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
    generator.initialize(algorithm.equals("RSA") ? 2048 : 256);
    return generator.generateKeyPair();
  }

  private static X509Certificate certificate(String subject, KeyPair key) throws Exception {
    Instant now = Instant.now();
    var builder =
        new JcaX509v3CertificateBuilder(
            new X500Name(subject),
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(1, ChronoUnit.DAYS)),
            Date.from(now.plus(1, ChronoUnit.DAYS)),
            new X500Name(subject),
            key.getPublic());
    String signature =
        key.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder(signature).build(key.getPrivate())));
  }

  /** PEM as openssl writes it: PKCS#1 for RSA keys, SEC1 for EC keys. */
  private static String pem(Object object) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  /** An EC key as openssl writes it: SEC1 with the curve and the public key. */
  private static String sec1(KeyPair key) throws Exception {
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getPrivate().getEncoded());
    ECPrivateKey bare = ECPrivateKey.getInstance(info.parsePrivateKey());
    SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(key.getPublic().getEncoded());
    ECPrivateKey full =
        new ECPrivateKey(
            256,
            bare.getKey(),
            publicKey.getPublicKeyData(),
            info.getPrivateKeyAlgorithm().getParameters());
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      writer.writeObject(new PemObject("EC PRIVATE KEY", full.getEncoded()));
    }
    return out.toString();
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
