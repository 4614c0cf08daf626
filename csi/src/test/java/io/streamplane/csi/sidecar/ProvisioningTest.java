package io.streamplane.csi.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.csi.Bytes;
import io.streamplane.csi.v1.CreateVolumeRequest;
import io.streamplane.csi.v1.Topology;
import io.streamplane.csi.v1.Volume;
import io.streamplane.csi.v1.VolumeCapability;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sidecars' decisions over claims, classes and volumes as the API serves them. */
class ProvisioningTest {

  private static final String DRIVER = "hostpath.csi.streamplane.io";
  private static final String KEY = "topology.hostpath.csi.streamplane.io/node";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  private static JsonNode claim(String annotations, String phase, String volumeName)
      throws Exception {
    return json(
        "{'metadata':{'name':'data','namespace':'default','uid':'u-1','resourceVersion':'7',"
            + "'annotations':{"
            + annotations
            + "}},'spec':{'accessModes':['ReadWriteOnce'],'storageClassName':'hostpath',"
            + "'volumeName':'"
            + volumeName
            + "','resources':{'requests':{'storage':'1Gi'}}},'status':{'phase':'"
            + phase
            + "'}}");
  }

  private static JsonNode waitingClass() throws Exception {
    return json(
        "{'metadata':{'name':'hostpath'},'provisioner':'"
            + DRIVER
            + "','reclaimPolicy':'Delete','volumeBindingMode':'WaitForFirstConsumer',"
            + "'parameters':{'kind':'fast','csi.storage.k8s.io/fstype':'ext4'}}");
  }

  @Test
  void aClaimIsProvisionedOnceAnnotatedForTheDriverAndItsNodeSelected() throws Exception {
    String forUs = "'volume.kubernetes.io/storage-provisioner':'" + DRIVER + "'";
    String selected = ",'volume.kubernetes.io/selected-node':'node-0'";
    JsonNode sc = waitingClass();
    assertThat(Provisioning.wantsVolume(claim(forUs + selected, "Pending", ""), sc, DRIVER))
        .isTrue();
    // WaitForFirstConsumer: not before the scheduler chose the node
    assertThat(Provisioning.wantsVolume(claim(forUs, "Pending", ""), sc, DRIVER)).isFalse();
    // another provisioner's, already bound, or bound ahead
    assertThat(
            Provisioning.wantsVolume(
                claim(
                    "'volume.kubernetes.io/storage-provisioner':'other'" + selected, "Pending", ""),
                sc,
                DRIVER))
        .isFalse();
    assertThat(Provisioning.wantsVolume(claim(forUs + selected, "Bound", "pv1"), sc, DRIVER))
        .isFalse();
    assertThat(Provisioning.wantsVolume(claim(forUs + selected, "Pending", "pv1"), sc, DRIVER))
        .isFalse();
    assertThat(Provisioning.forNode(claim(forUs + selected, "Pending", ""), "node-0", false))
        .isTrue();
    assertThat(Provisioning.forNode(claim(forUs + selected, "Pending", ""), "node-1", true))
        .isFalse();
    assertThat(Provisioning.forNode(claim(forUs, "Pending", ""), "node-1", true)).isTrue();
  }

  @Test
  void theRequestCarriesSizeParametersAndTheSelectedNodesTopology() throws Exception {
    JsonNode csiNode =
        json(
            "{'spec':{'drivers':[{'name':'"
                + DRIVER
                + "','nodeID':'node-0','topologyKeys':['"
                + KEY
                + "']}]}}");
    JsonNode node = json("{'metadata':{'labels':{'" + KEY + "':'node-0','other':'x'}}}");
    Map<String, String> topology = Provisioning.nodeTopology(csiNode, node, DRIVER);
    assertThat(topology).containsExactly(Map.entry(KEY, "node-0"));
    assertThat(Provisioning.nodeTopology(csiNode, node, "other.csi")).isEmpty();

    CreateVolumeRequest request =
        Provisioning.createVolume(claim("", "Pending", ""), waitingClass(), topology);
    assertThat(request.getName()).isEqualTo("pvc-u-1");
    assertThat(request.getCapacityRange().getRequiredBytes()).isEqualTo(1L << 30);
    assertThat(request.getParametersMap()).containsExactly(Map.entry("kind", "fast"));
    assertThat(request.getVolumeCapabilities(0).getMount().getFsType()).isEqualTo("ext4");
    assertThat(request.getVolumeCapabilities(0).getAccessMode().getMode())
        .isEqualTo(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER);
    assertThat(request.getAccessibilityRequirements().getRequisite(0).getSegmentsMap())
        .containsExactly(Map.entry(KEY, "node-0"));
  }

