package io.streamplane.gateway.server;

import com.sun.net.httpserver.HttpExchange;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Credentials;
import io.streamplane.gateway.authn.FixedUser;
import io.streamplane.gateway.authz.Attributes;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.Decision;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.SecureRequestCustomizer;

/**
 * What every request passes through before the API answers it, in this order: authentication (who
 * sends it; the {@code Authorization} header is removed once read), authorization (may they), then,
 * for writes, admission inside the {@link io.streamplane.gateway.storage.ResourceService}.
 */
public record RequestChain(
    Authentication authentication, Authorization authorization, Admission admission) {

  private static final String IMPERSONATE_USER = "Impersonate-User";
  private static final String IMPERSONATE_GROUP = "Impersonate-Group";
  private static final String IMPERSONATE_UID = "Impersonate-Uid";
  private static final String IMPERSONATE_EXTRA = "Impersonate-Extra-";
  private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";
  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final String DNS_SUBDOMAIN = DNS_LABEL + "(\\." + DNS_LABEL + ")*";

  /**
   * Every request acts as {@code user}, allowed everything when in {@code system:masters}: for a
   * gateway nobody but its own process reaches.
   */
  public static RequestChain unauthenticated(UserInfo user) {
    return new RequestChain(
        new Authentication(List.of(new FixedUser(user)), false),
        new Authorization(List.of(new PrivilegedGroups())),
        Admission.none());
  }

  /** The user sending {@code exchange}, or a 401 {@link ApiException}. */
  public UserInfo authenticate(HttpExchange exchange) {
    Credentials credentials =
        new Credentials(
            exchange.getRequestHeaders().getFirst("Authorization"),
            clientCertificates(exchange.getAttribute(EndPoint.SslSessionData.ATTRIBUTE)),
            exchange.getRemoteAddress());
    exchange.getRequestHeaders().remove("Authorization");
    return authenticate(credentials);
  }

  /** The user presenting {@code credentials}, or a 401 {@link ApiException}. */
  public UserInfo authenticate(Credentials credentials) {
    return authentication
        .authenticate(credentials)
        .orElseThrow(() -> new ApiException(Statuses.unauthorized("")));
  }

  /**
   * The user {@code user} acts as: itself, or whom the {@code Impersonate-User}, {@code
   * Impersonate-Group}, {@code Impersonate-Uid} and {@code Impersonate-Extra-*} headers name
   * ({@code kubectl --as}), once {@code user} is allowed to {@code impersonate} each of them, as
   * kube-apiserver's impersonation filter; a 403 {@link ApiException} if not. The headers are
   * removed. The impersonated user is in {@code system:authenticated} ({@code
   * system:unauthenticated} for {@code system:anonymous}), and a service account without given
   * groups in {@code system:serviceaccounts} and {@code system:serviceaccounts:NAMESPACE}. As
   * kube-apiserver, an empty {@code Impersonate-User} or {@code Impersonate-Uid} is no such header,
   * and groups, a uid or extras without a user are a 400 {@link ApiException}.
   */
  public UserInfo impersonate(UserInfo user, HttpExchange exchange) {
    var headers = exchange.getRequestHeaders();
    String username = emptyAsNull(headers.getFirst(IMPERSONATE_USER));
    List<String> groups =
        headers.get(IMPERSONATE_GROUP) == null
            ? List.of()
            : List.copyOf(headers.get(IMPERSONATE_GROUP));
    String uid = emptyAsNull(headers.getFirst(IMPERSONATE_UID));
    Map<String, List<String>> extra = new TreeMap<>();
    for (String header : List.copyOf(headers.keySet())) {
      if (header.regionMatches(true, 0, IMPERSONATE_EXTRA, 0, IMPERSONATE_EXTRA.length())) {
        String key =
            extraKey(header.substring(IMPERSONATE_EXTRA.length()).toLowerCase(Locale.ROOT));
        extra.put(key, headers.get(header));
        headers.remove(header);
      }
    }
    headers.remove(IMPERSONATE_USER);
    headers.remove(IMPERSONATE_GROUP);
    headers.remove(IMPERSONATE_UID);
    if (username == null && groups.isEmpty() && uid == null && extra.isEmpty()) {
      return user;
    }
    if (username == null) {
      throw new ApiException(
          Statuses.badRequest(
              "requested " + requested(groups, uid, extra) + " without impersonating a user"));
    }
    List<Attributes> checks = new ArrayList<>();
    String[] serviceAccount = serviceAccount(username);
    if (serviceAccount != null) {
      checks.add(
          impersonation(user, "", "serviceaccounts", "", serviceAccount[0], serviceAccount[1]));
    } else {
      checks.add(impersonation(user, "", "users", "", "", username));
    }
    for (String group : groups) {
      checks.add(impersonation(user, "", "groups", "", "", group));
    }
    if (uid != null) {
      checks.add(impersonation(user, "authentication.k8s.io", "uids", "", "", uid));
    }
    extra.forEach(
        (key, values) ->
            values.forEach(
                value ->
                    checks.add(
                        impersonation(
                            user, "authentication.k8s.io", "userextras", key, "", value))));
    for (Attributes check : checks) {
      if (!authorization.authorize(check).allowed()) {
        throw new ApiException(
            Statuses.forbiddenByAuthorizer(
                user.getUsername(),
                check.verb(),
                check.group(),
                check.resource(),
                check.subresource(),
                check.namespace(),
                check.name()));
      }
    }
    List<String> actingGroups = new ArrayList<>(groups);
    if (groups.isEmpty() && checks.get(0).resource().equals("serviceaccounts")) {
      actingGroups.add("system:serviceaccounts");
      actingGroups.add("system:serviceaccounts:" + checks.get(0).namespace());
    }
    String everyone =
        username.equals(Authentication.ANONYMOUS_USER)
            ? Authentication.UNAUTHENTICATED_GROUP
            : Authentication.AUTHENTICATED_GROUP;
    if (!actingGroups.contains(everyone)) {
      actingGroups.add(everyone);
    }
    UserInfo.Builder acting = UserInfo.newBuilder().setUsername(username).setGroups(actingGroups);
    if (uid != null) {
      acting.setUid(uid);
    }
    if (!extra.isEmpty()) {
      acting.setExtra(extra);
    }
    return acting.build();
  }

  /**
   * An extra's key, %-decoded as Go's {@code url.PathUnescape} ({@code +} stays a plus); a key with
   * a broken escape is kept as it is, as kube-apiserver keeps it.
   */
  private static String extraKey(String encoded) {
    try {
      return URLDecoder.decode(encoded.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return encoded;
    }
  }

  private static String emptyAsNull(String header) {
    return header == null || header.isEmpty() ? null : header;
  }

  /**
   * Namespace and name of a service account's user name, as client-go's {@code
   * serviceaccount.SplitUsername}: exactly two parts after the prefix, a namespace and a
   * ServiceAccount name; null for any other user name.
   */
  private static String[] serviceAccount(String username) {
    if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
      return null;
    }
    String[] parts = username.substring(SERVICE_ACCOUNT_PREFIX.length()).split(":", -1);
    if (parts.length != 2
        || !parts[0].matches(DNS_LABEL)
        || parts[0].length() > 63
        || !parts[1].matches(DNS_SUBDOMAIN)
        || parts[1].length() > 253) {
      return null;
    }
    return parts;
  }

  /**
   * What a request without a user asked to impersonate, as kube-apiserver prints its object
   * references (Go's {@code %v} of {@code []v1.ObjectReference}).
   */
  private static String requested(
      List<String> groups, String uid, Map<String, List<String>> extra) {
    List<String> references = new ArrayList<>();
    groups.forEach(group -> references.add(reference("Group", group, "", "")));
    extra.forEach(
        (key, values) ->
            values.forEach(
                value ->
                    references.add(
                        reference("UserExtra", value, "authentication.k8s.io/v1", key))));
    if (uid != null) {
      references.add(reference("UID", uid, "authentication.k8s.io/v1", ""));
    }
    return "[" + String.join(" ", references) + "]";
  }

  /** Kind, Namespace, Name, UID, APIVersion, ResourceVersion, FieldPath: Go's struct format. */
  private static String reference(String kind, String name, String apiVersion, String fieldPath) {
    return "{" + String.join(" ", kind, "", name, "", apiVersion, "", fieldPath) + "}";
  }

  private static Attributes impersonation(
      UserInfo user,
      String group,
      String resource,
      String subresource,
      String namespace,
      String name) {
    return new Attributes(
        user, "impersonate", true, group, resource, subresource, namespace, name, "");
  }

  /**
   * Returns when {@code user} may do what {@code request} asks; a 403 {@link ApiException} if not.
   */
  public void authorize(UserInfo user, RequestInfo request) {
    Attributes attributes = Attributes.of(user, request);
    Decision decision = authorization.authorize(attributes);
    if (decision.allowed()) {
      return;
    }
    if (!attributes.resourceRequest()) {
      throw new ApiException(
          Statuses.forbiddenPath(
              user.getUsername(), attributes.verb(), attributes.path(), decision.reason()));
    }
    throw new ApiException(
        Statuses.forbiddenByAuthorizer(
            user.getUsername(),
            attributes.verb(),
            attributes.group(),
            attributes.resource(),
            attributes.subresource(),
            attributes.namespace(),
            attributes.name(),
            decision.reason()));
  }

  /**
   * The client certificate chain of a TLS connection: Jetty's {@link SecureRequestCustomizer} keeps
   * the session's peer certificates in a request attribute, which jetty-http-spi's exchange passes
   * through (its {@code HttpsExchange.getSSLSession()} answers null).
   */
  static List<X509Certificate> clientCertificates(Object sslSessionData) {
    if (!(sslSessionData instanceof EndPoint.SslSessionData session)) {
      return List.of();
    }
    X509Certificate[] chain = session.peerCertificates();
    return chain == null ? List.of() : List.of(chain);
  }
}
