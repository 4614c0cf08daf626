package io.streamplane.scheduler;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.Pod;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.PodEvents;
import io.streamplane.schema.objects.ResourceKey;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.processor.api.Record;

/**
 * What the scheduler and the binder tell users: core/v1 Events about pods ({@code Scheduled},
 * {@code FailedScheduling}), as {@code kubectl describe pod} shows them, written as commands.
 */
public final class SchedulerEvents {

  public static final String COMPONENT = "default-scheduler";
  public static final UserInfo SCHEDULER =
      UserInfo.newBuilder()
          .setUsername("system:kube-scheduler")
          .setGroups(List.of("system:authenticated"))
          .build();

  private SchedulerEvents() {}

  /** An Event about a pod, named as Kubernetes' recorder names them ({@code <pod>.<hex>}). */
  public static Event about(Pod pod, String type, String reason, String message, Instant now) {
    return PodEvents.about(
        pod,
        EventSource.newBuilder().setComponent(COMPONENT).build(),
        type,
        reason,
        message,
        now,
        pod.getMetadata().getUid() + "/" + reason + "/" + message + "/" + now.toEpochMilli());
  }

  /** A command for an intent, keyed by its resource, as the scheduler's actor. */
  public static Record<String, ResourceCommand> command(Intent intent, String id, long timestamp) {
    return record(intent.toCommand(id, SCHEDULER), timestamp);
  }

  /** A BIND command for a pod. */
  public static Record<String, ResourceCommand> bind(
      String namespace, String name, String uid, String node, String id, long timestamp) {
    ResourceCommand command =
        ResourceCommand.newBuilder()
            .setId(id)
            .setVerb(CommandVerb.BIND)
            .setResource("pods")
            .setNamespace(namespace)
            .setName(name)
            .setNodeName(node)
            .setPreconditions(Preconditions.newBuilder().setUid(uid).build())
            .setActor(SCHEDULER)
            .build();
    return record(command, timestamp);
  }

  private static Record<String, ResourceCommand> record(ResourceCommand command, long timestamp) {
    return new Record<>(ResourceKey.of(command).toString(), command, timestamp);
  }
}
