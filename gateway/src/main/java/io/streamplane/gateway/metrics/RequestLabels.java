package io.streamplane.gateway.metrics;

import io.streamplane.gateway.request.RequestInfo;
import java.util.Set;

/**
 * The labels kube-apiserver puts on a request's metrics, worked out as its {@code
 * endpoints/metrics} package does:
 *
 * <ul>
 *   <li>{@code verb}: the HTTP method in capitals, with GET (and HEAD) of a collection reported as
 *       LIST, {@code watch} as WATCH, a PATCH with the apply content type as APPLY, and the connect
 *       subresources ({@code log}, {@code exec}, ...) as CONNECT; other methods as {@code other}.
 *       So a create is POST, an update PUT, a delete or deletecollection DELETE.
 *   <li>{@code scope}: {@code resource} (a named object, or a create), {@code namespace}, {@code
 *       cluster}, or empty for a non-resource request.
 *   <li>{@code dry_run}: empty, {@code All}, or {@code invalid}.
 *   <li>{@code group}, {@code version}, {@code resource}, {@code subresource} of the resource; for
 *       a non-resource request the path stands as subresource ({@code /healthz}, {@code /apis}).
 * </ul>
 *
 * <p>So that clients cannot grow the label set, a resource or subresource the gateway does not
 * serve is reported with empty group, version, resource and subresource, and a non-resource path
 * answered 404 with an empty subresource.
 */
public record RequestLabels(
    String verb,
    String dryRun,
    String group,
    String version,
    String resource,
    String subresource,
    String scope,
    boolean longRunning,
    boolean readOnly) {

  /** kube-apiserver's component label, the same for every request here. */
  public static final String COMPONENT = "apiserver";

  private static final Set<String> CONNECT_SUBRESOURCES =
      Set.of("log", "exec", "portforward", "attach", "proxy");
  private static final Set<String> REPORTED_METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
  private static final String APPLY_PATCH = "application/apply-patch+yaml";

  /**
   * The labels of a request.
   *
   * @param served whether the gateway serves the request's group, version and resource
   * @param subresourceServed whether it serves the request's subresource (true when there is none)
   * @param dryRun the request's {@code dryRun} parameter, or null
   */
  public static RequestLabels of(
      RequestInfo info,
      String method,
      String contentType,
      String dryRun,
      boolean served,
      boolean subresourceServed) {
    String upper = method.toUpperCase();
    String cleanDryRun = dryRun == null ? "" : dryRun.equals("All") ? "All" : "invalid";
    if (!info.resourceRequest()) {
      String verb =
          REPORTED_METHODS.contains(upper) ? (upper.equals("HEAD") ? "GET" : upper) : "other";
      return new RequestLabels(
          verb, cleanDryRun, "", "", "", info.path(), "", false, verb.equals("GET"));
    }
    String scope =
        info.name() != null || info.verb().equals("create")
            ? "resource"
            : info.namespace() != null ? "namespace" : "cluster";
    String verb;
    if (!REPORTED_METHODS.contains(upper)) {
      verb = "other";
    } else if (info.verb().equals("watch")) {
      verb = "WATCH";
    } else if (upper.equals("GET") || upper.equals("HEAD")) {
      verb = scope.equals("resource") ? "GET" : "LIST";
    } else if (upper.equals("PATCH")
        && contentType != null
        && contentType.split(";", 2)[0].trim().equals(APPLY_PATCH)) {
      verb = "APPLY";
    } else {
      verb = upper;
    }
    String subresource = info.subresource() == null ? "" : info.subresource();
    if (CONNECT_SUBRESOURCES.contains(subresource)) {
      verb = "CONNECT";
    }
    // kube-apiserver's long-running check: watches, and the streaming subresources.
    boolean longRunning = verb.equals("WATCH") || CONNECT_SUBRESOURCES.contains(subresource);
    boolean readOnly = Set.of("get", "list", "watch").contains(info.verb());
    if (!served) {
      return new RequestLabels(verb, cleanDryRun, "", "", "", "", scope, longRunning, readOnly);
    }
    return new RequestLabels(
        verb,
        cleanDryRun,
        info.group(),
        info.version(),
        info.resource(),
        subresourceServed ? subresource : "",
        scope,
        longRunning,
        readOnly);
  }

  /** The labels of the answered request: a non-resource path answered 404 loses its path. */
  RequestLabels answered(int code) {
    boolean nonResource = scope.isEmpty();
    return nonResource && code == 404
        ? new RequestLabels(
            verb, dryRun, group, version, resource, "", scope, longRunning, readOnly)
        : this;
  }
}
