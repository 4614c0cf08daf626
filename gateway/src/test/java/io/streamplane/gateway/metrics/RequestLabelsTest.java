package io.streamplane.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.gateway.request.RequestInfo;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** kube-apiserver's verb and scope labels, from a request's method, path and content type. */
class RequestLabelsTest {

  private static RequestLabels labels(String method, String target, String contentType) {
    String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
    Map<String, String> query = new HashMap<>();
    if (target.contains("?")) {
      for (String pair : target.substring(target.indexOf('?') + 1).split("&")) {
        String[] kv = pair.split("=", 2);
        query.put(kv[0], kv.length > 1 ? kv[1] : "");
      }
    }
    RequestInfo info = RequestInfo.parse(method, path, query);
    return RequestLabels.of(info, method, contentType, query.get("dryRun"), true, true);
  }

  @ParameterizedTest(name = "{0} {1} is {3}, scope {4}")
  @CsvSource({
    "GET,    /api/v1/namespaces/default/pods/web,            , GET,    resource",
    "HEAD,   /api/v1/namespaces/default/pods/web,            , GET,    resource",
    "GET,    /api/v1/namespaces/default/pods,                , LIST,   namespace",
    "GET,    /api/v1/pods,                                   , LIST,   cluster",
    "GET,    /api/v1/namespaces/default/pods?watch=true,     , WATCH,  namespace",
    "GET,    /api/v1/watch/namespaces/default/pods,          , WATCH,  namespace",
    "POST,   /api/v1/namespaces/default/pods,                , POST,   resource",
    "PUT,    /api/v1/namespaces/default/pods/web/status,     , PUT,    resource",
    "PATCH,  /apis/apps/v1/namespaces/default/deployments/d, application/merge-patch+json, PATCH, resource",
    "PATCH,  /apis/apps/v1/namespaces/default/deployments/d, application/apply-patch+yaml, APPLY, resource",
    "DELETE, /api/v1/namespaces/default/pods/web,            , DELETE, resource",
    "DELETE, /api/v1/namespaces/default/pods,                , DELETE, namespace",
    "GET,    /api/v1/namespaces/default/pods/web/log,        , CONNECT, resource",
    "OPTIONS, /api/v1/namespaces/default/pods,               , other,  namespace",
    "GET,    /healthz,                                       , GET,    ''",
  })
  void verbAndScopeAreKubeApiserversOwn(
      String method, String target, String contentType, String verb, String scope) {
    RequestLabels labels = labels(method, target, contentType);

    assertThat(labels.verb()).isEqualTo(verb);
    assertThat(labels.scope()).isEqualTo(scope);
  }

  @Test
  void watchesAndLogStreamsAreLongRunningAndOtherRequestsAreReadOnlyOrMutating() {
    assertThat(labels("GET", "/api/v1/pods?watch=1", null).longRunning()).isTrue();
    assertThat(labels("GET", "/api/v1/namespaces/default/pods/web/log", null).longRunning())
        .isTrue();
    assertThat(labels("GET", "/api/v1/pods", null).longRunning()).isFalse();
    assertThat(labels("GET", "/api/v1/pods", null).readOnly()).isTrue();
    assertThat(labels("POST", "/api/v1/namespaces/default/pods", null).readOnly()).isFalse();
  }

  @Test
  void resourceLabelsNameTheGroupVersionResourceAndSubresource() {
    RequestLabels labels =
        labels("PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale", null);

    assertThat(labels.group()).isEqualTo("apps");
    assertThat(labels.version()).isEqualTo("v1");
    assertThat(labels.resource()).isEqualTo("deployments");
    assertThat(labels.subresource()).isEqualTo("scale");
  }

  @Test
  void dryRunIsAllOrInvalid() {
    assertThat(labels("POST", "/api/v1/namespaces/default/pods?dryRun=All", null).dryRun())
        .isEqualTo("All");
    assertThat(labels("POST", "/api/v1/namespaces/default/pods?dryRun=Some", null).dryRun())
        .isEqualTo("invalid");
    assertThat(labels("POST", "/api/v1/namespaces/default/pods", null).dryRun()).isEmpty();
  }

  @Test
  void whatTheGatewayDoesNotServeIsNoLabelValue() {
    RequestInfo widgets =
        RequestInfo.parse("GET", "/apis/example.com/v1/namespaces/default/widgets", Map.of());
    RequestInfo podsFoo =
        RequestInfo.parse("GET", "/api/v1/namespaces/default/pods/web/foo", Map.of());

    RequestLabels unserved = RequestLabels.of(widgets, "GET", null, null, false, false);
    RequestLabels unservedSubresource = RequestLabels.of(podsFoo, "GET", null, null, true, false);
    RequestLabels missingPath = labels("GET", "/no/such/path", null).answered(404);

    assertThat(unserved.group() + unserved.version() + unserved.resource()).isEmpty();
    assertThat(unserved.scope()).isEqualTo("namespace");
    assertThat(unservedSubresource.resource()).isEqualTo("pods");
    assertThat(unservedSubresource.subresource()).isEmpty();
    assertThat(missingPath.subresource()).isEmpty();
    assertThat(labels("GET", "/version", null).answered(200).subresource()).isEqualTo("/version");
  }
}
