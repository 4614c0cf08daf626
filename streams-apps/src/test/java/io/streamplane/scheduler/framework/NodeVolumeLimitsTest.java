package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.info;
import static io.streamplane.scheduler.framework.Fixtures.node;
import static io.streamplane.scheduler.framework.VolumeBindingTest.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Pod;
import io.streamplane.scheduler.framework.VolumeBindingTest.Cluster;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** kube-scheduler's NodeVolumeLimits (CSILimits): distinct CSI volumes per driver and node. */
class NodeVolumeLimitsTest {

  private static final SchedulerConfig DEFAULTS = SchedulerConfig.defaults();
  private static final String DATA = "{'name':'d','persistentVolumeClaim':{'claimName':'data'}}";
  private static final String BOUND = ",'annotations':{'pv.kubernetes.io/bind-completed':'yes'}";

  /** A node whose pods use these volume keys, once each. */
  private static NodeInfo using(String name, String... keys) {
    NodeInfo node = info(node(name, "4", "8Gi", "110").build());
    for (String key : keys) {
      node = node.withPod(new PodRequests(Resources.ZERO, Resources.ZERO, Map.of(key, 1L)));
    }
    return node;
  }

  private static ScheduleResult schedule(Pod pod, Cluster cluster, NodeInfo... nodes) {
    return Scheduler.schedule(
        pod,
        List.of(nodes),
        null,
        List.of(),
        DEFAULTS,
        3,
        VolumeBinding.of(pod, cluster),
        NodeVolumeLimits.of(pod, cluster));
  }

  private static Cluster boundClaim() {
    return new Cluster()
        .claim("data", BOUND, ",'volumeName':'pv-a'")
        .volume("pv-a", "", "Bound")
        .csiNode("n1", "example.csi", 1)
        .csiNode("n2", "example.csi", 1);
  }

  @Test
  void exceedsCountsTheDistinctVolumesOfEachDriverInUseAndNew() {
    Map<String, Long> inUse = Map.of("d^ns/a", 2L, "other^ns/x", 1L);
    assertThat(NodeVolumeLimits.exceeds(inUse, Set.of("d^ns/b"), Map.of("d", 1))).isTrue();
    assertThat(NodeVolumeLimits.exceeds(inUse, Set.of("d^ns/b"), Map.of("d", 2))).isFalse();
    assertThat(NodeVolumeLimits.exceeds(inUse, Set.of("d^ns/b", "d^ns/c"), Map.of("d", 2)))
        .isTrue();
    // a volume the node's pods already use is not new, even at the limit
    assertThat(NodeVolumeLimits.exceeds(inUse, Set.of("d^ns/a"), Map.of("d", 1))).isFalse();
    // another driver's volumes, and a driver without a limit, do not count
    assertThat(NodeVolumeLimits.exceeds(inUse, Set.of("other^ns/y"), Map.of("d", 1))).isFalse();
    assertThat(NodeVolumeLimits.exceeds(Map.of(), Set.of("d^ns/a"), Map.of("d", 0))).isTrue();
  }

  @Test
  void aNodeAtItsDriversCountRejectsThePodWithKubeSchedulersReason() {
    ScheduleResult result =
        schedule(pod(DATA), boundClaim(), using("n1", "example.csi^default/other"));
    assertThat(result.scheduled()).isFalse();
    assertThat(result.failureMessage())
        .isEqualTo(
            "0/1 nodes are available: 1 node(s) exceed max volume count. preemption: 0/1 nodes"
                + " are available: 1 No preemption victims found for incoming pod.");

    // the other node has room: the pod goes there, and its requests carry its volume
    ScheduleResult placed =
        schedule(
            pod(DATA),
            boundClaim(),
            using("n1", "example.csi^default/other"),
            using("n2", "another.csi^default/x"));
    assertThat(placed.nodeName()).isEqualTo("n2");
    assertThat(placed.requests().volumes()).isEqualTo(Map.of("example.csi^default/data", 1L));
    assertThat(placed.requests().toMap()).containsEntry("volume:example.csi^default/data", 1L);
  }

  @Test
  void aVolumeAlreadyUsedOnTheNodeOrANodeWithoutCountIsNoObstacle() {
    assertThat(
            schedule(pod(DATA), boundClaim(), using("n1", "example.csi^default/data")).nodeName())
        .isEqualTo("n1");
    Cluster unlimited = boundClaim().csiNode("n1", "example.csi", null);
    assertThat(schedule(pod(DATA), unlimited, using("n1", "example.csi^default/other")).nodeName())
        .isEqualTo("n1");
    Cluster noCsiNode = boundClaim();
    noCsiNode.csiNodes.clear();
    assertThat(schedule(pod(DATA), noCsiNode, using("n1", "example.csi^default/other")).nodeName())
        .isEqualTo("n1");
  }

  @Test
  void unboundClaimsCountForTheirClasssProvisionerAndEphemeralVolumesForTheirClaim() {
    Cluster cluster =
        new Cluster()
            .storageClass("hostpath", "example.csi", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'hostpath'")
            .claim(
                "web-scratch",
                ",'ownerReferences':[{'apiVersion':'v1','kind':'Pod','name':'web',"
                    + "'uid':'uid-web','controller':true}]",
                ",'storageClassName':'hostpath'")
            .csiNode("n1", "example.csi", 2);
    Pod pod = pod(DATA + ",{'name':'scratch','ephemeral':{'volumeClaimTemplate':{'spec':{}}}}");
    NodeVolumeLimits limits = NodeVolumeLimits.of(pod, cluster);
    assertThat(limits.volumes())
        .isEqualTo(Map.of("example.csi^default/data", 1L, "example.csi^default/web-scratch", 1L));
    assertThat(limits.limitsOn("n1")).isEqualTo(Map.of("example.csi", 2));
    assertThat(schedule(pod, cluster, using("n1")).nodeName()).isEqualTo("n1");
    assertThat(schedule(pod, cluster, using("n1", "example.csi^default/old")).failureMessage())
        .startsWith("0/1 nodes are available: 1 node(s) exceed max volume count.");
  }

  @Test
  void claimsOfNoClassVolumesOfOtherSourcesAndInlineCsiVolumesAreNotCounted() {
    Cluster cluster =
        new Cluster()
            .claim("data", "", ",'storageClassName':''")
            .claim("local", BOUND, ",'volumeName':'pv-local'")
            .volume("pv-local", "", "Bound");
    cluster.volumes.get("pv-local").getSpec().setCsi(null);
    Pod pod =
        pod(
            DATA
                + ",{'name':'l','persistentVolumeClaim':{'claimName':'local'}}"
                + ",{'name':'i','csi':{'driver':'example.csi'}}");
    assertThat(NodeVolumeLimits.of(pod, cluster).volumes()).isEmpty();
    assertThat(NodeVolumeLimits.of(pod, cluster)).isSameAs(NodeVolumeLimits.none());
  }

  @Test
  void theNodesVolumesFollowItsPodsComingAndGoing() {
    PodRequests one = new PodRequests(Resources.ZERO, Resources.ZERO, Map.of("d^ns/a", 1L));
    NodeInfo node = using("n1").withPod(one).withPod(one);
    assertThat(node.volumes()).isEqualTo(Map.of("d^ns/a", 2L));
    assertThat(node.withoutPod(one).volumes()).isEqualTo(Map.of("d^ns/a", 1L));
    assertThat(node.withoutPod(one).withoutPod(one).volumes()).isEmpty();
    // through the ledger's map and back
    assertThat(PodRequests.fromMap(one.plus(one).toMap()).volumes())
        .isEqualTo(Map.of("d^ns/a", 2L));
  }
}
