package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.ADMIN;
import static io.streamplane.gateway.admission.Cluster.REGISTRY;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.pki.Pem;
import io.streamplane.kinds.ResourceType;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.Test;

class CertificateSubjectRestrictionTest {

  private static final ResourceType CSRS =
      REGISTRY.byResource("certificates.k8s.io", "certificatesigningrequests").orElseThrow();

  private final CertificateSubjectRestriction plugin = new CertificateSubjectRestriction();

  private static AdmissionRequest create(String subject, String signer) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    var pair = generator.generateKeyPair();
    var csr =
        new JcaPKCS10CertificationRequestBuilder(new X500Name(subject), pair.getPublic())
            .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()));
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object
        .putObject("spec")
        .put("signerName", signer)
        .put(
            "request",
            Base64.getEncoder()
                .encodeToString(Pem.encode(csr).getBytes(StandardCharsets.US_ASCII)));
    return new AdmissionRequest(Operation.CREATE, CSRS, "", null, "x", object, null, ADMIN, false);
  }

  @Test
  void aClientCertificateForSystemMastersIsForbidden() {
    assertThatThrownBy(
            () ->
                plugin.validate(
                    create("CN=mallory,O=system:masters", CertificateSubjectRestriction.SIGNER)))
        .isInstanceOf(ApiException.class)
        .hasMessage(
            "certificatesigningrequests.certificates.k8s.io \"x\" is forbidden: use of"
                + " kubernetes.io/kube-apiserver-client signer with system:masters group is not"
                + " allowed");
  }

  @Test
  void otherGroupsAndOtherSignersPass() {
    assertThatCode(
            () -> plugin.validate(create("CN=alice,O=devs", CertificateSubjectRestriction.SIGNER)))
        .doesNotThrowAnyException();
    assertThatCode(
            () -> plugin.validate(create("CN=mallory,O=system:masters", "example.com/other")))
        .doesNotThrowAnyException();
  }
}
