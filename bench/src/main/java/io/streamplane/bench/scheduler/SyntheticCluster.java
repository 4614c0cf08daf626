package io.streamplane.bench.scheduler;

import io.streamplane.api.Affinity;
import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.NodeAffinity;
import io.streamplane.api.NodeSelectorRequirement;
import io.streamplane.api.NodeSelectorTerm;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PreferredSchedulingTerm;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A reproducible synthetic cluster for the scheduler benchmark: nodes of five sizes across three
 * zones, some dedicated to GPU work (NoSchedule taint), some with a PreferNoSchedule taint, a few
 * cordoned; pending pods of random sizes, some with a zone nodeSelector, a GPU toleration, or a
 * preferred disk affinity. Everything derives from the seed.
 */
final class SyntheticCluster {

  private static final String[][] NODE_SIZES = {
    {"4", "16Gi"}, {"8", "32Gi"}, {"16", "64Gi"}, {"32", "128Gi"}, {"64", "256Gi"}
  };
  private static final String[] ZONES = {"zone-a", "zone-b", "zone-c"};
  private static final String[] CPU = {"100m", "250m", "500m", "1", "2"};
  private static final String[] MEMORY = {"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"};

  private SyntheticCluster() {}

  static List<Node> nodes(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Node> nodes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String[] size = NODE_SIZES[random.nextInt(NODE_SIZES.length)];
      Map<String, String> labels = new HashMap<>();
      labels.put("kubernetes.io/hostname", name(i));
      labels.put("topology.kubernetes.io/zone", ZONES[i % ZONES.length]);
      labels.put("disk", random.nextInt(3) == 0 ? "ssd" : "hdd");
      List<Taint> taints = new ArrayList<>();
      int kind = random.nextInt(100);
      if (kind < 10) {
        labels.put("accelerator", "gpu");
        taints.add(
            Taint.newBuilder().setKey("dedicated").setValue("gpu").setEffect("NoSchedule").build());
      } else if (kind < 15) {
        taints.add(
            Taint.newBuilder()
                .setKey("spot")
                .setValue("true")
                .setEffect("PreferNoSchedule")
                .build());
      }
      nodes.add(
          Node.newBuilder()
              .setMetadata(ObjectMeta.newBuilder().setName(name(i)).setLabels(labels).build())
              .setSpec(
                  NodeSpec.newBuilder()
                      .setUnschedulable(kind >= 98 ? Boolean.TRUE : null)
                      .setTaints(taints.isEmpty() ? null : taints)
                      .build())
              .setStatus(
                  NodeStatus.newBuilder()
                      .setAllocatable(
                          Map.of(
                              "cpu",
                              size[0],
                              "memory",
                              size[1],
                              "ephemeral-storage",
                              "100Gi",
                              "pods",
                              "110"))
                      .build())
              .build());
    }
    return nodes;
  }

  static List<Pod> pods(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Map<String, String> requests =
          Map.of(
              "cpu", CPU[random.nextInt(CPU.length)],
              "memory", MEMORY[random.nextInt(MEMORY.length)]);
      PodSpec.Builder spec =
          PodSpec.newBuilder()
              .setContainers(
                  List.of(
                      Container.newBuilder()
                          .setName("app")
                          .setImage("nginx")
                          .setResources(
                              ResourceRequirements.newBuilder().setRequests(requests).build())
                          .build()));
      int kind = random.nextInt(100);
      if (kind < 20) {
        spec.setNodeSelector(Map.of("topology.kubernetes.io/zone", ZONES[random.nextInt(3)]));
      } else if (kind < 25) {
        spec.setTolerations(
            List.of(
                Toleration.newBuilder()
                    .setKey("dedicated")
                    .setOperator("Equal")
                    .setValue("gpu")
                    .setEffect("NoSchedule")
                    .build()));
      } else if (kind < 40) {
        spec.setAffinity(preferSsd());
      }
      pods.add(
          Pod.newBuilder()
              .setMetadata(
                  ObjectMeta.newBuilder().setName("pod-" + i).setNamespace("bench").build())
              .setSpec(spec.build())
              .build());
    }
    return pods;
  }

  private static Affinity preferSsd() {
    NodeSelectorTerm ssd =
        NodeSelectorTerm.newBuilder()
            .setMatchExpressions(
                List.of(
                    NodeSelectorRequirement.newBuilder()
                        .setKey("disk")
                        .setOperator("In")
                        .setValues(List.of("ssd"))
                        .build()))
            .build();
    return Affinity.newBuilder()
        .setNodeAffinity(
            NodeAffinity.newBuilder()
                .setPreferredDuringSchedulingIgnoredDuringExecution(
                    List.of(
                        PreferredSchedulingTerm.newBuilder()
                            .setWeight(50)
                            .setPreference(ssd)
                            .build()))
                .build())
        .build();
  }

  private static String name(int i) {
    return String.format("node-%05d", i);
  }
}
