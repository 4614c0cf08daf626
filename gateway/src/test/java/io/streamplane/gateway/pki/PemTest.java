package io.streamplane.gateway.pki;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.junit.jupiter.api.Test;

class PemTest {

  @Test
  void privateKeysAreWrittenAsKubeadmWritesThemAndReadBack() throws Exception {
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair ecKeys = ec.generateKeyPair();
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    KeyPair rsaKeys = rsa.generateKeyPair();

    String ecPem = Pem.encode(ecKeys.getPrivate());
    String rsaPem = Pem.encode(rsaKeys.getPrivate());

    assertThat(ecPem).startsWith("-----BEGIN EC PRIVATE KEY-----");
    assertThat(rsaPem).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    // On its own, as other readers take it: the curve and the public point are in the SEC 1 key.
    try (PEMParser parser = new PEMParser(new StringReader(ecPem))) {
      PEMKeyPair pair = (PEMKeyPair) parser.readObject();
      assertThat(pair.getPublicKeyInfo().getPublicKeyData().getBytes())
          .isEqualTo(
              SubjectPublicKeyInfo.getInstance(ecKeys.getPublic().getEncoded())
                  .getPublicKeyData()
                  .getBytes());
    }
    assertThat(((ECPrivateKey) Pem.privateKey(ecPem)).getS())
        .isEqualTo(((ECPrivateKey) ecKeys.getPrivate()).getS());
    assertThat(((RSAPrivateKey) Pem.privateKey(rsaPem)).getPrivateExponent())
        .isEqualTo(((RSAPrivateKey) rsaKeys.getPrivate()).getPrivateExponent());
  }
}
