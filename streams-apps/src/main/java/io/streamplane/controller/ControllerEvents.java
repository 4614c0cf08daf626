package io.streamplane.controller;

import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.ObjectEvents;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The Events a controller records about the object it reconciles, as kube-controller-manager's
 * controllers record them through their {@code EventRecorder} ({@code SuccessfulCreate}, {@code
 * Completed}, ...): each an {@link Intent} to create a core/v1 Event, sent with the writes it
 * reports.
 *
 * <p>An Event's name is derived from the object's uid, the reason and what it reports (the pod
 * created, the condition reached), so the same decision taken twice records one Event. Kubernetes
 * records an Event once its write has succeeded; here it is sent with the write, so a write the
 * store refuses may still have its Event. Events are not expected back: nothing routes them to the
 * controller.
 */
public record ControllerEvents(
    String kind, String apiVersion, ObjectMeta object, String component, Instant now) {

  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  /** Events about {@code object} of {@code kind}, reported by {@code component}. */
  public static ControllerEvents about(
      String kind, String apiVersion, ObjectMeta object, String component, Instant now) {
    return new ControllerEvents(kind, apiVersion, object, component, now);
  }

  /** An Event of {@code type} with {@code reason} and {@code message}. */
  public Intent event(String type, String reason, String message, String seed) {
    return Intent.create(
        "events",
        "",
        ObjectEvents.about(
            kind,
            apiVersion,
            object,
            EventSource.newBuilder().setComponent(component).build(),
            type,
            reason,
            message,
            now,
            object.getUid() + "/" + reason + "/" + seed));
  }

  /**
   * {@code SuccessfulCreate} and {@code SuccessfulDelete} for each create and delete of {@code
   * resource} among {@code writes}, in the words {@code created} and {@code deleted} give them
   * (none where they give null).
   */
  public List<Intent> forWrites(
      List<Intent> writes,
      String resource,
      Function<String, String> created,
      Function<String, String> deleted) {
    List<Intent> events = new ArrayList<>();
    for (Intent write : writes) {
      if (!write.resource().equals(resource)) {
        continue;
      }
      if (write.verb() == CommandVerb.CREATE && created.apply(write.name()) != null) {
        events.add(event(NORMAL, "SuccessfulCreate", created.apply(write.name()), write.name()));
      } else if (write.verb() == CommandVerb.DELETE && deleted.apply(write.name()) != null) {
        String uid = write.preconditions() == null ? null : write.preconditions().getUid();
        events.add(
            event(
                NORMAL, "SuccessfulDelete", deleted.apply(write.name()), write.name() + "/" + uid));
      }
    }
    return events;
  }

  /**
   * Whether {@code intent} records an Event (creates one); a delete of an Event, as the namespace
   * controller empties a namespace, is not: its deletion comes back to the namespace's key.
   */
  public static boolean isRecorded(Intent intent) {
    return intent.resource().equals("events")
        && intent.group().isEmpty()
        && intent.verb() == CommandVerb.CREATE;
  }
}
