package io.streamplane.gateway.request;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a request is about, parsed from its method and path as kube-apiserver's {@code
 * RequestInfoFactory} does: a resource request ({@code /api/v1/namespaces/default/pods/web/status})
 * with its verb (get, list, watch, create, update, patch, delete, deletecollection), or a
 * non-resource request ({@code /version}, {@code /apis}).
 */
public record RequestInfo(
    boolean resourceRequest,
    String path,
    String verb,
    String apiPrefix,
    String group,
    String version,
    String namespace,
    String resource,
    String name,
    String subresource,
    List<String> parts) {

  private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

  /**
   * The subresources of a pod that stream to its node. Connecting to one is a {@code create},
   * whatever the method: kube-apiserver 1.32 resolves kubectl's WebSocket upgrade (a GET) to {@code
   * get} and so lets a user with {@code get} on {@code pods/exec} run commands, a hole it closes
   * from 1.35 by checking {@code create} as well (the {@code
   * AuthorizePodWebsocketUpgradeCreatePermission} feature); the gateway asks {@code create} only,
   * as kube-apiserver has always asked of a SPDY upgrade (a POST).
   */
  private static final Set<String> STREAMING_SUBRESOURCES = Set.of("exec", "attach", "portforward");

  public static RequestInfo parse(String method, String path, Map<String, String> query) {
    List<String> segments = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        segments.add(s);
      }
    }
    String lowerMethod = method.toLowerCase();
    if (segments.isEmpty() || !(segments.get(0).equals("api") || segments.get(0).equals("apis"))) {
      return nonResource(path, lowerMethod, segments);
    }
    String prefix = segments.get(0);
    List<String> rest = segments.subList(1, segments.size());
    String group = "";
    if (prefix.equals("apis")) {
      if (rest.isEmpty()) {
        return nonResource(path, lowerMethod, segments);
      }
      group = rest.get(0);
      rest = rest.subList(1, rest.size());
    }
    if (rest.isEmpty()) {
      return nonResource(path, lowerMethod, segments);
    }
    String version = rest.get(0);
    rest = rest.subList(1, rest.size());
    if (rest.isEmpty()) {
      return nonResource(path, lowerMethod, segments);
    }
    boolean legacyWatch = false;
    if (rest.get(0).equals("watch")) {
      legacyWatch = true;
      rest = rest.subList(1, rest.size());
      if (rest.isEmpty()) {
        return nonResource(path, lowerMethod, segments);
      }
    }
    String namespace = null;
    if (rest.get(0).equals("namespaces") && rest.size() > 1) {
      namespace = rest.get(1);
      if (rest.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
        rest = rest.subList(2, rest.size());
      }
    }
    String resource = rest.get(0);
    String name = rest.size() > 1 ? rest.get(1) : null;
    String subresource = rest.size() > 2 ? rest.get(2) : null;
    if (resource.equals("namespaces")) {
      // "/api/v1/namespaces/x" is the namespace x itself, a cluster-scoped object.
      namespace = null;
    }
    boolean watch = legacyWatch || QueryBooleans.get(query, "watch");
    String verb =
        switch (lowerMethod) {
          case "get", "head" ->
              name == null ? (watch ? "watch" : "list") : (watch ? "watch" : "get");
          case "post" -> "create";
          case "put" -> "update";
          case "patch" -> "patch";
          case "delete" -> name == null ? "deletecollection" : "delete";
          default -> lowerMethod;
        };
    if (prefix.equals("api")
        && resource.equals("pods")
        && name != null
        && subresource != null
        && STREAMING_SUBRESOURCES.contains(subresource)
        && List.of("get", "head", "post").contains(lowerMethod)) {
      verb = "create";
    }
    return new RequestInfo(
        true, path, verb, prefix, group, version, namespace, resource, name, subresource, rest);
  }

  private static RequestInfo nonResource(String path, String method, List<String> segments) {
    return new RequestInfo(
        false, path, method, null, null, null, null, null, null, null, List.copyOf(segments));
  }

  @Override
  public String toString() {
    return verb
        + " "
        + path
        + (resourceRequest
            ? " " + Arrays.asList(group, resource, namespace, name, subresource)
            : "");
  }
}
