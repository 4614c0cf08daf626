package io.streamplane.scheduler.framework;

import static io.streamplane.controller.volume.VolumeFixtures.avro;
import static io.streamplane.scheduler.framework.Fixtures.info;
import static io.streamplane.scheduler.framework.Fixtures.node;
import static io.streamplane.scheduler.framework.Fixtures.withLabels;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.CSINode;
import io.streamplane.api.CSIStorageCapacity;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.StorageClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** kube-scheduler's VolumeBinding: PreFilter messages, node filtering, PreBind writes. */
class VolumeBindingTest {

  private static final SchedulerConfig DEFAULTS = SchedulerConfig.defaults();

  static final class Cluster implements VolumeBinding.Objects {
    final Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    final Map<String, PersistentVolume> volumes = new HashMap<>();
    final Map<String, StorageClass> classes = new HashMap<>();
    final Map<String, CSIDriver> drivers = new HashMap<>();
    final List<CSIStorageCapacity> capacities = new ArrayList<>();
    final Map<String, CSINode> csiNodes = new HashMap<>();

    /** The node's CSINode with one driver of that allocatable count (null: none). */
    Cluster csiNode(String node, String driver, Integer count) {
      csiNodes.put(
          node,
          avro(
              "{'metadata':{'name':'"
                  + node
                  + "'},'spec':{'drivers':[{'name':'"
                  + driver
                  + "','nodeID':'"
                  + node
                  + "'"
                  + (count == null ? "" : ",'allocatable':{'count':" + count + "}")
                  + "}]}}",
              CSINode.class));
      return this;
    }

    @Override
    public CSINode csiNode(String name) {
      return csiNodes.get(name);
    }

    Cluster driver(String name, boolean storageCapacity) {
      drivers.put(
          name,
          avro(
              "{'metadata':{'name':'"
                  + name
                  + "'},'spec':{'storageCapacity':"
                  + storageCapacity
                  + "}}",
              CSIDriver.class));
      return this;
    }

    Cluster capacity(String zone, String storageClass, String capacity) {
      capacities.add(
          avro(
              "{'metadata':{'name':'csisc-"
                  + zone
                  + "','namespace':'kube-system'},'storageClassName':'"
                  + storageClass
                  + "','nodeTopology':{'matchLabels':{'zone':'"
                  + zone
                  + "'}},'capacity':'"
                  + capacity
                  + "'}",
              CSIStorageCapacity.class));
      return this;
    }

    @Override
    public CSIDriver csiDriver(String name) {
      return drivers.get(name);
    }

    @Override
    public List<CSIStorageCapacity> storageCapacities() {
      return capacities;
    }

    Cluster claim(String name, String meta, String spec) {
      claims.put(
          name,
          avro(
              "{'metadata':{'name':'"
                  + name
                  + "','namespace':'default','uid':'uid-"
                  + name
                  + "','resourceVersion':'4'"
                  + meta
                  + "},'spec':{'accessModes':['ReadWriteOnce'],"
                  + "'resources':{'requests':{'storage':'1Gi'}}"
                  + spec
                  + "},'status':{'phase':'Pending'}}",
              PersistentVolumeClaim.class));
      return this;
    }

    Cluster volume(String name, String spec, String phase) {
      volumes.put(
          name,
          avro(
              "{'metadata':{'name':'"
                  + name
                  + "','resourceVersion':'2'},'spec':{'capacity':{'storage':'5Gi'},"
                  + "'accessModes':['ReadWriteOnce'],'csi':{'driver':'example.csi',"
                  + "'volumeHandle':'h'}"
                  + spec
                  + "},'status':{'phase':'"
                  + phase
                  + "'}}",
              PersistentVolume.class));
      return this;
    }

    Cluster storageClass(String name, String provisioner, String mode) {
      classes.put(
          name,
          avro(
              "{'metadata':{'name':'"
                  + name
                  + "'},'provisioner':'"
                  + provisioner
                  + "','volumeBindingMode':'"
                  + mode
                  + "'}",
              StorageClass.class));
      return this;
    }

    @Override
    public PersistentVolumeClaim claim(String namespace, String name) {
      return claims.get(name);
    }

    @Override
    public PersistentVolume volume(String name) {
      return volumes.get(name);
    }

    @Override
    public StorageClass storageClass(String name) {
      return classes.get(name);
    }

    @Override
    public List<PersistentVolume> volumes() {
      return new ArrayList<>(volumes.values());
    }
  }

  static Pod pod(String volumes) {
    return avro(
        "{'metadata':{'name':'web','namespace':'default','uid':'uid-web'},'spec':{"
            + "'containers':[{'name':'c','image':'i'}],'volumes':["
            + volumes
            + "]}}",
        Pod.class);
  }

  private static final String DATA = "{'name':'d','persistentVolumeClaim':{'claimName':'data'}}";

  private static final String ZONE_A =
      ",'nodeAffinity':{'required':{'nodeSelectorTerms':[{'matchExpressions':"
          + "[{'key':'zone','operator':'In','values':['a']}]}]}}";

  private static List<NodeInfo> nodes() {
    return List.of(
        info(withLabels(node("n1", "4", "8Gi", "110"), Map.of("zone", "a"))),
        info(withLabels(node("n2", "4", "8Gi", "110"), Map.of("zone", "b"))));
  }

  private static ScheduleResult schedule(Pod pod, Cluster cluster) {
    return Scheduler.schedule(
        pod, nodes(), null, List.of(), DEFAULTS, 3, VolumeBinding.of(pod, cluster));
  }

