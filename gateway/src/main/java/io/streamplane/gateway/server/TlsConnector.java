package io.streamplane.gateway.server;

import io.streamplane.gateway.pki.Pem;
import java.net.Socket;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CRL;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The gateway's HTTPS connector, as kube-apiserver's secure port: the serving certificate and key
 * from PEM files, client certificates requested but not required (Go's {@code
 * tls.RequestClientCert}), the client CAs advertised so that a client picks the right certificate.
 * A client certificate is not checked during the handshake: the {@code x509} authenticator verifies
 * it, so that a certificate of another CA is answered 401 with a Status, as kube-apiserver answers
 * it, rather than a failed handshake. {@link SecureRequestCustomizer} makes the session's peer
 * certificates a request attribute, where {@link RequestChain} reads them.
 */
final class TlsConnector {

  private TlsConnector() {}

  static ServerConnector create(Server server, HttpConfiguration plain, GatewaySecurity security) {
    List<X509Certificate> chain = Pem.certificates(security.tlsCertFile());
    if (chain.isEmpty()) {
      throw new IllegalArgumentException(security.tlsCertFile() + ": no certificate");
    }
    PrivateKey key = Pem.privateKey(security.tlsPrivateKeyFile());
    char[] password = new char[0];
    KeyStore keys;
    try {
      keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("apiserver", key, password, chain.toArray(X509Certificate[]::new));
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "cannot use the serving certificate: " + e.getMessage(), e);
    }
    List<X509Certificate> clientCas = security.clientCas();
    SslContextFactory.Server ssl =
        new SslContextFactory.Server() {
          @Override
          protected TrustManager[] getTrustManagers(
              KeyStore trustStore, Collection<? extends CRL> crls) {
            return new TrustManager[] {new RequestedClientCertificates(clientCas)};
          }
        };
    ssl.setKeyStore(keys);
    ssl.setKeyStorePassword("");
    ssl.setNeedClientAuth(false);
    ssl.setWantClientAuth(true);
    // Clients reach the gateway by IP address (127.0.0.1) without SNI; the certificate covers it.
    ssl.setSniRequired(false);
    HttpConfiguration https = new HttpConfiguration(plain);
    SecureRequestCustomizer customizer = new SecureRequestCustomizer(false);
    customizer.setSniHostCheck(false);
    https.addCustomizer(customizer);
    return new ServerConnector(
        server,
        new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
        new HttpConnectionFactory(https));
  }

  /**
   * Accepts any client certificate chain and names the client CAs as acceptable issuers: the
   * handshake only collects the chain, the {@code x509} authenticator judges it.
   */
  private static final class RequestedClientCertificates extends X509ExtendedTrustManager {

    private final X509Certificate[] issuers;

    RequestedClientCertificates(List<X509Certificate> clientCas) {
      this.issuers = clientCas.toArray(X509Certificate[]::new);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
      throw new UnsupportedOperationException("a server's trust manager checks no servers");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
      throw new UnsupportedOperationException("a server's trust manager checks no servers");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
      throw new UnsupportedOperationException("a server's trust manager checks no servers");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return issuers.clone();
    }
  }
}
