package io.streamplane.gateway.patch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PatchSchemaTest {

  @Test
  void deploymentTemplateContainersMergeByNameAndTheirPortsByContainerPort() {
    PatchSchema deployment = PatchSchema.forKind("apps/v1", "Deployment").orElseThrow();

    PatchSchema.Field containers =
        deployment
            .field("spec")
            .schema()
            .field("template")
            .schema()
            .field("spec")
            .schema()
            .field("containers");

    assertThat(containers.merge()).isTrue();
    assertThat(containers.mergeKey()).isEqualTo("name");
    assertThat(containers.schema().field("ports").mergeKey()).isEqualTo("containerPort");
    assertThat(containers.schema().field("volumeMounts").mergeKey()).isEqualTo("mountPath");
    assertThat(deployment.field("spec").schema().field("strategy").retainKeys()).isTrue();
  }

  @Test
  void selectorsAndValueReferencesAreAtomicStructs() {
    PatchSchema spec =
        PatchSchema.forKind("apps/v1", "Deployment").orElseThrow().field("spec").schema();
    PatchSchema container =
        spec.field("template").schema().field("spec").schema().field("containers").schema();

    assertThat(spec.atomicStruct("selector")).isTrue();
    assertThat(spec.atomicStruct("template")).isFalse();
    assertThat(
            container
                .field("env")
                .schema()
                .field("valueFrom")
                .schema()
                .atomicStruct("secretKeyRef"))
        .isTrue();
  }

  @Test
  void nodeTaintsAreReplacedAndPodCidrsMergedAsASet() {
    PatchSchema nodeSpec = PatchSchema.forKind("v1", "Node").orElseThrow().field("spec").schema();

    assertThat(nodeSpec.field("taints").merge()).isFalse();
    assertThat(nodeSpec.field("podCIDRs").merge()).isTrue();
    assertThat(nodeSpec.field("podCIDRs").mergeKey()).isEmpty();
  }

  @Test
  void everyServedKindHasObjectMetaMetadata() {
    for (String[] kind :
        new String[][] {
          {"v1", "Pod"},
          {"v1", "Namespace"},
          {"v1", "Node"},
          {"v1", "ConfigMap"},
          {"v1", "Secret"},
          {"v1", "ServiceAccount"},
          {"v1", "Event"},
          {"coordination.k8s.io/v1", "Lease"},
          {"rbac.authorization.k8s.io/v1", "Role"},
          {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
          {"v1", "ResourceQuota"},
          {"v1", "LimitRange"},
          {"apps/v1", "Deployment"},
          {"apps/v1", "ReplicaSet"}
        }) {
      PatchSchema.Field ownerReferences =
          PatchSchema.forKind(kind[0], kind[1])
              .orElseThrow()
              .field("metadata")
              .schema()
              .field("ownerReferences");
      assertThat(ownerReferences.mergeKey()).as(kind[1]).isEqualTo("uid");
    }
  }

  @Test
  void aKindStreamplaneDoesNotServeHasNoSchema() {
    assertThat(PatchSchema.forKind("autoscaling/v2beta2", "HorizontalPodAutoscaler")).isEmpty();
    assertThat(PatchSchema.forKind("example.com/v1", "Widget")).isEmpty();
  }

  @Test
  void aFieldWithoutTagsIsPlain() {
    PatchSchema.Field field = PatchSchema.EMPTY.field("anything");

    assertThat(field.merge()).isFalse();
    assertThat(field.retainKeys()).isFalse();
    assertThat(field.schema()).isSameAs(PatchSchema.EMPTY);
  }
}
