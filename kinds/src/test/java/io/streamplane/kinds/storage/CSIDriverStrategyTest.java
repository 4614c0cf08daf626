package io.streamplane.kinds.storage;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.CSIDriver;
import org.junit.jupiter.api.Test;

class CSIDriverStrategyTest {

  private final CSIDriverStrategy strategy = new CSIDriverStrategy();

  private CSIDriver driver(String spec) {
    return created(
        strategy, "{'metadata':{'name':'csi.example.com'},'spec':" + spec + "}", CSIDriver.class);
  }

  @Test
  void defaultsAreKubernetesOwn() {
    var spec = driver("{}").getSpec();

    assertThat(spec.getAttachRequired()).isTrue();
    assertThat(spec.getPodInfoOnMount()).isFalse();
    assertThat(spec.getStorageCapacity()).isFalse();
    assertThat(spec.getRequiresRepublish()).isFalse();
    assertThat(spec.getFsGroupPolicy()).isEqualTo("ReadWriteOnceWithFSType");
    assertThat(spec.getVolumeLifecycleModes()).containsExactly("Persistent");
    assertThat(strategy.validate(driver("{}"))).isEmpty();
  }

  @Test
  void lifecycleModesAndFsGroupPoliciesAreKnownOnes() {
    assertThat(
            messages(
                strategy.validate(
                    driver("{'volumeLifecycleModes':['Forever'],'fsGroupPolicy':'Some'}"))))
        .containsExactly(
            "spec.fsGroupPolicy: Unsupported value: \"Some\": supported values: \"File\","
                + " \"None\", \"ReadWriteOnceWithFSType\"",
            "spec.volumeLifecycleModes[0]: Unsupported value: \"Forever\": supported values:"
                + " \"Persistent\", \"Ephemeral\"");
  }

  @Test
  void whatARunningDriverDependsOnIsImmutable() {
    assertThat(
            messages(
                strategy.validateUpdate(
                    driver("{'attachRequired':false,'storageCapacity':true}"), driver("{}"))))
        .containsExactly("spec.attachRequired: Invalid value: false: field is immutable");
  }

  @Test
  void printsKubectlsCsiDriverColumns() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "AttachRequired",
            "PodInfoOnMount",
            "StorageCapacity",
            "TokenRequests",
            "RequiresRepublish",
            "Modes",
            "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'d'},'spec':{'attachRequired':false,'tokenRequests':"
                    + "[{'audience':'vault'},{'audience':'gcp'}],'volumeLifecycleModes':"
                    + "['Persistent','Ephemeral']}}"))
        .containsExactly(
            "d", false, false, false, "vault,gcp", false, "Persistent,Ephemeral", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'d'},'spec':{}}"))
        .containsExactly("d", true, false, false, "<unset>", false, "<none>", "60m");
  }
}
