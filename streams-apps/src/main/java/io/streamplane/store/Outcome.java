package io.streamplane.store;

import io.streamplane.log.CommandResult;
import io.streamplane.log.ResourceEvent;

/**
 * What the store does with one command: the result to send back, and — when the command changed
 * something — the event to append and the new state of the key ({@code null} state: removed).
 */
public record Outcome(CommandResult result, ResourceEvent event, ResourceEvent state) {

  public boolean changed() {
    return event != null;
  }
}
