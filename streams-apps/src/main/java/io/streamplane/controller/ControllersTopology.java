package io.streamplane.controller;

import io.streamplane.controller.attachdetach.AttachDetachController;
import io.streamplane.controller.cronjob.CronJobController;
import io.streamplane.controller.daemon.DaemonSetController;
import io.streamplane.controller.disruption.DisruptionController;
import io.streamplane.controller.endpoints.EndpointsController;
import io.streamplane.controller.job.JobController;
import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.controller.nodelifecycle.NodeLifecycleController;
import io.streamplane.controller.statefulset.StatefulSetController;
import io.streamplane.controller.volume.PersistentVolumeController;
import io.streamplane.controller.volume.VolumeClaimController;
import io.streamplane.log.ResourceCommand;
import io.streamplane.topics.Topic;
import io.streamplane.topics.Topics;
import java.util.function.Function;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/**
 * The controllers as one Kafka Streams application: each {@link Controller} registered in one line
 * with the {@link ControllerManager}, all of them over one consumer of {@code events}, each on its
 * own re-keyed topic and sub-topology:
 *
 * <ul>
 *   <li>{@link OwnerControllers}, keyed by owner uid ({@link ControllerRoutes#ownerKeys}): the
 *       ReplicaSet (for ReplicaSets and ReplicationControllers) and Deployment controllers and the
 *       garbage collector, each owner seen with its dependents;
 *   <li>{@link NamespaceControllers}, keyed by namespace ({@link ControllerRoutes#namespaceKey}):
 *       namespace teardown and ReplicaSet adoption of orphan pods;
 *   <li>{@link NodeLifecycleController}, keyed by node name: node health, unreachable taints, taint
 *       eviction;
 *   <li>{@link DaemonSetController}, keyed by shard of the DaemonSet's uid, every node copied to
 *       each shard: one pod per eligible node, rolling updates, revisions, status;
 *   <li>{@link JobController}, keyed by Job uid: the job and TTL-after-finished controllers, each
 *       Job seen with its pods;
 *   <li>{@link CronJobController}, keyed by CronJob uid: each CronJob seen with its Jobs, its
 *       schedule a due time in its queue;
 *   <li>{@link StatefulSetController}, keyed by StatefulSet uid: each StatefulSet seen with its
 *       pods and revisions.
 * </ul>
 *
 * <p>Scaling is by partitions of the re-keyed topics: owners spread over every partition and
 * instance, whatever their namespace. Writes to {@code controller-requests} commit in the
 * transaction that consumed their input (exactly_once_v2), and so do the work queues and
 * expectations, so a crash neither loses nor repeats a decision; the gateways then execute each
 * request through admission (see docs/architecture.md, "One write path").
 */
public final class ControllersTopology {

  private ControllersTopology() {}

  public static Topology buildTopology(Topics topics) {
    return buildTopology(topics, NodeLifecycleConfig.defaults());
  }

  public static Topology buildTopology(Topics topics, NodeLifecycleConfig nodeLifecycle) {
    return buildTopology(topics, nodeLifecycle, topics.controllerRequests());
  }

  /**
   * The controllers writing to {@code writesTo}: {@code controller-requests} (executed by the
   * gateways, through admission) in a cluster; {@code commands} for a plane without gateways.
   */
  public static Topology buildTopology(
      Topics topics, NodeLifecycleConfig nodeLifecycle, Topic<String, ResourceCommand> writesTo) {
    return buildTopology(topics, nodeLifecycle, writesTo, ControllerManager.PERSISTENT);
  }

  /** The controllers writing to {@code writesTo}, their stores made by {@code stores}. */
  public static Topology buildTopology(
      Topics topics,
      NodeLifecycleConfig nodeLifecycle,
      Topic<String, ResourceCommand> writesTo,
      Function<String, KeyValueBytesStoreSupplier> stores) {
    StreamsBuilder builder = new StreamsBuilder();
    new ControllerManager(builder, topics, writesTo, stores)
        .register(new OwnerControllers())
        .register(new NamespaceControllers())
        .register(new EndpointsController())
        .register(new NodeLifecycleController(nodeLifecycle))
        .register(new DaemonSetController())
        .register(new JobController())
        .register(new CronJobController(java.time.ZoneId.systemDefault()))
        .register(new DisruptionController())
        .register(new StatefulSetController())
        .register(new PersistentVolumeController())
        .register(new VolumeClaimController())
        .register(new AttachDetachController());
    return builder.build();
  }
}
