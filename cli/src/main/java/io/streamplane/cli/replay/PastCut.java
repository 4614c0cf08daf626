package io.streamplane.cli.replay;

import io.streamplane.gateway.cache.ListVersion;
import java.time.Instant;

/**
 * Where {@code replay --until} or {@code --resource-version} cuts {@code events}: for each
 * partition, the first offset not applied, so the cluster at the cut is what every partition's
 * records before it made. A time cuts each partition before its first record stamped later than the
 * time; a list resourceVersion ({@link ListVersion}) names the offsets itself.
 */
record PastCut(long[] offsets, Instant time) {

  /** The cut of {@code time}, given each partition's first offset stamped after it. */
  static PastCut at(Instant time, long[] firstOffsetsAfter) {
    return new PastCut(firstOffsetsAfter.clone(), time);
  }

  /**
   * The cut a list resourceVersion names, for a log of {@code ends.length} partitions ending at
   * {@code ends}.
   *
   * @throws IllegalArgumentException if it is not a list version of this log, or lies beyond its
   *     end
   */
  static PastCut of(String resourceVersion, long[] ends) {
    ListVersion version =
        ListVersion.parse(resourceVersion)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "'"
                            + resourceVersion
                            + "' is not a list resourceVersion (L followed by one offset per"
                            + " partition of events, such as L12.0.7)"));
    if (version.offsets().length != ends.length) {
      throw new IllegalArgumentException(
          "resourceVersion "
              + resourceVersion
              + " names "
              + version.offsets().length
              + " partitions; events has "
              + ends.length);
    }
    for (int p = 0; p < ends.length; p++) {
      if (version.offset(p) > ends[p]) {
        throw new IllegalArgumentException(
            "resourceVersion "
                + resourceVersion
                + " lies beyond the end of events, "
                + new ListVersion(ends));
      }
    }
    return new PastCut(version.offsets().clone(), null);
  }

  /** The list resourceVersion of the state at this cut. */
  ListVersion version() {
    return new ListVersion(offsets.clone());
  }

  /** As a message says it: {@code 2026-01-02T03:04:05Z (resourceVersion L12.0.7)}. */
  String describe() {
    return time == null
        ? "resourceVersion " + version()
        : time + " (resourceVersion " + version() + ")";
  }
}
