package io.streamplane.controller.job;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The completed indexes of an Indexed Job as {@code status.completedIndexes} writes them: ordered
 * intervals separated by commas, each a single index or a range ({@code "1,3-5,7"}), as the job
 * controller's {@code orderedIntervals.String()} prints them.
 *
 * <p>Contract: {@link #parse} ignores what does not parse (the controller writes the field itself);
 * {@link #format} of an empty set is the empty string.
 */
final class CompletedIndexes {

  private CompletedIndexes() {}

  static TreeSet<Integer> parse(String text) {
    TreeSet<Integer> indexes = new TreeSet<>();
    if (text == null || text.isEmpty()) {
      return indexes;
    }
    for (String part : text.split(",")) {
      try {
        int dash = part.indexOf('-');
        int first = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
        int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1));
        for (int i = first; i <= last; i++) {
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
        parts.add(first.equals(last) ? first.toString() : first + "-" + last);
      }
      first = i;
      last = i;
    }
    if (first != null) {
      parts.add(first.equals(last) ? first.toString() : first + "-" + last);
    }
    return String.join(",", parts);
  }
}
