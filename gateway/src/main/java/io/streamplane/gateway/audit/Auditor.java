package io.streamplane.gateway.audit;

import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What the gateway's audit filter asks (it runs after authentication, before impersonation and
 * authorization): decides with the {@link AuditPolicy} at which level a request is recorded and
 * starts its {@link RequestAudit}, whose events go to an {@link AuditSink} (the cluster's {@code
 * audit} topic). A request whose credentials were refused is recorded by {@link
 * #failedAuthentication}.
 */
public final class Auditor implements AutoCloseable {

  /** The header carrying a request's audit id, both ways, as kube-apiserver names it. */
  public static final String HEADER = "Audit-Id";

  private final AuditPolicy policy;
  private final AuditSink sink;
  private final Clock clock;

  public Auditor(AuditPolicy policy, AuditSink sink, Clock clock) {
    this.policy = policy;
    this.sink = sink;
    this.clock = clock;
  }

  /** Audits nothing. */
  public static Auditor none() {
    return new Auditor(new AuditPolicy(List.of(), Set.of()), AuditSink.none(), Clock.systemUTC());
  }

  public Instant now() {
    return clock.instant();
  }

  /**
   * The audit id of a request whose {@code Audit-ID} header is {@code sent} (null: none): the
   * client's (kube-apiserver keeps it, so a proxy's id follows the request), else a new random
   * UUID.
   */
  public static String auditId(String sent) {
    if (sent != null && !sent.isBlank() && sent.length() <= 128) {
      return sent.trim();
    }
    return UUID.randomUUID().toString();
  }

  /** Starts the audit of an authenticated request, writing its RequestReceived stage. */
  public RequestAudit begin(
      String auditId,
      Instant received,
      RequestInfo request,
      UserInfo user,
      RequestAudit.RequestMeta meta) {
    RequestAudit audit =
        new RequestAudit(
            sink, clock, policy.decide(user, request), auditId, received, request, user, meta);
    audit.received();
    return audit;
  }

  /**
   * Records a request whose credentials were refused (401), with no user, as kube-apiserver's
   * failed-authentication audit does.
   */
  public void failedAuthentication(
      String auditId,
      Instant received,
      RequestInfo request,
      RequestAudit.RequestMeta meta,
      String authorization,
      boolean clientCertificate,
      int code) {
    new RequestAudit(
            sink, clock, policy.decide(null, request), auditId, received, request, null, meta)
        .failedAuthentication(code, attempted(authorization, clientCertificate));
  }

  /** The methods a request tried, in kube-apiserver's words. */
  static String attempted(String authorization, boolean clientCertificate) {
    List<String> methods = new ArrayList<>();
    if (authorization != null && !authorization.isBlank()) {
      String scheme = authorization.trim().split("\\s+", 2)[0].toLowerCase();
      if (scheme.equals("basic") || scheme.equals("bearer")) {
        methods.add(scheme);
      }
    }
    if (clientCertificate) {
      methods.add("x509");
    }
    return String.join(", ", methods);
  }

  /**
   * What the audit records of a request: its path and query ({@code rawPathAndQuery}, as sent), the
   * addresses it came from ({@code X-Forwarded-For}, then the peer's), and its User-Agent.
   */
  public static RequestAudit.RequestMeta meta(
      String rawPathAndQuery, String forwardedFor, InetSocketAddress peer, String userAgent) {
    List<String> ips = new ArrayList<>();
    if (forwardedFor != null) {
      for (String ip : forwardedFor.split(",")) {
        if (!ip.isBlank() && !ips.contains(ip.trim())) {
          ips.add(ip.trim());
        }
      }
    }
    if (peer != null && peer.getAddress() != null) {
      String remote = peer.getAddress().getHostAddress();
      if (!ips.contains(remote)) {
        ips.add(remote);
      }
    }
    return new RequestAudit.RequestMeta(rawPathAndQuery, ips, userAgent);
  }

  @Override
  public void close() {
    sink.close();
  }
}
