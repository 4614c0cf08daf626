package io.streamplane.gateway.authn;

import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The first link of the request chain: the union of the cluster's authenticators, as
 * kube-apiserver's {@code union.New}: the first that names a user wins. When credentials were
 * presented and none accepted them, the request is unauthenticated (401), never anonymous, as
 * kube-apiserver's anonymous authenticator is reached only on "no credentials" ({@code
 * union.NewFailOnError}). Without credentials the request is {@code system:anonymous} in {@code
 * system:unauthenticated} when anonymous requests are allowed. Every authenticated user gets the
 * group {@code system:authenticated}.
 */
public final class Authentication {

  public static final String ANONYMOUS_USER = "system:anonymous";
  public static final String UNAUTHENTICATED_GROUP = "system:unauthenticated";
  public static final String AUTHENTICATED_GROUP = "system:authenticated";

  private final List<Authenticator> authenticators;
  private final boolean anonymous;

  public Authentication(List<Authenticator> authenticators, boolean anonymous) {
    this.authenticators = List.copyOf(authenticators);
    this.anonymous = anonymous;
  }

  /** Who sends a request with these credentials; empty: a 401. */
  public Optional<UserInfo> authenticate(Credentials credentials) {
    List<String> errors = new ArrayList<>();
    for (Authenticator authenticator : authenticators) {
      try {
        Optional<UserInfo> user = authenticator.authenticate(credentials);
        if (user.isPresent()) {
          return Optional.of(authenticated(user.get()));
        }
      } catch (AuthenticationException e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty() || !anonymous) {
      return Optional.empty();
    }
    return Optional.of(
        UserInfo.newBuilder()
            .setUsername(ANONYMOUS_USER)
            .setGroups(List.of(UNAUTHENTICATED_GROUP))
            .build());
  }

  private static UserInfo authenticated(UserInfo user) {
    if (user.getGroups().contains(AUTHENTICATED_GROUP)) {
      return user;
    }
    List<String> groups = new ArrayList<>(user.getGroups());
    groups.add(AUTHENTICATED_GROUP);
    return UserInfo.newBuilder(user).setGroups(groups).build();
  }
}
