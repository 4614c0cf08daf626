package io.streamplane.gateway.server;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.audit.RequestAudit;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authz.Attributes;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.log.UserInfo;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * kube-apiserver's {@code WithImpersonation}: a request carrying {@code Impersonate-User}, {@code
 * Impersonate-Group}, {@code Impersonate-Uid} or {@code Impersonate-Extra-*} headers ({@code
 * kubectl --as}, {@code --as-group}, {@code --as-uid}) acts as the user they name, once the
 * authenticated user is allowed to {@code impersonate} each of them (users, or serviceaccounts for
 * a {@code system:serviceaccount:NS:NAME} user; groups; authentication.k8s.io uids and userextras);
 * else 403. The impersonated user is recorded on the request's audit, and the headers go no
 * further.
 *
 * <p>As kube-apiserver: an empty {@code Impersonate-User} or {@code Impersonate-Uid} is no such
 * header; groups, a uid or extras without a user are a 400; the impersonated user is in {@code
 * system:authenticated} ({@code system:unauthenticated} for {@code system:anonymous}), and a
 * service account without given groups in {@code system:serviceaccounts} and {@code
 * system:serviceaccounts:NAMESPACE}; an extra's key is %-decoded.
 */
final class WithImpersonation extends Handler.Wrapper {

  private static final String PREFIX = "impersonate-";
  private static final String IMPERSONATE_USER = "Impersonate-User";
  private static final String IMPERSONATE_GROUP = "Impersonate-Group";
  private static final String IMPERSONATE_UID = "Impersonate-Uid";
  private static final String IMPERSONATE_EXTRA = "impersonate-extra-";
  private static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";
  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final String DNS_SUBDOMAIN = DNS_LABEL + "(\\." + DNS_LABEL + ")*";

  private final Authorization authorization;

  WithImpersonation(Handler handler, Authorization authorization) {
    super(handler);
    this.authorization = authorization;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    UserInfo authenticated = RequestContext.user(request);
    UserInfo acting;
    try {
      acting = impersonate(authenticated, request.getHeaders());
    } catch (ApiException e) {
      Responses.status(response, callback, e.status());
      return true;
    }
    if (acting != authenticated) {
      if (request.getAttribute(RequestAudit.ATTRIBUTE) instanceof RequestAudit audit) {
        audit.impersonated(acting);
      }
      request.setAttribute(RequestContext.USER, acting);
    }
    boolean headers =
        request.getHeaders().stream()
            .anyMatch(h -> h.getName().toLowerCase(Locale.ROOT).startsWith(PREFIX));
    return super.handle(
        headers ? RequestContext.withoutHeaders(request, name -> name.startsWith(PREFIX)) : request,
        response,
        callback);
  }

  /**
   * The user {@code user} acts as: itself when {@code headers} impersonate nobody, else whom they
   * name, once allowed; a 400 or 403 {@link ApiException} if not.
   */
  UserInfo impersonate(UserInfo user, HttpFields headers) {
    String username = emptyAsNull(headers.get(IMPERSONATE_USER));
    List<String> groups = headers.getValuesList(IMPERSONATE_GROUP);
    String uid = emptyAsNull(headers.get(IMPERSONATE_UID));
    Map<String, List<String>> extra = new TreeMap<>();
    for (HttpField header : headers) {
      String name = header.getName().toLowerCase(Locale.ROOT);
      if (name.startsWith(IMPERSONATE_EXTRA)) {
        extra
            .computeIfAbsent(
                extraKey(name.substring(IMPERSONATE_EXTRA.length())), k -> new ArrayList<>())
            .add(header.getValue());
      }
    }
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
    if (groups.isEmpty() && serviceAccount != null) {
      actingGroups.add("system:serviceaccounts");
      actingGroups.add("system:serviceaccounts:" + serviceAccount[0]);
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
}
