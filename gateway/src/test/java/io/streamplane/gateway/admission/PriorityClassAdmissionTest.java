package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.ADMIN;
import static io.streamplane.gateway.admission.Cluster.REGISTRY;
import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThat;
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

  private static final ResourceType PODS = REGISTRY.byResource("", "pods").orElseThrow();

  private static ObjectNode admitPod(PriorityClassAdmission plugin, String spec) {
    ObjectNode pod = json("{'metadata':{'name':'x','namespace':'default'},'spec':" + spec + "}");
    plugin.admit(
        new AdmissionRequest(Operation.CREATE, PODS, "", "default", "x", pod, null, ADMIN, false));
    return pod;
  }

  private static final PriorityClassAdmission NO_DEFAULT =
      new PriorityClassAdmission(
          new Cluster()
              .with(
                  "scheduling.k8s.io/priorityclasses",
                  "{'metadata':{'name':'high'},'value':1000,'preemptionPolicy':'PreemptLowerPriority'}")
              .with(
                  "scheduling.k8s.io/priorityclasses",
                  "{'metadata':{'name':'polite'},'value':500,'preemptionPolicy':'Never'}"));

  @Test
  void aPodGetsThePriorityAndPolicyOfItsClass() {
    ObjectNode pod = admitPod(NO_DEFAULT, "{'priorityClassName':'polite'}");
    assertThat(pod.path("spec").path("priority").asInt()).isEqualTo(500);
    assertThat(pod.path("spec").path("preemptionPolicy").asText()).isEqualTo("Never");
    pod = admitPod(NO_DEFAULT, "{'priorityClassName':'high','priority':1000}");
    assertThat(pod.path("spec").path("priority").asInt()).isEqualTo(1000);
  }

  @Test
  void aPodWithoutAClassGetsZeroOrTheGlobalDefault() {
    ObjectNode plain = admitPod(NO_DEFAULT, "{}");
    assertThat(plain.path("spec").path("priority").asInt(-1)).isZero();
    assertThat(plain.path("spec").path("preemptionPolicy").asText())
        .isEqualTo("PreemptLowerPriority");
    assertThat(plain.path("spec").has("priorityClassName")).isFalse();
    ObjectNode defaulted = admitPod(plugin, "{}");
    assertThat(defaulted.path("spec").path("priorityClassName").asText()).isEqualTo("default-one");
    assertThat(defaulted.path("spec").path("priority").asInt()).isEqualTo(10);
  }

  @Test
  void anUnknownClassOrAMismatchedPriorityIsForbidden() {
    assertThatThrownBy(() -> admitPod(NO_DEFAULT, "{'priorityClassName':'ghost'}"))
        .isInstanceOf(ApiException.class)
        .hasMessage("pods \"x\" is forbidden: no PriorityClass with name ghost was found");
    assertThatThrownBy(() -> admitPod(NO_DEFAULT, "{'priorityClassName':'high','priority':7}"))
        .isInstanceOf(ApiException.class)
        .hasMessage(
            "pods \"x\" is forbidden: the integer value of priority (7) must not be provided in"
                + " pod spec; priority admission controller computed 1000 from the given"
                + " PriorityClass name");
    assertThatThrownBy(() -> admitPod(plugin, "{'priority':0}"))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("computed 10 from the given PriorityClass name");
    assertThatThrownBy(
            () ->
                admitPod(
                    NO_DEFAULT,
                    "{'priorityClassName':'polite','preemptionPolicy':'PreemptLowerPriority'}"))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining(
            "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in"
                + " pod spec; priority admission controller computed Never");
  }

  @Test
  void anUpdateKeepsTheStoredPriority() {
    ObjectNode old =
        json("{'metadata':{'name':'x'},'spec':{'priority':1000,'preemptionPolicy':'Never'}}");
    ObjectNode pod = json("{'metadata':{'name':'x'},'spec':{}}");
    NO_DEFAULT.admit(
        new AdmissionRequest(Operation.UPDATE, PODS, "", "default", "x", pod, old, ADMIN, false));
    assertThat(pod.path("spec").path("priority").asInt()).isEqualTo(1000);
    assertThat(pod.path("spec").path("preemptionPolicy").asText()).isEqualTo("Never");
  }
}
