package io.streamplane.cli.up;

import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.node.NodeIdentities;
import javax.net.ssl.SSLContext;

/**
 * Node identities signed by the cluster CA of a {@link ClusterPki}: each node gets a new client
 * certificate {@code system:node:NAME} in {@code system:nodes} when its agent starts, as kubelet's
 * TLS bootstrap would obtain one, without a CertificateSigningRequest (the process holds the CA).
 */
public final class PkiNodeIdentities implements NodeIdentities {

  private final ClusterPki pki;

  public PkiNodeIdentities(ClusterPki pki) {
    this.pki = pki;
  }

  @Override
  public SSLContext tls(String nodeName) {
    return pki.node(nodeName).sslContext();
  }
}
