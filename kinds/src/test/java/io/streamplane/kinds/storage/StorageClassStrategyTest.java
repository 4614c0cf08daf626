package io.streamplane.kinds.storage;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.StorageClass;
import org.junit.jupiter.api.Test;

class StorageClassStrategyTest {

  private final StorageClassStrategy strategy = new StorageClassStrategy();

  private StorageClass sc(String fields) {
    return created(strategy, "{'metadata':{'name':'fast'}" + fields + "}", StorageClass.class);
  }

  @Test
  void reclaimPolicyAndBindingModeHaveDefaultsAndAProvisionerIsRequired() {
    StorageClass sc = sc(",'provisioner':'csi.example.com'");

    assertThat(sc.getReclaimPolicy()).isEqualTo("Delete");
    assertThat(sc.getVolumeBindingMode()).isEqualTo("Immediate");
    assertThat(strategy.validate(sc)).isEmpty();
    assertThat(messages(strategy.validate(sc("")))).containsExactly("provisioner: Required value");
  }

  @Test
  void provisionerParametersReclaimPolicyAndBindingModeAreImmutable() {
    StorageClass old = sc(",'provisioner':'a.example.com','parameters':{'type':'ssd'}");

    assertThat(
            strategy.validateUpdate(
                sc(
                    ",'provisioner':'a.example.com','parameters':{'type':'ssd'},"
                        + "'allowVolumeExpansion':true"),
                old))
        .isEmpty();
    assertThat(
            messages(
                strategy.validateUpdate(
                    sc(
                        ",'provisioner':'b.example.com','parameters':{'type':'hdd'},"
                            + "'reclaimPolicy':'Retain','volumeBindingMode':'WaitForFirstConsumer'"),
                    old)))
        .containsExactly(
            "parameters: Forbidden: updates to parameters are forbidden.",
            "provisioner: Forbidden: updates to provisioner are forbidden.",
            "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
            "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable");
  }

  @Test
  void printsTheDefaultClassWithAMark() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "Provisioner",
            "ReclaimPolicy",
            "VolumeBindingMode",
            "AllowVolumeExpansion",
            "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'fast','annotations':"
                    + "{'storageclass.kubernetes.io/is-default-class':'true'}},"
                    + "'provisioner':'csi.example.com','allowVolumeExpansion':true}"))
        .containsExactly("fast (default)", "csi.example.com", "Delete", "Immediate", true, "60m");
  }
}
