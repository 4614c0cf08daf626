package io.streamplane.scheduler.framework;

import io.streamplane.api.Affinity;
import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.NodeAffinity;
import io.streamplane.api.NodeSelector;
import io.streamplane.api.NodeSelectorRequirement;
import io.streamplane.api.NodeSelectorTerm;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small builders for the Avro Pod and Node objects the scheduler tests use. */
final class Fixtures {

  private Fixtures() {}

  static Container container(String cpu, String memory) {
    Map<String, String> requests = new HashMap<>();
    if (cpu != null) {
      requests.put("cpu", cpu);
    }
    if (memory != null) {
      requests.put("memory", memory);
    }
    return Container.newBuilder()
        .setName("c")
        .setResources(ResourceRequirements.newBuilder().setRequests(requests).build())
        .build();
  }

  static PodSpec.Builder spec(Container... containers) {
    return PodSpec.newBuilder().setContainers(List.of(containers));
  }

  static Pod pod(PodSpec spec) {
    return Pod.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName("p").setNamespace("default").build())
        .setSpec(spec)
        .build();
  }

  static Pod pod(String cpu, String memory) {
    return pod(spec(container(cpu, memory)).build());
  }

  static Node.Builder node(String name, String cpu, String memory, String pods) {
    Map<String, String> allocatable = new HashMap<>();
    allocatable.put("cpu", cpu);
    allocatable.put("memory", memory);
    if (pods != null) {
      allocatable.put("pods", pods);
    }
    return Node.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).setLabels(new HashMap<>()).build())
        .setSpec(NodeSpec.newBuilder().build())
        .setStatus(NodeStatus.newBuilder().setAllocatable(allocatable).build());
  }

  static NodeInfo info(String name, String cpu, String memory) {
    return NodeInfo.of(node(name, cpu, memory, "110").build());
  }

  static NodeInfo info(Node node) {
    return NodeInfo.of(node);
  }

  static Node withLabels(Node.Builder node, Map<String, String> labels) {
    Node n = node.build();
    n.getMetadata().setLabels(new HashMap<>(labels));
    return n;
  }

  static Node withTaints(Node.Builder node, Taint... taints) {
    Node n = node.build();
    n.getSpec().setTaints(new ArrayList<>(List.of(taints)));
    return n;
  }

  static Taint taint(String key, String value, String effect) {
    return Taint.newBuilder().setKey(key).setValue(value).setEffect(effect).build();
  }

  static Toleration toleration(String key, String operator, String value, String effect) {
    return Toleration.newBuilder()
        .setKey(key)
        .setOperator(operator)
        .setValue(value)
        .setEffect(effect)
        .build();
  }

  static NodeSelectorRequirement req(String key, String operator, String... values) {
    return NodeSelectorRequirement.newBuilder()
        .setKey(key)
        .setOperator(operator)
        .setValues(values.length == 0 ? null : List.of(values))
        .build();
  }

  static NodeSelectorTerm labelTerm(NodeSelectorRequirement... expressions) {
    return NodeSelectorTerm.newBuilder().setMatchExpressions(List.of(expressions)).build();
  }

  static Affinity requiredAffinity(NodeSelectorTerm... terms) {
    return Affinity.newBuilder()
        .setNodeAffinity(
            NodeAffinity.newBuilder()
                .setRequiredDuringSchedulingIgnoredDuringExecution(
                    NodeSelector.newBuilder().setNodeSelectorTerms(List.of(terms)).build())
                .build())
        .build();
  }
}
