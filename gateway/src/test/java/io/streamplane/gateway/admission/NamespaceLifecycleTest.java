package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

/** {@link NamespaceLifecycle}: no content in missing or terminating namespaces, immortal ones. */
class NamespaceLifecycleTest {

  private static final ResourceType NAMESPACES =
      Cluster.REGISTRY.byResource("", "namespaces").orElseThrow();

  private final Cluster cluster =
      new Cluster()
          .with("namespaces", "{'metadata':{'name':'live'},'status':{'phase':'Active'}}")
          .with(
              "namespaces",
              "{'metadata':{'name':'going','deletionTimestamp':'2026-01-01T00:00:00Z'},"
                  + "'status':{'phase':'Terminating'}}");
  private final NamespaceLifecycle plugin = new NamespaceLifecycle(cluster);

  @Test
  void createInAMissingNamespaceIsNotFoundForTheNamespace() {
    ApiException e =
        catchThrowableOfType(
            () -> plugin.admit(Cluster.createPod("nope", "{'metadata':{'name':'p'}}")),
            ApiException.class);

    assertThat(e.code()).isEqualTo(404);
    assertThat(e.status().path("message").asText()).isEqualTo("namespaces \"nope\" not found");
  }

  @Test
  void createInATerminatingNamespaceIsForbidden() {
    ApiException e =
        catchThrowableOfType(
            () -> plugin.admit(Cluster.createPod("going", "{'metadata':{'name':'p'}}")),
            ApiException.class);

    assertThat(e.code()).isEqualTo(403);
    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"p\" is forbidden: unable to create new content in namespace going because it"
                + " is being terminated");
  }

  @Test
  void createInAnActiveNamespacePasses() {
    assertThatCode(() -> plugin.admit(Cluster.createPod("live", "{'metadata':{'name':'p'}}")))
        .doesNotThrowAnyException();
  }

  @Test
  void theImmortalNamespacesCannotBeDeletedOthersCan() {
    ApiException e =
        catchThrowableOfType(() -> plugin.admit(delete("kube-system")), ApiException.class);

    assertThat(e.code()).isEqualTo(403);
    assertThat(e.status().path("message").asText())
        .isEqualTo("namespaces \"kube-system\" is forbidden: this namespace may not be deleted");
    assertThatCode(() -> plugin.admit(delete("live"))).doesNotThrowAnyException();
  }

  private static AdmissionRequest delete(String name) {
    return new AdmissionRequest(
        Operation.DELETE,
        NAMESPACES,
        "",
        null,
        name,
        null,
        json("{'metadata':{'name':'" + name + "'}}"),
        Cluster.ADMIN,
        false);
  }
}
