package io.streamplane.node;

import javax.net.ssl.SSLContext;

/**
 * Who each node of a fleet is to the gateway, as kubelet's client certificate makes it {@code
 * system:node:NAME} in {@code system:nodes}.
 */
public interface NodeIdentities {

  /** The TLS context of node {@code nodeName}: its client certificate and the CA it trusts. */
  SSLContext tls(String nodeName);

  /** Plain HTTP, no identity: a gateway that authenticates nobody. */
  static NodeIdentities none() {
    return nodeName -> null;
  }
}
