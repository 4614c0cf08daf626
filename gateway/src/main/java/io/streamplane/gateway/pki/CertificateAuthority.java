package io.streamplane.gateway.pki;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;

/**
 * A certificate authority that signs the cluster's certificates, as kubeadm's {@code certs} phase
 * makes them: a self-signed CA ({@code CN=kubernetes}), serving certificates with DNS and IP
 * subject alternative names, and client certificates whose subject names the user ({@code CN}) and
 * its groups ({@code O}), which is how kube-apiserver's x509 authenticator reads them. Keys are
 * ECDSA P-256 (fast to make, so a fleet of a thousand nodes gets its certificates in a second);
 * certificates are built and signed by Bouncy Castle.
 */
public final class CertificateAuthority {

  /** kubeadm's validity of a CA. */
  public static final Duration CA_VALIDITY = Duration.ofDays(3650);

  /** kubeadm's validity of the certificates a CA signs. */
  public static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(365);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final X509Certificate certificate;
  private final PrivateKey key;
  private final Clock clock;

  public CertificateAuthority(X509Certificate certificate, PrivateKey key, Clock clock) {
    this.certificate = certificate;
    this.key = key;
    this.clock = clock;
  }

  /** A new self-signed CA named {@code commonName}, and its key. */
  public static CertificateAuthority create(String commonName, Clock clock) {
    KeyPair pair = ecKeyPair();
    X500Name name = name(commonName, List.of());
    Instant now = clock.instant();
    try {
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  name,
                  serial(),
                  Date.from(now.minus(Duration.ofMinutes(5))),
                  Date.from(now.plus(CA_VALIDITY)),
                  name,
                  pair.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
              .addExtension(
                  Extension.keyUsage,
                  true,
                  new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  extensions.createSubjectKeyIdentifier(pair.getPublic()));
      return new CertificateAuthority(sign(builder, pair.getPrivate()), pair.getPrivate(), clock);
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot create the CA: " + e.getMessage(), e);
    }
  }

  public X509Certificate certificate() {
    return certificate;
  }

  public PrivateKey key() {
    return key;
  }

  /** A serving certificate for {@code commonName} valid for these host names and IP addresses. */
  public Issued issueServing(String commonName, List<String> dnsNames, List<String> ipAddresses) {
    List<GeneralName> names = new ArrayList<>();
    dnsNames.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
    ipAddresses.forEach(ip -> names.add(new GeneralName(GeneralName.iPAddress, ip)));
    return issue(
        name(commonName, List.of()),
        KeyPurposeId.id_kp_serverAuth,
        new GeneralNames(names.toArray(GeneralName[]::new)));
  }

  /** A client certificate of user {@code user} in {@code groups} (CN and O of its subject). */
  public Issued issueClient(String user, List<String> groups) {
    return issue(name(user, groups), KeyPurposeId.id_kp_clientAuth, null);
  }

  /**
   * A certificate for the subject and public key of {@code request}, valid for {@code validity}
   * (from five minutes ago, as kube-controller-manager's signer backdates) but never beyond this
   * CA's own validity, with these key usages and extended key usages, as the signers of
   * kube-controller-manager's {@code csrsigning} controller issue them.
   *
   * @throws GeneralSecurityException when the request's signature does not verify
   */
  public X509Certificate sign(
      PKCS10CertificationRequest request,
      Duration validity,
      int keyUsage,
      List<KeyPurposeId> purposes)
      throws GeneralSecurityException {
    try {
      PublicKey publicKey = new JcaPKCS10CertificationRequest(request).getPublicKey();
      if (!request.isSignatureValid(new JcaContentVerifierProviderBuilder().build(publicKey))) {
        throw new GeneralSecurityException("the request's signature does not verify");
      }
      Instant now = clock.instant();
      Date notAfter = Date.from(now.plus(validity));
      if (notAfter.after(certificate.getNotAfter())) {
        notAfter = certificate.getNotAfter();
      }
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new X509v3CertificateBuilder(
                  X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()),
                  serial(),
                  Date.from(now.minus(Duration.ofMinutes(5))),
                  notAfter,
                  request.getSubject(),
                  request.getSubjectPublicKeyInfo())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(keyUsage))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  extensions.createAuthorityKeyIdentifier(certificate));
      if (!purposes.isEmpty()) {
        builder.addExtension(
            Extension.extendedKeyUsage,
            false,
            new ExtendedKeyUsage(purposes.toArray(KeyPurposeId[]::new)));
      }
      return sign(builder, key);
    } catch (OperatorCreationException | PKCSException | java.io.IOException e) {
      throw new GeneralSecurityException(e.getMessage(), e);
    }
  }

  /** A certificate and its private key. */
  public record Issued(X509Certificate certificate, PrivateKey key) {}

  private Issued issue(X500Name subject, KeyPurposeId purpose, GeneralNames alternativeNames) {
    KeyPair pair = ecKeyPair();
    Instant now = clock.instant();
    try {
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  certificate,
                  serial(),
                  Date.from(now.minus(Duration.ofMinutes(5))),
                  Date.from(now.plus(CERTIFICATE_VALIDITY)),
                  subject,
                  pair.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(
                  Extension.keyUsage,
                  true,
                  new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
              .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  extensions.createAuthorityKeyIdentifier(certificate));
      if (alternativeNames != null) {
        builder.addExtension(Extension.subjectAlternativeName, false, alternativeNames);
      }
      return new Issued(sign(builder, key), pair.getPrivate());
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot issue a certificate: " + e.getMessage(), e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static X500Name name(String commonName, List<String> organizations) {
    X500NameBuilder name = new X500NameBuilder(BCStyle.INSTANCE);
    for (String organization : organizations) {
      name.addRDN(BCStyle.O, organization);
    }
    name.addRDN(BCStyle.CN, commonName);
    return name.build();
  }

  private static BigInteger serial() {
    return new BigInteger(63, RANDOM).add(BigInteger.ONE);
  }

  static KeyPair ecKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An RSA key pair: ServiceAccount tokens are RS256 JWTs. */
  public static KeyPair rsaKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048, RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
