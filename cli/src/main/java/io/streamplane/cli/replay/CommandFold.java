package io.streamplane.cli.replay;

import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.store.CommandPosition;
import io.streamplane.store.Outcome;
import io.streamplane.store.StoreLogic;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The state the {@code commands} log produces when it goes through the store's own decision, {@link
 * StoreLogic#apply}, again: each command is applied to its key's state in fresh memory at its log
 * position, exactly as {@code StoreProcessor} does against the {@code objects} store. What the
 * store would have refused changes nothing here either.
 */
final class CommandFold {

  private final Map<String, KeyState> state = new HashMap<>();
  private long commands;
  private long changes;

  /** Applies one command, in offset order within its partition. */
  void apply(String key, ResourceCommand command, CommandPosition at) {
    commands++;
    if (key == null || command == null) {
      return;
    }
    KeyState current = state.get(key);
    Outcome outcome = StoreLogic.apply(command, at, current == null ? null : current.event());
    if (!outcome.changed()) {
      return;
    }
    changes++;
    if (outcome.state() == null) {
      state.remove(key);
    } else {
      state.put(key, new KeyState(null, outcome.state(), at.partition(), at.offset()));
    }
  }

  /** The folds of disjoint sets of partitions as one, as {@link EventFold#union}. */
  static CommandFold union(List<CommandFold> folds) {
    CommandFold union = new CommandFold();
    for (CommandFold fold : folds) {
      union.state.putAll(fold.state);
      union.commands += fold.commands;
      union.changes += fold.changes;
    }
    return union;
  }

  /** Commands applied so far. */
  long commands() {
    return commands;
  }

  /** Commands that changed their key's state. */
  long changes() {
    return changes;
  }

  /** The objects that exist after the fold, by key, each encoded as the store would store it. */
  TreeMap<String, KeyState> state(Function<ResourceEvent, byte[]> encode) {
    TreeMap<String, KeyState> encoded = new TreeMap<>();
    state.forEach(
        (key, s) ->
            encoded.put(
                key, new KeyState(encode.apply(s.event()), s.event(), s.partition(), s.offset())));
    return encoded;
  }
}
