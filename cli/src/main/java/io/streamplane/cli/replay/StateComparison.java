package io.streamplane.cli.replay;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares a replayed state with the live one, key by key and byte for byte: the same keys, and for
 * each the same encoded {@code ResourceEvent}. Keys in {@code unsettled} (changed while the sources
 * were being read, so that the two may rightly disagree) are left out.
 */
final class StateComparison {

  /** What is wrong with one key. */
  enum Problem {
    NOT_LIVE("replayed from %s but not in the live state"),
    NOT_REPLAYED("in the live state but not replayed from %s"),
    DIFFERENT("differs between %s and the live state");

    private final String message;

    Problem(String message) {
      this.message = message;
    }

    String describe(String source) {
      return message.formatted(source);
    }
  }

  /** One key on which a source and the live state disagree; a missing side is null. */
  record Difference(String key, String source, Problem problem, KeyState replayed, KeyState live) {
    @Override
    public String toString() {
      return key + ": " + problem.describe(source);
    }
  }

  private StateComparison() {}

  /** Every difference, in key order. */
  static List<Difference> compare(
      String source,
      Map<String, KeyState> replayed,
      Map<String, KeyState> live,
      Set<String> unsettled) {
    Set<String> keys = new TreeSet<>(replayed.keySet());
    keys.addAll(live.keySet());
    keys.removeAll(unsettled);
    List<Difference> differences = new ArrayList<>();
    for (String key : keys) {
      KeyState r = replayed.get(key);
      KeyState l = live.get(key);
      if (l == null) {
        differences.add(new Difference(key, source, Problem.NOT_LIVE, r, null));
      } else if (r == null) {
        differences.add(new Difference(key, source, Problem.NOT_REPLAYED, null, l));
      } else if (!Arrays.equals(r.bytes(), l.bytes())) {
        differences.add(new Difference(key, source, Problem.DIFFERENT, r, l));
      }
    }
    return differences;
  }
}
