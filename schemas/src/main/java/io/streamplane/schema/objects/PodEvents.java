package io.streamplane.schema.objects;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.Pod;
import java.time.Instant;

/** core/v1 Events about pods ({@link ObjectEvents} with the pod as involvedObject). */
public final class PodEvents {

  private PodEvents() {}

  /** An Event of {@code type} (Normal or Warning) about {@code pod}, reported by {@code source}. */
  public static Event about(
      Pod pod,
      EventSource source,
      String type,
      String reason,
      String message,
      Instant now,
      String nameSeed) {
    return ObjectEvents.about(
        "Pod", "v1", pod.getMetadata(), source, type, reason, message, now, nameSeed);
  }
}
