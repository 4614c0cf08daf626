package io.streamplane.gateway.server;

import io.streamplane.gateway.authn.ServiceAccountTokens;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.gateway.pki.Pem;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a gateway secures its API, as kube-apiserver's flags of the same names: its serving
 * certificate and key ({@code --tls-cert-file}, {@code --tls-private-key-file}), the CA of client
 * certificates ({@code --client-ca-file}), static tokens ({@code --token-auth-file}), the keys that
 * verify ServiceAccount tokens ({@code --service-account-key-file}, any number) and the one that
 * signs them ({@code --service-account-signing-key-file}), the tokens' issuer ({@code
 * --service-account-issuer}) and whether requests without credentials are served as {@code
 * system:anonymous} ({@code --anonymous-auth}).
 *
 * <p>Contract: TLS needs both the certificate and the key; every other part is optional and absent
 * parts add no authenticator. Without a signing key, TokenRequest is refused.
 */
public record GatewaySecurity(
    Path tlsCertFile,
    Path tlsPrivateKeyFile,
    Path clientCaFile,
    Path tokenAuthFile,
    List<Path> serviceAccountKeyFiles,
    Path serviceAccountSigningKeyFile,
    String serviceAccountIssuer,
    boolean anonymous) {

  public GatewaySecurity {
    serviceAccountKeyFiles =
        serviceAccountKeyFiles == null ? List.of() : List.copyOf(serviceAccountKeyFiles);
    if (serviceAccountIssuer == null || serviceAccountIssuer.isEmpty()) {
      serviceAccountIssuer = ServiceAccountTokens.DEFAULT_ISSUER;
    }
    if ((tlsCertFile == null) != (tlsPrivateKeyFile == null)) {
      throw new IllegalArgumentException("--tls-cert-file and --tls-private-key-file go together");
    }
  }

  /** The security of a cluster whose certificates and keys are {@code pki}'s, anonymous allowed. */
  public static GatewaySecurity of(ClusterPki pki) {
    return new GatewaySecurity(
        pki.servingCertificate(),
        pki.servingKey(),
        pki.caCertificate(),
        null,
        List.of(pki.serviceAccountPublicKey()),
        pki.serviceAccountKey(),
        ServiceAccountTokens.DEFAULT_ISSUER,
        true);
  }

  public boolean tls() {
    return tlsCertFile != null;
  }

  /** The client CAs, empty without {@code --client-ca-file}. */
  public List<X509Certificate> clientCas() {
    return clientCaFile == null ? List.of() : Pem.certificates(clientCaFile);
  }

  /**
   * The keys that verify ServiceAccount tokens: those of {@code --service-account-key-file}, and
   * the signing key's public half, as kube-apiserver adds it.
   */
  public List<PublicKey> serviceAccountKeys() {
    List<PublicKey> keys = new ArrayList<>();
    for (Path file : serviceAccountKeyFiles) {
      keys.addAll(Pem.publicKeys(file));
    }
    if (serviceAccountSigningKeyFile != null) {
      keys.addAll(Pem.publicKeys(serviceAccountSigningKeyFile));
    }
    return keys;
  }

  /** The issuer of ServiceAccount tokens, when a signing key is given. */
  public Optional<ServiceAccountTokens> tokens(Clock clock) {
    if (serviceAccountSigningKeyFile == null) {
      return Optional.empty();
    }
    List<PublicKey> own = Pem.publicKeys(serviceAccountSigningKeyFile);
    if (own.isEmpty()) {
      throw new IllegalArgumentException(
          serviceAccountSigningKeyFile + ": no RSA private key to sign ServiceAccount tokens");
    }
    return Optional.of(
        new ServiceAccountTokens(
            Pem.privateKey(serviceAccountSigningKeyFile),
            own.get(0),
            serviceAccountIssuer,
            List.of(serviceAccountIssuer),
            clock));
  }
}
