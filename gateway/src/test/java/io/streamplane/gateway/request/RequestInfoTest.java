package io.streamplane.gateway.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link RequestInfo#parse}: the same split of a path into group, version, namespace, resource,
 * name and subresource, and the same verb, as kube-apiserver's RequestInfoFactory.
 */
class RequestInfoTest {

  private static RequestInfo get(String path) {
    return RequestInfo.parse("GET", path, Map.of());
  }

  @Test
  void namespacedObjectPathNamesNamespaceResourceAndName() {
    RequestInfo info = get("/api/v1/namespaces/default/pods/web");

    assertThat(info.resourceRequest()).isTrue();
    assertThat(info.apiPrefix()).isEqualTo("api");
    assertThat(info.group()).isEmpty();
    assertThat(info.version()).isEqualTo("v1");
    assertThat(info.namespace()).isEqualTo("default");
    assertThat(info.resource()).isEqualTo("pods");
    assertThat(info.name()).isEqualTo("web");
    assertThat(info.subresource()).isNull();
    assertThat(info.verb()).isEqualTo("get");
  }

  @ParameterizedTest
  @CsvSource({
    "GET, exec",
    "POST, exec",
    "GET, attach",
    "POST, attach",
    "GET, portforward",
    "POST, portforward"
  })
  void connectingToAPodsStreamIsACreateOfItsSubresourceWhateverTheMethod(
      String method, String subresource) {
    RequestInfo info =
        RequestInfo.parse(
            method, "/api/v1/namespaces/default/pods/web/" + subresource, Map.of("stdout", "1"));

    assertThat(info.verb()).isEqualTo("create");
    assertThat(info.resource()).isEqualTo("pods");
    assertThat(info.subresource()).isEqualTo(subresource);
  }

  @Test
  void aPodsLogAndOtherMethodsOnItsStreamsKeepTheirVerbs() {
    assertThat(get("/api/v1/namespaces/default/pods/web/log").verb()).isEqualTo("get");
    assertThat(RequestInfo.parse("DELETE", "/api/v1/namespaces/default/pods/web/exec", Map.of()))
        .extracting(RequestInfo::verb)
        .isEqualTo("delete");
  }

  @Test
  void namespacedCollectionPathIsAList() {
    RequestInfo info = get("/api/v1/namespaces/default/pods");

    assertThat(info.namespace()).isEqualTo("default");
    assertThat(info.resource()).isEqualTo("pods");
    assertThat(info.name()).isNull();
    assertThat(info.verb()).isEqualTo("list");
  }

  @Test
  void clusterScopedPathsHaveNoNamespace() {
    RequestInfo list = get("/api/v1/nodes");
    RequestInfo one = get("/api/v1/nodes/node-1");

    assertThat(list.namespace()).isNull();
    assertThat(list.resource()).isEqualTo("nodes");
    assertThat(list.verb()).isEqualTo("list");
    assertThat(one.namespace()).isNull();
    assertThat(one.name()).isEqualTo("node-1");
    assertThat(one.verb()).isEqualTo("get");
  }

  @Test
  void allNamespacesListHasNoNamespace() {
    RequestInfo info = get("/api/v1/pods");

    assertThat(info.namespace()).isNull();
    assertThat(info.resource()).isEqualTo("pods");
    assertThat(info.verb()).isEqualTo("list");
  }

  @Test
  void namespacePathIsTheNamespaceObjectItself() {
    RequestInfo info = get("/api/v1/namespaces/x");

    assertThat(info.namespace()).isNull();
    assertThat(info.resource()).isEqualTo("namespaces");
    assertThat(info.name()).isEqualTo("x");
    assertThat(info.subresource()).isNull();
    assertThat(info.verb()).isEqualTo("get");
  }

  @Test
  void namespaceStatusAndFinalizeAreSubresourcesOfTheNamespace() {
    RequestInfo status = RequestInfo.parse("PUT", "/api/v1/namespaces/x/status", Map.of());
    RequestInfo finalize = RequestInfo.parse("PUT", "/api/v1/namespaces/x/finalize", Map.of());

    assertThat(status.namespace()).isNull();
    assertThat(status.resource()).isEqualTo("namespaces");
    assertThat(status.name()).isEqualTo("x");
    assertThat(status.subresource()).isEqualTo("status");
    assertThat(status.verb()).isEqualTo("update");
    assertThat(finalize.resource()).isEqualTo("namespaces");
    assertThat(finalize.name()).isEqualTo("x");
    assertThat(finalize.subresource()).isEqualTo("finalize");
  }

  @Test
  void podStatusIsASubresourceOfThePod() {
    RequestInfo info =
        RequestInfo.parse("PATCH", "/api/v1/namespaces/default/pods/web/status", Map.of());

    assertThat(info.namespace()).isEqualTo("default");
    assertThat(info.resource()).isEqualTo("pods");
    assertThat(info.name()).isEqualTo("web");
    assertThat(info.subresource()).isEqualTo("status");
    assertThat(info.verb()).isEqualTo("patch");
  }

