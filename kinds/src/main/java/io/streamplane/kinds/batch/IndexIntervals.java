package io.streamplane.kinds.batch;

/**
 * The index intervals of a Job's {@code succeededIndexes}, {@code completedIndexes} and {@code
 * failedIndexes} as kube-apiserver checks them ({@code validateIndexesFormat}): comma-separated
 * single indexes or {@code first-last} ranges, each below {@code completions}, in increasing order.
 */
final class IndexIntervals {

  private IndexIntervals() {}

  /**
   * How many indexes {@code text} names.
   *
   * @throws IllegalArgumentException with kube-apiserver's words when the text is malformed
   */
  static long total(String text, int completions) {
    if (text.isEmpty()) {
      return 0;
    }
    Long last = null;
    long total = 0;
    for (String interval : text.split(",", -1)) {
      long[] bounds = interval(interval, completions);
      if (last != null && last >= bounds[0]) {
        throw new IllegalArgumentException(
            "non-increasing order, previous: " + last + ", current: " + bounds[0]);
      }
      total += bounds[1] - bounds[0] + 1;
      last = bounds[1];
    }
    return total;
  }

  private static long[] interval(String interval, int completions) {
    String[] limits = interval.split("-", -1);
    if (limits.length > 2) {
      throw new IllegalArgumentException(
          "the fragment \""
              + interval
              + "\" violates the requirement that an index interval can have at most two parts"
              + " separated by '-'");
    }
    long first = index(limits[0], completions);
    if (limits.length == 1) {
      return new long[] {first, first};
    }
    long last = index(limits[1], completions);
    if (first >= last) {
      throw new IllegalArgumentException(
          "non-increasing order, previous: " + first + ", current: " + last);
    }
    return new long[] {first, last};
  }

  private static long index(String text, int completions) {
    long index;
    try {
      index = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "cannot convert string to integer for index: \"" + text + "\"");
    }
    if (index >= completions) {
      throw new IllegalArgumentException("too large index: \"" + text + "\"");
    }
    return index;
  }
}
