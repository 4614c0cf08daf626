package io.streamplane.bench.load;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * PEM as kubeconfigs hold it: certificate bundles, and private keys in any of the encodings
 * Kubernetes tools write (PKCS#1 {@code RSA PRIVATE KEY}, SEC1 {@code EC PRIVATE KEY}, PKCS#8
 * {@code PRIVATE KEY}). Encrypted keys are not supported: kubeconfigs never hold them.
 */
final class Pem {

  private Pem() {}

  static List<X509Certificate> certificates(byte[] pem) {
    try {
      List<X509Certificate> certificates = new ArrayList<>();
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      factory
          .generateCertificates(new ByteArrayInputStream(pem))
          .forEach(c -> certificates.add((X509Certificate) c));
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException("no certificate in the PEM data");
      }
      return certificates;
    } catch (CertificateException e) {
      throw new IllegalArgumentException("unreadable certificate: " + e.getMessage(), e);
    }
  }

  static PrivateKey privateKey(byte[] pem) {
    try (Reader reader =
            new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
        if (object instanceof PEMKeyPair pair) {
          // The public half may be absent (SEC1 keys without it), and is not needed.
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (object instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
      }
      throw new IllegalArgumentException("no private key in the PEM data");
    } catch (IOException e) {
      throw new IllegalArgumentException("unreadable private key: " + e.getMessage(), e);
    }
  }
}