  @Test
  void namedGroupPathCarriesGroupAndVersion() {
    RequestInfo info = get("/apis/apps/v1/namespaces/default/deployments/nginx/scale");

    assertThat(info.apiPrefix()).isEqualTo("apis");
    assertThat(info.group()).isEqualTo("apps");
    assertThat(info.version()).isEqualTo("v1");
    assertThat(info.namespace()).isEqualTo("default");
    assertThat(info.resource()).isEqualTo("deployments");
    assertThat(info.name()).isEqualTo("nginx");
    assertThat(info.subresource()).isEqualTo("scale");
    assertThat(info.verb()).isEqualTo("get");
  }

  @Test
  void watchQueryParameterMakesGetsWatches() {
    RequestInfo collection =
        RequestInfo.parse("GET", "/api/v1/namespaces/default/pods", Map.of("watch", "true"));
    RequestInfo one =
        RequestInfo.parse("GET", "/api/v1/namespaces/default/pods/web", Map.of("watch", "1"));
    RequestInfo notWatch =
        RequestInfo.parse("GET", "/api/v1/namespaces/default/pods", Map.of("watch", "false"));

    assertThat(collection.verb()).isEqualTo("watch");
    assertThat(one.verb()).isEqualTo("watch");
    assertThat(one.name()).isEqualTo("web");
    assertThat(notWatch.verb()).isEqualTo("list");
  }

  @Test
  void legacyWatchPrefixIsAWatchOfThePathAfterIt() {
    RequestInfo collection = get("/api/v1/watch/namespaces/default/pods");
    RequestInfo one = get("/apis/apps/v1/watch/namespaces/default/deployments/nginx");
    RequestInfo clusterWide = get("/api/v1/watch/pods");

    assertThat(collection.verb()).isEqualTo("watch");
    assertThat(collection.namespace()).isEqualTo("default");
    assertThat(collection.resource()).isEqualTo("pods");
    assertThat(collection.name()).isNull();
    assertThat(one.verb()).isEqualTo("watch");
    assertThat(one.group()).isEqualTo("apps");
    assertThat(one.resource()).isEqualTo("deployments");
    assertThat(one.name()).isEqualTo("nginx");
    assertThat(clusterWide.verb()).isEqualTo("watch");
    assertThat(clusterWide.namespace()).isNull();
    assertThat(clusterWide.resource()).isEqualTo("pods");
  }

  @Test
  void watchPrefixWithNothingAfterItIsNoResourceRequest() {
    RequestInfo info = get("/api/v1/watch");

    assertThat(info.resourceRequest()).isFalse();
    assertThat(info.parts()).containsExactly("api", "v1", "watch");
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource({
    "GET,    /api/v1/namespaces/default/pods/web, get",
    "HEAD,   /api/v1/namespaces/default/pods/web, get",
    "GET,    /api/v1/namespaces/default/pods,     list",
    "POST,   /api/v1/namespaces/default/pods,     create",
    "PUT,    /api/v1/namespaces/default/pods/web, update",
    "PATCH,  /api/v1/namespaces/default/pods/web, patch",
    "DELETE, /api/v1/namespaces/default/pods/web, delete",
    "DELETE, /api/v1/namespaces/default/pods,     deletecollection",
    "post,   /api/v1/namespaces/default/pods,     create",
  })
  void verbFollowsMethodAndWhetherANameIsGiven(String method, String path, String verb) {
    assertThat(RequestInfo.parse(method, path, Map.of()).verb()).isEqualTo(verb);
  }

  @ParameterizedTest
  @CsvSource({
    "/version, version",
    "/apis, apis",
    "/api, api",
    "/apis/apps, apis/apps",
    "/apis/apps/v1, apis/apps/v1",
    "/api/v1, api/v1",
    "/openapi/v3/api/v1, openapi/v3/api/v1",
    "/healthz, healthz",
  })
  void discoveryAndOtherPathsAreNonResourceRequests(String path, String parts) {
    RequestInfo info = get(path);

    assertThat(info.resourceRequest()).isFalse();
    assertThat(info.verb()).isEqualTo("get");
    assertThat(info.path()).isEqualTo(path);
    assertThat(String.join("/", info.parts())).isEqualTo(parts);
    assertThat(info.resource()).isNull();
  }

  @ParameterizedTest
  @CsvSource(
      value = {"true", "True", "TRUE", "1", "t", "T", "yes", "''"},
      emptyValue = "")
  void watchParameterIsTrueUnlessZeroOrFalseAsKubeApiserverDecodesIt(String value) {
    RequestInfo info = RequestInfo.parse("GET", "/api/v1/pods", Map.of("watch", value));

    assertThat(info.verb()).isEqualTo("watch");
  }

  @ParameterizedTest
  @CsvSource({"false", "False", "FALSE", "0"})
  void watchParameterZeroOrFalseInAnyCaseIsAList(String value) {
    RequestInfo info = RequestInfo.parse("GET", "/api/v1/pods", Map.of("watch", value));

    assertThat(info.verb()).isEqualTo("list");
  }
}
