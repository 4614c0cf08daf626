package io.streamplane.schema.objects;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/**
 * core/v1 Events about any object, as Kubernetes' event recorder makes them and {@code kubectl
 * describe} shows them: named {@code <object>.<hex>} in the object's namespace, the object as
 * involvedObject, count 1, first and last timestamp {@code now} in whole seconds.
 *
 * <p>The hex suffix is derived from {@code nameSeed}: writers that may decide the same thing twice
 * (a replay, a retry) pass a seed that names the decision, so the second create is AlreadyExists
 * instead of a duplicate Event.
 */
public final class ObjectEvents {

  private ObjectEvents() {}

  /**
   * An Event of {@code type} (Normal or Warning) about the object of {@code kind} and {@code
   * apiVersion} whose metadata is {@code meta}, reported by {@code source}.
   */
  public static Event about(
      String kind,
      String apiVersion,
      ObjectMeta meta,
      EventSource source,
      String type,
      String reason,
      String message,
      Instant now,
      String nameSeed) {
    Instant at = now.truncatedTo(ChronoUnit.SECONDS);
    return Event.newBuilder()
        .setApiVersion("v1")
        .setKind("Event")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name(meta.getName(), nameSeed))
                .setNamespace(meta.getNamespace())
                .build())
        .setInvolvedObject(
            ObjectReference.newBuilder()
                .setKind(kind)
                .setApiVersion(apiVersion)
                .setNamespace(meta.getNamespace())
                .setName(meta.getName())
                .setUid(meta.getUid())
                .setResourceVersion(meta.getResourceVersion())
                .build())
        .setReason(reason)
        .setMessage(message)
        .setType(type)
        .setSource(source)
        .setFirstTimestamp(at)
        .setLastTimestamp(at)
        .setCount(1)
        .setReportingComponent(source.getComponent())
        .setReportingInstance(source.getHost())
        .build();
  }

  /** The name of an Event about {@code objectName}: {@code <object>.<hex of nameSeed>}. */
  public static String name(String objectName, String nameSeed) {
    return objectName
        + "."
        + Long.toHexString(
            UUID.nameUUIDFromBytes(nameSeed.getBytes(StandardCharsets.UTF_8))
                    .getMostSignificantBits()
                & 0xffffffffffffL);
  }
}
