package io.streamplane.kinds.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ClusterRole;
import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.log.StatusCause;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The store's checks, through each kind's strategy in the table of kinds. */
class ObjectValidationTest {

  private static final ResourceRegistry KINDS = ResourceRegistry.kubernetes();

  private static List<StatusCause> validate(SpecificRecord object, boolean namespaced) {
    return ObjectValidation.validate(
        KINDS.byClass(object.getClass()).orElseThrow().strategy(), object, null, namespaced);
  }

  private static List<String> messages(SpecificRecord object, boolean namespaced) {
    return validate(object, namespaced).stream().map(StatusCause::getMessage).toList();
  }

  @Test
  void rbacObjectsMayBeNamedWithColonsButNotWithSlashes() {
    assertThat(validate(clusterRole("system:controller:job-controller"), false)).isEmpty();
    assertThat(messages(clusterRole("a/b"), false))
        .containsExactly("Invalid value: \"a/b\": may not contain '/'");
    assertThat(messages(clusterRole(".."), false))
        .containsExactly("Invalid value: \"..\": may not be '..'");
    ConfigMap configMap =
        ConfigMap.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder().setName("system:x").setNamespace("default").build())
            .build();
    assertThat(validate(configMap, true)).hasSize(1);
  }

  @Test
  void namespacesAreNamedAsLabelsSoADotIsInvalid() {
    Namespace namespace =
        Namespace.newBuilder().setMetadata(ObjectMeta.newBuilder().setName("a.b").build()).build();

    assertThat(validate(namespace, false))
        .extracting(StatusCause::getField)
        .containsExactly("metadata.name");
  }

  @Test
  void aPodNeedsContainersWithUniqueNamesAndImages() {
    Container web = Container.newBuilder().setName("web").setImage("nginx").build();
    Pod pod =
        Pod.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName("p").setNamespace("default").build())
            .setSpec(
                PodSpec.newBuilder()
                    .setContainers(List.of(web, Container.newBuilder().setName("web").build()))
                    .build())
            .build();

    assertThat(validate(pod, true))
        .extracting(StatusCause::getField, StatusCause::getMessage)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "spec.containers[1].name", "Duplicate value: \"web\""),
            org.assertj.core.groups.Tuple.tuple("spec.containers[1].image", "Required value"));
  }

  @Test
  void aDeploymentsSelectorMustSelectItsTemplate() {
    Deployment deployment =
        Deployment.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName("d").setNamespace("default").build())
            .setSpec(
                DeploymentSpec.newBuilder()
                    .setSelector(
                        LabelSelector.newBuilder().setMatchLabels(Map.of("app", "a")).build())
                    .setTemplate(
                        PodTemplateSpec.newBuilder()
                            .setMetadata(
                                ObjectMeta.newBuilder().setLabels(Map.of("app", "b")).build())
                            .setSpec(
                                PodSpec.newBuilder()
                                    .setContainers(
                                        List.of(
                                            Container.newBuilder()
                                                .setName("c")
                                                .setImage("i")
                                                .build()))
                                    .build())
                            .build())
                    .build())
            .build();

    assertThat(messages(deployment, true))
        .containsExactly(
            "Invalid value: map[string]string{\"app\":\"b\"}: `selector` does not match template"
                + " `labels`");
  }

  private static ClusterRole clusterRole(String name) {
    return ClusterRole.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).build())
        .build();
  }
}