  @Test
  void aMissingClaimOrAnUnboundImmediateOneKeepsThePodPendingWithKubeSchedulersMessage() {
    assertThat(schedule(pod(DATA), new Cluster()).failureMessage())
        .isEqualTo(
            "0/2 nodes are available: persistentvolumeclaim \"data\" not found. preemption: 0/2"
                + " nodes are available: 2 Preemption is not helpful for scheduling.");
    Cluster immediate =
        new Cluster()
            .storageClass("fast", "example.csi", "Immediate")
            .claim("data", "", ",'storageClassName':'fast'");
    assertThat(schedule(pod(DATA), immediate).failureMessage())
        .isEqualTo(
            "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."
                + " preemption: 0/2 nodes are available: 2 Preemption is not helpful for"
                + " scheduling.");
    assertThat(
            schedule(
                    pod("{'name':'scratch','ephemeral':{'volumeClaimTemplate':{'spec':{}}}}"),
                    new Cluster())
                .failureMessage())
        .startsWith(
            "0/2 nodes are available: waiting for ephemeral volume controller to create the"
                + " persistentvolumeclaim \"web-scratch\".");
  }

  @Test
  void aBoundClaimsVolumeNodeAffinityRestrictsTheNodes() {
    Cluster cluster =
        new Cluster()
            .claim(
                "data",
                ",'annotations':{'pv.kubernetes.io/bind-completed':'yes'}",
                ",'volumeName':'pv-a'")
            .volume("pv-a", ZONE_A, "Bound");
    for (long seed = 0; seed < 5; seed++) {
      Pod pod = pod(DATA);
      assertThat(
              Scheduler.schedule(
                      pod, nodes(), null, List.of(), DEFAULTS, seed, VolumeBinding.of(pod, cluster))
                  .nodeName())
          .isEqualTo("n1");
    }
    Cluster elsewhere =
        new Cluster()
            .claim(
                "data",
                ",'annotations':{'pv.kubernetes.io/bind-completed':'yes'}",
                ",'volumeName':'pv-c'")
            .volume("pv-c", ZONE_A.replace("'a'", "'c'"), "Bound");
    assertThat(schedule(pod(DATA), elsewhere).failureMessage())
        .isEqualTo(
            "0/2 nodes are available: 2 node(s) had volume node affinity conflict. preemption:"
                + " 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  }

  @Test
  void aWaitForFirstConsumerClaimIsPlacedAndAnnotatedWithTheNode() {
    Cluster cluster =
        new Cluster()
            .storageClass("late", "example.csi", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'late'");
    Pod pod = pod(DATA);
    VolumeBinding volumes = VolumeBinding.of(pod, cluster);
    ScheduleResult result = Scheduler.schedule(pod, nodes(), null, List.of(), DEFAULTS, 3, volumes);
    assertThat(result.scheduled()).isTrue();
    NodeInfo chosen =
        nodes().stream().filter(n -> n.name().equals(result.nodeName())).findFirst().orElseThrow();
    VolumeBinding.Bindings bindings = volumes.bindings(chosen.node());
    assertThat(bindings.volumes()).isEmpty();
    assertThat(bindings.claims())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getMetadata().getAnnotations())
                  .containsEntry("volume.kubernetes.io/selected-node", result.nodeName());
              assertThat(c.getMetadata().getResourceVersion()).isEqualTo("4");
            });
  }

  @Test
  void aWaitForFirstConsumerClaimOfNoProvisionerBindsALocalVolumeOnItsNode() {
    Cluster cluster =
        new Cluster()
            .storageClass("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'local'")
            .volume("local-a", ",'storageClassName':'local'" + ZONE_A, "Available");
    Pod pod = pod(DATA);
    VolumeBinding volumes = VolumeBinding.of(pod, cluster);
    ScheduleResult result = Scheduler.schedule(pod, nodes(), null, List.of(), DEFAULTS, 3, volumes);
    assertThat(result.nodeName()).isEqualTo("n1");
    VolumeBinding.Bindings bindings = volumes.bindings(nodes().get(0).node());
    assertThat(bindings.claims()).isEmpty();
    assertThat(bindings.volumes())
        .singleElement()
        .satisfies(
            pv -> {
              assertThat(pv.getSpec().getClaimRef().getUid()).isEqualTo("uid-data");
              assertThat(pv.getMetadata().getAnnotations())
                  .containsEntry("pv.kubernetes.io/bound-by-controller", "yes");
            });

    Cluster none =
        new Cluster()
            .storageClass("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'local'");
    assertThat(schedule(pod(DATA), none).failureMessage())
        .isEqualTo(
            "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to"
                + " bind. preemption: 0/2 nodes are available: 2 Preemption is not helpful for"
                + " scheduling.");
  }

  @Test
  void aDriverWithStorageCapacityProvisionsOnlyWhereACapacityHoldsTheClaim() {
    Pod pod = pod(DATA);
    Cluster cluster =
        new Cluster()
            .storageClass("late", "example.csi", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'late'")
            .driver("example.csi", true)
            .capacity("a", "late", "512Mi")
            .capacity("b", "late", "2Gi");
    assertThat(schedule(pod, cluster).nodeName()).isEqualTo("n2");

    Cluster full =
        new Cluster()
            .storageClass("late", "example.csi", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'late'")
            .driver("example.csi", true)
            .capacity("a", "late", "512Mi")
            .capacity("b", "other", "2Gi");
    assertThat(schedule(pod, full).failureMessage())
        .isEqualTo(
            "0/2 nodes are available: 2 node(s) did not have enough free storage. preemption: 0/2"
                + " nodes are available: 2 Preemption is not helpful for scheduling.");

    Cluster unchecked =
        new Cluster()
            .storageClass("late", "example.csi", "WaitForFirstConsumer")
            .claim("data", "", ",'storageClassName':'late'")
            .driver("example.csi", false);
    assertThat(schedule(pod, unchecked).scheduled())
        .as("a driver without storageCapacity is not checked")
        .isTrue();
  }
}
