package io.streamplane.node;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Event;
import io.streamplane.schema.convert.KubeJson;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's Events, written through its gateway after {@link EventCorrelator} has decided: a first
 * occurrence is created, a repeated one counted on the first with a JSON merge patch of {@code
 * count}, {@code lastTimestamp} and {@code message} (created instead when it is gone), a dropped
 * one not written. Fire and forget, as the kubelet's recorder: a lost Event is only a missing line
 * in {@code kubectl describe}.
 */
final class EventRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  private final GatewayClient api;
  private final String node;
  private final EventCorrelator correlator;

  EventRecorder(GatewayClient api, String node, Clock clock) {
    this.api = api;
    this.node = node;
    this.correlator = new EventCorrelator(clock);
  }

  /** Records {@code event}, the occurrence named {@code seed}. */
  void record(Event event, String seed) {
    EventCorrelator.Decision decision = correlator.correlate(event, seed);
    if (decision instanceof EventCorrelator.Create create) {
      create(create.event());
    } else if (decision instanceof EventCorrelator.Count count) {
      ObjectNode patch = JsonNodeFactory.instance.objectNode();
      patch.put("count", count.count());
      patch.put("lastTimestamp", count.lastTimestamp().toString());
      patch.put("message", count.message());
      api.mergePatch(path(event) + "/" + count.name(), KubeJson.writeJson(patch))
          .whenComplete(
              (reply, failure) -> {
                if (failure == null && reply.status() == 404) {
                  create(count.event());
                } else if (failure != null || !reply.ok()) {
                  LOG.debug(
                      "node {}: event {} not counted: {}",
                      node,
                      event.getReason(),
                      failure != null ? failure : reply);
                }
              });
    } else if (decision instanceof EventCorrelator.Drop drop) {
      LOG.debug("node {}: event {} not recorded: {}", node, event.getReason(), drop.why());
    }
  }

  private void create(Event event) {
    api.post(path(event), event)
        .whenComplete(
            (reply, failure) -> {
              if (failure != null || (!reply.ok() && reply.status() != 409)) {
                LOG.debug(
                    "node {}: event {} not recorded: {}",
                    node,
                    event.getReason(),
                    failure != null ? failure : reply);
              }
            });
  }

  private static String path(Event event) {
    return "/api/v1/namespaces/" + event.getMetadata().getNamespace() + "/events";
  }
}
