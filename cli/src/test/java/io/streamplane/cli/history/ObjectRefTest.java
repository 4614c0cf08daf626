package io.streamplane.cli.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.kinds.ResourceRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectRefTest {

  private static final ResourceRegistry REGISTRY = ResourceRegistry.kubernetes();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "deployment/web",
        "deployments/web",
        "deploy/web",
        "Deployment/web",
        "deployments.apps/web",
        "deployment.apps/web",
        "deployments.v1.apps/web"
      })
  void everyKubectlSpellingOfADeploymentNamesTheSameKey(String arg) {
    ObjectRef ref = ObjectRef.parse(arg, "team-a", REGISTRY);

    assertThat(ref.key().toString()).isEqualTo("deployments.apps/team-a/web");
  }

  @ParameterizedTest
  @ValueSource(strings = {"pod/web-0", "pods/web-0", "po/web-0", "pods.v1/web-0"})
  void podSpellingsNameTheCorePodKeyInTheDefaultNamespace(String arg) {
    ObjectRef ref = ObjectRef.parse(arg, null, REGISTRY);

    assertThat(ref.key().toString()).isEqualTo("pods./default/web-0");
  }

  @Test
  void theApiPathIsTheObjectsPathInTheKubernetesApi() {
    assertThat(ObjectRef.parse("deploy/web", "team-a", REGISTRY).apiPath())
        .isEqualTo("/apis/apps/v1/namespaces/team-a/deployments/web");
    assertThat(ObjectRef.parse("po/web-0", null, REGISTRY).apiPath())
        .isEqualTo("/api/v1/namespaces/default/pods/web-0");
    assertThat(ObjectRef.parse("no/node-1", "x", REGISTRY).apiPath())
        .isEqualTo("/api/v1/nodes/node-1");
  }

  @Test
  void aClusterScopedKindIgnoresTheNamespace() {
    ObjectRef ref = ObjectRef.parse("no/node-1", "default", REGISTRY);

    assertThat(ref.key().toString()).isEqualTo("nodes.//node-1");
  }

  @Test
  void aGroupThatDoesNotServeTheResourceIsRejected() {
    assertThatThrownBy(() -> ObjectRef.parse("deployments.batch/web", null, REGISTRY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("doesn't have a resource type \"deployments.batch\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"web", "deploy/", "/web", "deploy/a/b", "widgets/web"})
  void malformedOrUnknownArgumentsAreRejected(String arg) {
    assertThatThrownBy(() -> ObjectRef.parse(arg, null, REGISTRY))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
