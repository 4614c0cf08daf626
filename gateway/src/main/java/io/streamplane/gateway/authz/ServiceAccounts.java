package io.streamplane.gateway.authz;

/** How Kubernetes names a ServiceAccount as a user: {@code system:serviceaccount:NS:NAME}. */
final class ServiceAccounts {

  static final String PREFIX = "system:serviceaccount:";

  private ServiceAccounts() {}

  static String username(String namespace, String name) {
    return PREFIX + namespace + ":" + name;
  }
}
