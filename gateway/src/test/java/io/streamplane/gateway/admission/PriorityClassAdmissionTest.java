package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.ADMIN;
import static io.streamplane.gateway.admission.Cluster.REGISTRY;
import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class PriorityClassAdmissionTest {

  private static final ResourceType PRIORITY_CLASSES =
      REGISTRY.byResource("scheduling.k8s.io", "priorityclasses").orElseThrow();

  private final PriorityClassAdmission plugin =
      new PriorityClassAdmission(
          new Cluster()
              .with(
                  "scheduling.k8s.io/priorityclasses",
                  "{'metadata':{'name':'default-one'},'value':10,'globalDefault':true}"));

  private static AdmissionRequest request(Operation operation, String name, String object) {
    ObjectNode body = object == null ? null : json(object);
    return new AdmissionRequest(
        operation, PRIORITY_CLASSES, "", null, name, body, null, ADMIN, false);
  }

  @Test
  void aSecondGlobalDefaultIsForbiddenNamingTheFirst() {
    assertThatThrownBy(
            () ->
                plugin.validate(
                    request(
                        Operation.CREATE,
                        "other",
                        "{'metadata':{'name':'other'},'value':1,'globalDefault':true}")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining(
            "PriorityClass default-one is marked as default. Only one default can exist");
    assertThatCode(
            () ->
                plugin.validate(
                    request(
                        Operation.UPDATE,
                        "default-one",
                        "{'metadata':{'name':'default-one'},'value':10,'globalDefault':true}")))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                plugin.validate(
                    request(Operation.CREATE, "plain", "{'metadata':{'name':'plain'},'value':1}")))
        .doesNotThrowAnyException();
  }

  @Test
  void theSystemClassesCannotBeDeleted() {
    assertThatThrownBy(
            () -> plugin.validate(request(Operation.DELETE, "system-node-critical", null)))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("this is a system priority class and cannot be deleted");
    assertThatCode(() -> plugin.validate(request(Operation.DELETE, "default-one", null)))
        .doesNotThrowAnyException();
  }
}
