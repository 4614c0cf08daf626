package io.streamplane.scheduler.whatif;

import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * A test's {@code events} log: Node and Pod events, one second apart from {@link #T0}, folded into
 * a {@link WhatIfWindow} by a {@link WindowBuilder}.
 */
final class EventLog {

  static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final List<ResourceEvent> events = new ArrayList<>();
  private final Map<String, Pod> pods = new HashMap<>();

  /** The time of the next event. */
  Instant now() {
    return T0.plusSeconds(events.size());
  }

  EventLog node(String name, String cpu, String memory) {
    Map<String, String> allocatable = Map.of("cpu", cpu, "memory", memory, "pods", "110");
    Node node =
        Node.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName(name).setLabels(new HashMap<>()).build())
            .setSpec(NodeSpec.newBuilder().build())
            .setStatus(NodeStatus.newBuilder().setAllocatable(allocatable).build())
            .build();
    return add(EventType.ADDED, "nodes", null, name, node);
  }

  EventLog removeNode(String name) {
    return add(EventType.DELETED, "nodes", null, name, null);
  }

  /** A pod created pending. */
  EventLog pending(String name, String cpu, String memory) {
    Container c =
        Container.newBuilder()
            .setName("c")
            .setResources(
                ResourceRequirements.newBuilder()
                    .setRequests(Map.of("cpu", cpu, "memory", memory))
                    .build())
            .build();
    Pod pod =
        Pod.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
            .setSpec(PodSpec.newBuilder().setContainers(List.of(c)).build())
            .build();
    pods.put(name, pod);
    return add(EventType.ADDED, "pods", "default", name, pod);
  }

  /** The pending pod bound to {@code node}. */
  EventLog bind(String name, String node) {
    Pod pod = pods.get(name);
    Pod bound =
        Pod.newBuilder(pod)
            .setSpec(PodSpec.newBuilder(pod.getSpec()).setNodeName(node).build())
            .build();
    pods.put(name, bound);
    return add(EventType.MODIFIED, "pods", "default", name, bound);
  }

  /** A pod created already bound, as with {@code spec.nodeName} in the manifest. */
  EventLog boundByHand(String name, String cpu, String memory, String node) {
    pending(name, cpu, memory);
    events.remove(events.size() - 1);
    Pod pod = pods.get(name);
    Pod bound =
        Pod.newBuilder(pod)
            .setSpec(PodSpec.newBuilder(pod.getSpec()).setNodeName(node).build())
            .build();
    pods.put(name, bound);
    return add(EventType.ADDED, "pods", "default", name, bound);
  }

  EventLog succeed(String name) {
    Pod pod = pods.get(name);
    Pod done =
        Pod.newBuilder(pod).setStatus(PodStatus.newBuilder().setPhase("Succeeded").build()).build();
    pods.put(name, done);
    return add(EventType.MODIFIED, "pods", "default", name, done);
  }

  EventLog delete(String name) {
    return add(EventType.DELETED, "pods", "default", name, pods.remove(name));
  }

  WhatIfWindow window(Instant from, Instant until) {
    WindowBuilder builder = new WindowBuilder(from, until);
    for (int i = 0; i < events.size(); i++) {
      builder.add(T0.plusSeconds(i).toEpochMilli(), events.get(i));
    }
    return builder.build();
  }

  /** The window from just before the first event to after the last one. */
  WhatIfWindow all() {
    return window(T0.minusSeconds(1), now());
  }

  private EventLog add(
      EventType type, String resource, String namespace, String name, SpecificRecord object) {
    events.add(
        ResourceEvent.newBuilder()
            .setType(type)
            .setResource(resource)
            .setGroup("")
            .setNamespace(namespace)
            .setName(name)
            .setEncodedObject(KindObjects.encode(object))
            .setResourceVersion(events.size() + 1)
            .setCommandId("cmd-" + events.size())
            .setActor(UserInfo.newBuilder().setUsername("test").setGroups(List.of()).build())
            .build());
    return this;
  }
}
