package io.streamplane.controller;

import io.streamplane.log.UserInfo;
import java.util.List;

/**
 * Who the controllers are in the audit trail: each writes its commands as its own service account
 * in {@code kube-system}, as kube-controller-manager's controllers do with {@code
 * --use-service-account-credentials}.
 */
public final class ControllerActors {

  private ControllerActors() {}

  /** {@code system:serviceaccount:kube-system:<name>} with the groups Kubernetes gives it. */
  public static UserInfo serviceAccount(String name) {
    return UserInfo.newBuilder()
        .setUsername("system:serviceaccount:kube-system:" + name)
        .setGroups(
            List.of(
                "system:serviceaccounts",
                "system:serviceaccounts:kube-system",
                "system:authenticated"))
        .build();
  }
}
