package io.streamplane.scheduler;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.Pod;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
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
    ObjectMeta meta = pod.getMetadata();
    String suffix =
        Long.toHexString(
            UUID.nameUUIDFromBytes(
                        (meta.getUid() + "/" + reason + "/" + message + "/" + now.toEpochMilli())
                            .getBytes(StandardCharsets.UTF_8))
                    .getMostSignificantBits()
                & 0xffffffffffffL);
    Instant at = now.truncatedTo(ChronoUnit.SECONDS);
    return Event.newBuilder()
        .setApiVersion("v1")
        .setKind("Event")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(meta.getName() + "." + suffix)
                .setNamespace(meta.getNamespace())
                .build())
        .setInvolvedObject(
            ObjectReference.newBuilder()
                .setKind("Pod")
                .setApiVersion("v1")
                .setNamespace(meta.getNamespace())
                .setName(meta.getName())
                .setUid(meta.getUid())
                .setResourceVersion(meta.getResourceVersion())
                .build())
        .setReason(reason)
        .setMessage(message)
        .setType(type)
        .setSource(EventSource.newBuilder().setComponent(COMPONENT).build())
        .setFirstTimestamp(at)
        .setLastTimestamp(at)
        .setCount(1)
        .setReportingComponent(COMPONENT)
        .build();
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
