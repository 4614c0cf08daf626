package io.streamplane.node;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the node agents of this process report, under the kubelet's names where it has them:
 *
 * <ul>
 *   <li>{@code kubelet_node_name{node}}: 1 for each node running here.
 *   <li>{@code kubelet_running_pods{node}}: pods with a running sandbox, per node — one process may
 *       run a thousand nodes, so the kubelet's unlabelled gauge gains the node's name.
 *   <li>{@code kubelet_pod_start_duration_seconds}: from the node seeing a pod for the first time
 *       to the pod's status written as Running (pods found running after a restart are left out).
 *   <li>{@code streamplane_node_status_writes_total{kind}}: writes sent to the gateway, {@code pod}
 *       (pod status), {@code node} (registration, status, heartbeat) or {@code lease}.
 * </ul>
 *
 * <p>Contract: one set of series per JVM; a node is reported from {@link NodeAgent#start} to {@link
 * NodeAgent#close}.
 */
public final class NodeMetrics {

  private static final Set<NodeAgent> NODES = ConcurrentHashMap.newKeySet();

  private static final Histogram POD_START_DURATION =
      Histogram.builder()
          .name("kubelet_pod_start_duration_seconds")
          .help(
              "Duration in seconds from kubelet seeing a pod for the first time to the pod starting"
                  + " to run")
          .classicOnly()
          .classicUpperBounds( // the kubelet's buckets
              0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900,
              1200, 1800, 2700, 3600)
          .register();

  private static final Counter STATUS_WRITES =
      Counter.builder()
          .name("streamplane_node_status_writes_total")
          .help("Status writes the nodes of this process sent to the gateway, by kind.")
          .labelNames("kind")
          .register();

  static {
    GaugeWithCallback.builder()
        .name("kubelet_node_name")
        .help("The node's name. The count is always 1.")
        .labelNames("node")
        .callback(callback -> NODES.forEach(node -> callback.call(1, node.name())))
        .register();
    GaugeWithCallback.builder()
        .name("kubelet_running_pods")
        .help("Number of pods that have a running pod sandbox")
        .labelNames("node")
        .callback(callback -> NODES.forEach(node -> callback.call(node.runningPods(), node.name())))
        .register();
  }

  private NodeMetrics() {}

  static void started(NodeAgent node) {
    NODES.add(node);
  }

  static void stopped(NodeAgent node) {
    NODES.remove(node);
  }

  static void podStarted(double seconds) {
    POD_START_DURATION.observe(seconds);
  }

  /** A write of {@code kind} (pod, node, lease) is sent. */
  static void statusWrite(String kind) {
    STATUS_WRITES.labelValues(kind).inc();
  }
}
