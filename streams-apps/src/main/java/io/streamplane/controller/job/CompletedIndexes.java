package io.streamplane.controller.job;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The indexes of an Indexed Job as {@code status.completedIndexes}, {@code status.failedIndexes}
 * and a success policy's {@code succeededIndexes} write them: ordered intervals separated by
 * commas, each a single index or a range ({@code "1,3-5,7"}; two adjacent indexes as {@code
 * "3,4"}), as the job controller's {@code orderedIntervals.String()} prints them.
 *
 * <p>Contract: {@link #parse} ignores what does not parse (the controller writes the field itself,
 * and the API validates a policy's), and indexes at or beyond the completions; {@link #format} of
 * an empty set is the empty string.
 */
final class CompletedIndexes {

  private CompletedIndexes() {}

  static TreeSet<Integer> parse(String text) {
    return parse(text, Integer.MAX_VALUE);
  }

  /** The indexes below {@code completions} that {@code text} names. */
  static TreeSet<Integer> parse(String text, int completions) {
    TreeSet<Integer> indexes = new TreeSet<>();
    if (text == null || text.isEmpty()) {
      return indexes;
    }
    for (String part : text.split(",")) {
      try {
        int dash = part.indexOf('-');
        int first = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
        int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1));
        for (int i = first; i <= last && i < completions; i++) {
          indexes.add(i);
        }
      } catch (NumberFormatException e) {
        // A malformed interval counts no index.
      }
    }
    return indexes;
  }

  static String format(TreeSet<Integer> indexes) {
    List<String> parts = new ArrayList<>();
    Integer first = null;
    Integer last = null;
    for (int i : indexes) {
      if (last != null && i == last + 1) {
        last = i;
        continue;
      }
      if (first != null) {
        parts.add(interval(first, last));
      }
      first = i;
      last = i;
    }
    if (first != null) {
      parts.add(interval(first, last));
    }
    return String.join(",", parts);
  }

  private static String interval(int first, int last) {
    if (first == last) {
      return Integer.toString(first);
    }
    return first + (last == first + 1 ? "," : "-") + last;
  }
}
