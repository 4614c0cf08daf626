package io.streamplane.gateway.authn;

import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a request presents to prove who sends it: its {@code Authorization} header (null when none),
 * the client certificate chain of its TLS connection (empty on plain HTTP or without one), and the
 * peer's address.
 */
public record Credentials(
    String authorization, List<X509Certificate> clientCertificates, InetSocketAddress peer) {

  public Credentials {
    clientCertificates = List.copyOf(clientCertificates);
  }

  /**
   * The token of an {@code Authorization: Bearer <token>} header, read as kube-apiserver's {@code
   * bearertoken} authenticator reads it: the header trimmed, split at single spaces, the scheme
   * {@code bearer} in any case, the token the second part. So {@code Bearer abc} (two spaces) and
   * {@code Bearer<TAB>abc} carry no token (the request is anonymous), and in {@code Bearer abc def}
   * the token is {@code abc}.
   */
  public Optional<String> bearerToken() {
    if (authorization == null) {
      return Optional.empty();
    }
    String[] parts = authorization.strip().split(" ", 3);
    if (parts.length < 2
        || !parts[0].toLowerCase(Locale.ROOT).equals("bearer")
        || parts[1].isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(parts[1]);
  }
}
