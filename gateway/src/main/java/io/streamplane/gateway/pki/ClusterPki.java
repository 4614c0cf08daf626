package io.streamplane.gateway.pki;

import io.streamplane.gateway.admission.ServiceAllocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A cluster's certificates and keys in one directory, laid out as kubeadm's {@code
 * /etc/kubernetes/pki}: the cluster CA ({@code ca.crt}, {@code ca.key}), the API server's serving
 * certificate ({@code apiserver.crt}, {@code apiserver.key}; SANs 127.0.0.1, localhost, {@code
 * kubernetes}, {@code kubernetes.default.svc} and the host name), the administrator's client
 * certificate ({@code admin.crt}, {@code admin.key}: {@code kubernetes-admin} in {@code
 * system:masters}) and the ServiceAccount token signing key pair ({@code sa.key}, {@code sa.pub}).
 *
 * <p>Contract: {@link #loadOrCreate} makes what is missing and reuses what exists, so a restart
 * keeps the CA its kubeconfig trusts and the tokens pods hold stay valid. Keys are written readable
 * only by their owner. Limits: nothing is renewed; certificates expire after a year (kubeadm's
 * default), the CA after ten.
 */
public final class ClusterPki {

  public static final String ADMIN_USER = "kubernetes-admin";
  public static final String MASTERS_GROUP = "system:masters";
  public static final String NODES_GROUP = "system:nodes";
  public static final String NODE_USER_PREFIX = "system:node:";

  private final Path directory;
  private final CertificateAuthority ca;

  private ClusterPki(Path directory, CertificateAuthority ca) {
    this.directory = directory;
    this.ca = ca;
  }

  /** The PKI in {@code directory}, completed with whatever is missing. */
  public static ClusterPki loadOrCreate(Path directory, Clock clock) {
    return loadOrCreate(directory, clock, ServiceAllocation.DEFAULT_RANGE);
  }

  /**
   * The same, for a cluster whose service range is {@code serviceRange}: the serving certificate
   * names the {@code kubernetes} Service's address in it.
   */
  public static ClusterPki loadOrCreate(Path directory, Clock clock, String serviceRange) {
    List<String> servingIps = List.of("127.0.0.1", ServiceAllocation.firstAddress(serviceRange));
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + directory, e);
    }
    Path caCrt = directory.resolve("ca.crt");
    Path caKey = directory.resolve("ca.key");
    CertificateAuthority ca;
    if (Files.exists(caCrt) && Files.exists(caKey)) {
      ca = new CertificateAuthority(Pem.certificates(caCrt).get(0), Pem.privateKey(caKey), clock);
    } else {
      ca = CertificateAuthority.create("kubernetes", clock);
      Pem.write(caKey, ca.key());
      Pem.write(caCrt, ca.certificate());
    }
    ClusterPki pki = new ClusterPki(directory, ca);
    if (!Files.exists(pki.servingCertificate())
        || !Files.exists(pki.servingKey())
        || !servesAll(pki.servingCertificate(), servingIps)) {
      CertificateAuthority.Issued serving =
          ca.issueServing("kube-apiserver", dnsNames(), servingIps);
      Pem.write(pki.servingKey(), serving.key());
      Pem.write(pki.servingCertificate(), serving.certificate());
    }
    if (!Files.exists(pki.adminCertificate()) || !Files.exists(pki.adminKey())) {
      CertificateAuthority.Issued admin = ca.issueClient(ADMIN_USER, List.of(MASTERS_GROUP));
      Pem.write(pki.adminKey(), admin.key());
      Pem.write(pki.adminCertificate(), admin.certificate());
    }
    if (!Files.exists(pki.serviceAccountKey()) || !Files.exists(pki.serviceAccountPublicKey())) {
      KeyPair pair = CertificateAuthority.rsaKeyPair();
      Pem.write(pki.serviceAccountKey(), pair.getPrivate());
      Pem.write(pki.serviceAccountPublicKey(), pair.getPublic());
    }
    return pki;
  }

  /**
   * Whether a certificate names every one of {@code ips}: the serving certificate names the host's
   * loopback and the {@code kubernetes} Service's cluster IP, which pods reach the API at, and one
   * made before it named the latter is made again.
   */
  private static boolean servesAll(Path certificate, List<String> ips) {
    try {
      var names = Pem.certificates(certificate).get(0).getSubjectAlternativeNames();
      List<String> named = new ArrayList<>();
      if (names != null) {
        for (List<?> name : names) {
          if (Integer.valueOf(7).equals(name.get(0))) {
            named.add(String.valueOf(name.get(1)));
          }
        }
      }
      return named.containsAll(ips);
    } catch (java.security.cert.CertificateParsingException e) {
      return false;
    }
  }

  private static List<String> dnsNames() {
    List<String> names =
        new ArrayList<>(
            List.of(
                "localhost",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local"));
    try {
      String host = InetAddress.getLocalHost().getHostName();
      if (!names.contains(host)) {
        names.add(host);
      }
    } catch (IOException e) {
      // A host without a resolvable name is served as localhost and 127.0.0.1 only.
    }
    return names;
  }

  public Path directory() {
    return directory;
  }

  public CertificateAuthority ca() {
    return ca;
  }

  public Path caCertificate() {
    return directory.resolve("ca.crt");
  }

  public Path servingCertificate() {
    return directory.resolve("apiserver.crt");
  }

  public Path servingKey() {
    return directory.resolve("apiserver.key");
  }

  public Path adminCertificate() {
    return directory.resolve("admin.crt");
  }

  public Path adminKey() {
    return directory.resolve("admin.key");
  }

  public Path serviceAccountKey() {
    return directory.resolve("sa.key");
  }

  public Path serviceAccountPublicKey() {
    return directory.resolve("sa.pub");
  }

  /**
   * The flags with which {@code streamplane gateway} serves with this PKI: its serving certificate
   * and key, the CA its clients' certificates are signed by, and the service-account keys.
   */
  public List<String> gatewayFlags() {
    return List.of(
        "--tls-cert-file",
        servingCertificate().toString(),
        "--tls-private-key-file",
        servingKey().toString(),
        "--client-ca-file",
        caCertificate().toString(),
        "--service-account-key-file",
        serviceAccountPublicKey().toString(),
        "--service-account-signing-key-file",
        serviceAccountKey().toString());
  }

  /** PEM of the cluster CA's certificate, as kubeconfigs and pods' {@code ca.crt} hold it. */
  public String caPem() {
    return Pem.encode(ca.certificate());
  }

  /** A client identity of a node: {@code system:node:NAME} in {@code system:nodes}. */
  public ClientIdentity node(String nodeName) {
    return client(NODE_USER_PREFIX + nodeName, List.of(NODES_GROUP));
  }

  /** A new client certificate of {@code user} in {@code groups}, signed by the cluster CA. */
  public ClientIdentity client(String user, List<String> groups) {
    CertificateAuthority.Issued issued = ca.issueClient(user, groups);
    return new ClientIdentity(issued.certificate(), issued.key(), ca.certificate());
  }

  /** The administrator's identity, from {@code admin.crt} and {@code admin.key}. */
  public ClientIdentity admin() {
    return new ClientIdentity(
        Pem.certificates(adminCertificate()).get(0), Pem.privateKey(adminKey()), ca.certificate());
  }

  /** A client certificate, its key, and the CA its server is verified against. */
  public record ClientIdentity(
      X509Certificate certificate, PrivateKey key, X509Certificate serverCa) {

    public String certificatePem() {
      return Pem.encode(certificate);
    }

    public String keyPem() {
      return Pem.encode(key);
    }

    public String serverCaPem() {
      return Pem.encode(serverCa);
    }

    /** A TLS client context presenting this certificate and trusting only {@code serverCa}. */
    public SSLContext sslContext() {
      try {
        char[] password = new char[0];
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("client", key, password, new X509Certificate[] {certificate});
        KeyManagerFactory keyManagers =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, password);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", serverCa);
        TrustManagerFactory trustManagers =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
      } catch (java.io.IOException | java.security.GeneralSecurityException e) {
        throw new IllegalStateException("cannot make a TLS context: " + e.getMessage(), e);
      }
    }
  }
}
