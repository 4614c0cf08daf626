package io.streamplane.kinds.core;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PersistentVolume;
import io.streamplane.kinds.KindFixtures;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class PersistentVolumeStrategyTest {

  private final PersistentVolumeStrategy strategy = new PersistentVolumeStrategy();

  private static final String CSI =
      "'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],"
          + "'csi':{'driver':'example.csi','volumeHandle':'v1'}";

  private static String pv(String spec) {
    return "{'metadata':{'name':'pv1'},'spec':{" + spec + "}}";
  }

  private PersistentVolume created(String spec) {
    return KindFixtures.created(strategy, pv(spec), PersistentVolume.class);
  }

  @Test
  void defaultsToRetainAndFilesystemAndIsCreatedPending() {
    ObjectNode pv = json(pv(CSI));
    strategy.applyDefaults(pv, true);
    strategy.prepareForCreate(pv);

    assertThat(pv.at("/spec/persistentVolumeReclaimPolicy").asText()).isEqualTo("Retain");
    assertThat(pv.at("/spec/volumeMode").asText()).isEqualTo("Filesystem");
    assertThat(pv.at("/status/phase").asText()).isEqualTo("Pending");
    assertThat(pv.at("/status/lastPhaseTransitionTime").asText()).endsWith("Z");
  }

  @Test
  void aCsiVolumeWithCapacityAndAccessModesIsValid() {
    assertThat(strategy.validate(created(CSI))).isEmpty();
  }

  @Test
  void accessModesCapacityAndAVolumeTypeAreRequired() {
    assertThat(messages(strategy.validate(created("'storageClassName':'fast'"))))
        .containsExactly(
            "spec.accessModes: Required value",
            "spec.capacity: Required value",
            "spec.capacity: Unsupported value: map[]: supported values: \"storage\"",
            "spec: Required value: must specify a volume type");
  }

  @Test
  void exactlyOneVolumeSourceIsAllowed() {
    assertThat(messages(strategy.validate(created(CSI + ",'nfs':{'server':'s','path':'/x'}"))))
        .containsExactly("spec.csi: Forbidden: may not specify more than 1 volume type");
  }

  @Test
  void theCsiSourceNeedsADriverAndAVolumeHandle() {
    assertThat(
            messages(
                strategy.validate(
                    created(
                        "'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],"
                            + "'csi':{'nodePublishSecretRef':{'name':'s'}}"))))
        .containsExactly(
            "spec.csi.driver: Required value",
            "spec.csi.volumeHandle: Required value",
            "spec.csi.nodePublishSecretRef.namespace: Required value");
  }

  @Test
  void aLocalVolumeRequiresNodeAffinity() {
    String local = "'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],";
    assertThat(messages(strategy.validate(created(local + "'local':{'path':'/mnt/disk'}"))))
        .containsExactly("spec.nodeAffinity: Required value: Local volume requires node affinity");
    assertThat(
            strategy.validate(
                created(
                    local
                        + "'local':{'path':'/mnt/disk'},'nodeAffinity':{'required':"
                        + "{'nodeSelectorTerms':[{'matchExpressions':[{'key':'kubernetes.io/hostname',"
                        + "'operator':'In','values':['n1']}]}]}}")))
        .isEmpty();
  }

  @Test
  void modesPoliciesAndQuantitiesAreChecked() {
    assertThat(
            messages(
                strategy.validate(
                    created(
                        "'capacity':{'storage':'0'},'accessModes':['ReadWriteOncePod','ReadWriteOnce',"
                            + "'WriteSometimes'],'persistentVolumeReclaimPolicy':'Keep',"
                            + "'volumeMode':'Tape','csi':{'driver':'example.csi','volumeHandle':'v1'}"))))
        .containsExactly(
            "spec.accessModes: Unsupported value: \"WriteSometimes\": supported values:"
                + " \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
            "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
            "spec.capacity[storage]: Invalid value: 0: must be greater than zero",
            "spec.persistentVolumeReclaimPolicy: Unsupported value: \"Keep\": supported values:"
                + " \"Delete\", \"Recycle\", \"Retain\"",
            "spec.volumeMode: Unsupported value: \"Tape\": supported values: \"Block\","
                + " \"Filesystem\"");
  }

  @Test
  void theVolumeSourceAndModeAreImmutableButTheClaimRefIsNot() {
    PersistentVolume old = created(CSI + ",'volumeMode':'Filesystem'");
    assertThat(
            strategy.validateUpdate(
                created(
                    CSI
                        + ",'volumeMode':'Filesystem','claimRef':{'namespace':'default','name':'c'}"),
                old))
        .isEmpty();
    assertThat(
            messages(
                strategy.validateUpdate(
                    created(
                        "'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],"
                            + "'csi':{'driver':'example.csi','volumeHandle':'v2'},'volumeMode':'Block'"),
                    old)))
        .containsExactly(
            "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after"
                + " creation",
            "volumeMode: Invalid value: \"Block\": field is immutable");
  }

  @Test
  void printsAsKubectlGetPv() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "Capacity",
            "Access Modes",
            "Reclaim Policy",
            "Status",
            "Claim",
            "StorageClass",
            "VolumeAttributesClass",
            "Reason",
            "Age",
            "VolumeMode");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'pv1','creationTimestamp':'"
                    + KindFixtures.CREATED
                    + "'},'spec':{'capacity':{'storage':'5Gi'},'accessModes':['ReadWriteMany',"
                    + "'ReadWriteOnce'],'persistentVolumeReclaimPolicy':'Retain',"
                    + "'storageClassName':'fast','volumeMode':'Filesystem',"
                    + "'claimRef':{'namespace':'default','name':'data'}},"
                    + "'status':{'phase':'Bound'}}"))
        .containsExactly(
            "pv1",
            "5Gi",
            "RWO,RWX",
            "Retain",
            "Bound",
            "default/data",
            "fast",
            "<unset>",
            "",
            "60m",
            "Filesystem");
  }

  @Test
  void isServedAsPvClusterScopedWithStatus() {
    ResourceType type =
        ResourceRegistry.kubernetes().served("", "v1", "persistentvolumes").orElseThrow();
    assertThat(type.shortNames()).containsExactly("pv");
    assertThat(type.namespaced()).isFalse();
    assertThat(type.subresource("status")).isPresent();
  }
}
