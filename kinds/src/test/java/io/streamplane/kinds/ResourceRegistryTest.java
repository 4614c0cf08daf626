package io.streamplane.kinds;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Deployment;
import io.streamplane.api.Pod;
import io.streamplane.kinds.apps.DeploymentStrategy;
import io.streamplane.kinds.core.PodStrategy;
import io.streamplane.schema.objects.KindObjects;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class ResourceRegistryTest {

  private final ResourceRegistry kinds = ResourceRegistry.kubernetes();

  @Test
  void everyKindTheLogCarriesHasExactlyOneRow() {
    for (Schema kind : KindObjects.kinds()) {
      assertThat(kinds.all().stream().filter(t -> t.stored() && !t.isView()))
          .as(kind.getFullName())
          .filteredOn(t -> t.avroClass().getName().equals(kind.getFullName()))
          .hasSize(1);
    }
    assertThat(kinds.all().stream().filter(t -> t.stored() && !t.isView()).count())
        .isEqualTo(KindObjects.kinds().size());
  }

  @Test
  void aRowCarriesItsKindsStrategyAndLookupsFindIt() {
    assertThat(kinds.byClass(Pod.class).orElseThrow().strategy()).isInstanceOf(PodStrategy.class);
    assertThat(kinds.byResource("apps", "deployments").orElseThrow().strategy())
        .isInstanceOf(DeploymentStrategy.class);
    assertThat(kinds.byClass(Deployment.class).orElseThrow().strategy().keepsGeneration()).isTrue();
    assertThat(kinds.byResource("", "configmaps").orElseThrow().strategy().keepsGeneration())
        .isFalse();
  }

  @Test
  void kindsWithoutBehaviourOfTheirOwnPrintTheDefaultTable() {
    assertThat(
            kinds
                .byResource("rbac.authorization.k8s.io", "clusterroles")
                .orElseThrow()
                .strategy()
                .printer())
        .isSameAs(io.streamplane.kinds.printers.Printer.CREATED_AT);
  }
}
