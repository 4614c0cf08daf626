package io.streamplane.gateway.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.pki.CertificateAuthority;
import io.streamplane.gateway.pki.Pem;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.Test;

class CertificateSigningControllerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final CertificateAuthority CA =
      CertificateAuthority.create("streamplane-ca", Clock.systemUTC());

  private static String request(String subject) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = generator.generateKeyPair();
    var csr =
        new JcaPKCS10CertificationRequestBuilder(new X500Name(subject), pair.getPublic())
            .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()));
    return Base64.getEncoder().encodeToString(Pem.encode(csr).getBytes(StandardCharsets.US_ASCII));
  }

  private static ObjectNode csr(String signer, String usages, String conditions) throws Exception {
    return (ObjectNode)
        JSON.readTree(
            ("{'metadata':{'name':'alice','resourceVersion':'7'},'spec':{'request':'"
                    + request("CN=alice,O=devs")
                    + "','signerName':'"
                    + signer
                    + "','usages':"
                    + usages
                    + ",'expirationSeconds':3600},'status':{'conditions':"
                    + conditions
                    + "}}")
                .replace('\'', '"'));
  }

  private static final String APPROVED = "[{'type':'Approved','status':'True'}]";

  @Test
  void anApprovedClientRequestIsIssuedACertificateOfItsSubjectByTheClusterCa() throws Exception {
    ObjectNode signed =
        CertificateSigningController.sign(
                csr(CertificateSigningController.SIGNER, "['client auth']", APPROVED),
                CA,
                Instant.now())
            .orElseThrow();

    assertThat(signed.path("status").path("conditions").size()).isEqualTo(1);
    String pem =
        new String(
            signed.path("status").path("certificate").binaryValue(), StandardCharsets.US_ASCII);
    X509Certificate certificate = Pem.certificates(pem).get(0);
    certificate.verify(CA.certificate().getPublicKey());
    assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("O=devs,CN=alice");
    assertThat(certificate.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    assertThat(
            Duration.between(
                certificate.getNotBefore().toInstant(), certificate.getNotAfter().toInstant()))
        .isEqualTo(Duration.ofMinutes(65));
    assertThat(signed.path("metadata").path("resourceVersion").asText()).isEqualTo("7");
  }

  @Test
  void requestsThatAreNotApprovedOrNotThisSignersAreLeftAlone() throws Exception {
    assertThat(
            CertificateSigningController.sign(
                csr(CertificateSigningController.SIGNER, "['client auth']", "[]"),
                CA,
                Instant.now()))
        .isEmpty();
    assertThat(
            CertificateSigningController.sign(
                csr("example.com/other", "['client auth']", APPROVED), CA, Instant.now()))
        .isEmpty();
    assertThat(
            CertificateSigningController.sign(
                csr(
                    CertificateSigningController.SIGNER,
                    "['client auth']",
                    "[{'type':'Approved','status':'True'},{'type':'Failed','status':'True'}]"),
                CA,
                Instant.now()))
        .isEmpty();
  }

  @Test
  void usagesOfAServerCertificateFailTheRequest() throws Exception {
    ObjectNode failed =
        CertificateSigningController.sign(
                csr(CertificateSigningController.SIGNER, "['client auth','server auth']", APPROVED),
                CA,
                Instant.parse("2024-05-01T10:00:00Z"))
            .orElseThrow();

    assertThat(failed.path("status").path("certificate").isMissingNode()).isTrue();
    assertThat(failed.path("status").path("conditions").get(1).toString())
        .isEqualTo(
            "{\"type\":\"Failed\",\"status\":\"True\",\"reason\":\"SignerValidationFailure\","
                + "\"message\":\"invalid usage for client certificate: server auth\","
                + "\"lastUpdateTime\":\"2024-05-01T10:00:00Z\"}");
    assertThat(CertificateSigningController.clientKeyUsage(List.of("client auth"))).isPositive();
  }
}
