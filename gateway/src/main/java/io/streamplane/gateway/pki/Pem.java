package io.streamplane.gateway.pki;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * PEM files as Kubernetes components read and write them: certificates ({@code CERTIFICATE}),
 * private keys (written as kubeadm writes them, PKCS#1 {@code RSA PRIVATE KEY} or SEC1 {@code EC
 * PRIVATE KEY}, whose headers name the algorithm for clients that guess it from them, as fabric8
 * does; read PKCS#1, PKCS#8 or SEC1) and public keys ({@code PUBLIC KEY}), by Bouncy Castle's PEM
 * reader and writer.
 */
public final class Pem {

  private Pem() {}

  public static String encode(Object object) {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      if (object instanceof ECPrivateKey key) {
        writer.writeObject(new PemObject("EC PRIVATE KEY", sec1(key)));
      } else {
        writer.writeObject(object);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  /**
   * An EC private key as SEC 1 (RFC 5915) holds it on its own, as Go's {@code
   * x509.MarshalECPrivateKey} writes it: the key, its named curve and its public point. A JDK key's
   * PKCS#8 form carries the curve outside the SEC 1 structure and no public point, so both are put
   * back in.
   */
  private static byte[] sec1(ECPrivateKey key) throws IOException {
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
    ASN1ObjectIdentifier curve =
        ASN1ObjectIdentifier.getInstance(info.getPrivateKeyAlgorithm().getParameters());
    X9ECParameters parameters = ECNamedCurveTable.getByOID(curve);
    if (parameters == null) {
      throw new IOException("EC key on a curve without a name: " + curve);
    }
    BigInteger d = key.getS();
    byte[] point = parameters.getG().multiply(d).normalize().getEncoded(false);
    return new org.bouncycastle.asn1.sec.ECPrivateKey(
            parameters.getN().bitLength(), d, new DERBitString(point), curve)
        .getEncoded();
  }

  /** Every certificate of a PEM bundle, in order. */
  public static List<X509Certificate> certificates(String pem) {
    List<X509Certificate> certificates = new ArrayList<>();
    for (Object object : objects(new StringReader(pem))) {
      if (object instanceof X509CertificateHolder holder) {
        try {
          certificates.add(new JcaX509CertificateConverter().getCertificate(holder));
        } catch (CertificateException e) {
          throw new IllegalArgumentException("not a valid certificate: " + e.getMessage(), e);
        }
      }
    }
    return certificates;
  }

  public static List<X509Certificate> certificates(Path file) {
    return certificates(read(file));
  }

  /** The first private key of a PEM text. */
  public static PrivateKey privateKey(String pem) {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try {
      for (Object object : objects(new StringReader(pem))) {
        if (object instanceof PEMKeyPair pair) {
          // The private part alone: a SEC 1 key may come without its public point.
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (object instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not a valid private key: " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("no private key in the PEM data");
  }

  public static PrivateKey privateKey(Path file) {
    return privateKey(read(file));
  }

  /**
   * The public keys of a PEM text, as kube-apiserver's {@code --service-account-key-file} reads it:
   * public keys, the public half of private keys, and the keys of certificates.
   */
  public static List<PublicKey> publicKeys(String pem) {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    List<PublicKey> keys = new ArrayList<>();
    try {
      for (Object object : objects(new StringReader(pem))) {
        if (object instanceof SubjectPublicKeyInfo info) {
          keys.add(converter.getPublicKey(info));
        } else if (object instanceof PEMKeyPair pair) {
          keys.add(converter.getKeyPair(pair).getPublic());
        } else if (object instanceof X509CertificateHolder holder) {
          keys.add(converter.getPublicKey(holder.getSubjectPublicKeyInfo()));
        } else if (object instanceof PrivateKeyInfo info) {
          PrivateKey key = converter.getPrivateKey(info);
          if (key instanceof java.security.interfaces.RSAPrivateCrtKey rsa) {
            keys.add(
                java.security.KeyFactory.getInstance("RSA")
                    .generatePublic(
                        new java.security.spec.RSAPublicKeySpec(
                            rsa.getModulus(), rsa.getPublicExponent())));
          }
        }
      }
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new IllegalArgumentException("not a valid key: " + e.getMessage(), e);
    }
    return keys;
  }

  public static List<PublicKey> publicKeys(Path file) {
    return publicKeys(read(file));
  }

  /** Writes {@code objects} as PEM to {@code file}, readable only by its owner. */
  public static void write(Path file, Object... objects) {
    StringBuilder text = new StringBuilder();
    for (Object object : objects) {
      text.append(encode(object));
    }
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, text);
      file.toFile().setReadable(false, false);
      file.toFile().setReadable(true, true);
      file.toFile().setWritable(false, false);
      file.toFile().setWritable(true, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** A key pair's halves as a PEM private key followed by its public key. */
  public static String encode(KeyPair pair) {
    return encode(pair.getPrivate()) + encode(pair.getPublic());
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static List<Object> objects(Reader reader) {
    List<Object> objects = new ArrayList<>();
    try (PEMParser parser = new PEMParser(reader)) {
      Object object;
      while ((object = parser.readObject()) != null) {
        objects.add(object);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("not valid PEM data: " + e.getMessage(), e);
    }
    return objects;
  }
}