  @Test
  void theVolumeIsBoundAheadToItsClaimWithTheClassPolicyAndNodeAffinity() throws Exception {
    Volume volume =
        Volume.newBuilder()
            .setVolumeId("vol-1")
            .setCapacityBytes(1L << 30)
            .addAccessibleTopology(Topology.newBuilder().putSegments(KEY, "node-0"))
            .build();
    JsonNode pv =
        Provisioning.persistentVolume(claim("", "Pending", ""), waitingClass(), volume, DRIVER);
    assertThat(pv.path("metadata").path("name").asText()).isEqualTo("pvc-u-1");
    assertThat(pv.at("/metadata/annotations/pv.kubernetes.io~1provisioned-by").asText())
        .isEqualTo(DRIVER);
    assertThat(pv.at("/spec/capacity/storage").asText()).isEqualTo("1Gi");
    assertThat(pv.at("/spec/persistentVolumeReclaimPolicy").asText()).isEqualTo("Delete");
    assertThat(pv.at("/spec/storageClassName").asText()).isEqualTo("hostpath");
    assertThat(pv.at("/spec/claimRef/uid").asText()).isEqualTo("u-1");
    assertThat(pv.at("/spec/claimRef/name").asText()).isEqualTo("data");
    assertThat(pv.at("/spec/csi/volumeHandle").asText()).isEqualTo("vol-1");
    assertThat(pv.at("/spec/csi/fsType").asText()).isEqualTo("ext4");
    assertThat(Provisioning.onNode(pv, KEY, "node-0")).isTrue();
    assertThat(Provisioning.onNode(pv, KEY, "node-1")).isFalse();
  }

  @Test
  void onlyReleasedVolumesOfThisDriverWithReclaimDeleteAreDeleted() throws Exception {
    String pv =
        "{'metadata':{'name':'pvc-u-1','annotations':{'pv.kubernetes.io/provisioned-by':'"
            + DRIVER
            + "'}},'spec':{'persistentVolumeReclaimPolicy':'%s','csi':{'driver':'"
            + DRIVER
            + "','volumeHandle':'vol-1'}},'status':{'phase':'%s'}}";
    assertThat(Provisioning.toDelete(json(pv.formatted("Delete", "Released")), DRIVER))
        .contains("vol-1");
    assertThat(Provisioning.toDelete(json(pv.formatted("Retain", "Released")), DRIVER)).isEmpty();
    assertThat(Provisioning.toDelete(json(pv.formatted("Delete", "Bound")), DRIVER)).isEmpty();
    assertThat(Provisioning.toDelete(json(pv.formatted("Delete", "Released")), "other")).isEmpty();
  }

  @Test
  void aGrownRequestIsExpandedThenTheNodeFinishes() throws Exception {
    JsonNode pv =
        json(
            "{'metadata':{'name':'pvc-u-1'},'spec':{'capacity':{'storage':'1Gi'},"
                + "'csi':{'driver':'"
                + DRIVER
                + "','volumeHandle':'vol-1'}}}");
    JsonNode bound = claim("", "Bound", "pvc-u-1");
    assertThat(Provisioning.toExpand(bound, pv, DRIVER)).isEmpty(); // 1Gi asked, 1Gi had
    ((com.fasterxml.jackson.databind.node.ObjectNode) bound.at("/spec/resources/requests"))
        .put("storage", "2Gi");
    assertThat(
            Provisioning.toExpand(bound, pv, DRIVER)
                .orElseThrow()
                .getCapacityRange()
                .getRequiredBytes())
        .isEqualTo(2L << 30);
    assertThat(Provisioning.toExpand(bound, pv, "other")).isEmpty();
    assertThat(Provisioning.expandedVolume(2L << 30).at("/spec/capacity/storage").asText())
        .isEqualTo("2Gi");
    JsonNode status =
        Provisioning.expandedClaim(bound, 2L << 30, true, "2026-01-01T00:00:00Z").path("status");
    assertThat(status.at("/allocatedResources/storage").asText()).isEqualTo("2Gi");
    assertThat(status.at("/conditions/0/type").asText()).isEqualTo("FileSystemResizePending");
    assertThat(status.has("capacity")).isFalse(); // the node writes it once it expanded
    assertThat(
            Provisioning.expandedClaim(bound, 2L << 30, false, "t")
                .at("/status/capacity/storage")
                .asText())
        .isEqualTo("2Gi");
  }

  @Test
  void quantitiesOfBytes() {
    assertThat(Bytes.parse("1Gi")).isEqualTo(1L << 30);
    assertThat(Bytes.parse("1.5Gi")).isEqualTo(3L << 29);
    assertThat(Bytes.parse("500M")).isEqualTo(500_000_000L);
    assertThat(Bytes.parse("10")).isEqualTo(10);
    assertThat(Bytes.format(1L << 30)).isEqualTo("1Gi");
    assertThat(Bytes.format(1536L << 20)).isEqualTo("1536Mi");
    assertThat(Bytes.format(1000)).isEqualTo("1000");
  }
}
