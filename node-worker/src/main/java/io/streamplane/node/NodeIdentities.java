package io.streamplane.node;

import javax.net.ssl.SSLContext;

/**
 * Who each node of a fleet is to the gateway, as kubelet's client certificate makes it {@code
 * system:node:NAME} in {@code system:nodes}, and the cluster CA pods are given as their {@code
 * ca.crt}.
 */
public interface NodeIdentities {

  /** The TLS context of node {@code nodeName}: its client certificate and the CA it trusts. */
  SSLContext tls(String nodeName);

  /** The cluster CA in PEM, which pods find in their ServiceAccount volume; null if none. */
  String clusterCaPem();

  /** Plain HTTP, no identity: a gateway that authenticates nobody. */
  static NodeIdentities none() {
    return new NodeIdentities() {
      @Override
      public SSLContext tls(String nodeName) {
        return null;
      }

      @Override
      public String clusterCaPem() {
        return null;
      }
    };
  }
}
