package io.streamplane.store;

import java.time.Instant;

/**
 * Where a command sits in the log: its {@code commands} partition and offset, and its record
 * timestamp. Everything the store derives from "now" or "new" (resourceVersion, uid, timestamps)
 * comes from here, so replaying the same log rebuilds the same objects.
 */
public record CommandPosition(int partition, long offset, Instant timestamp) {

  /**
   * The {@code metadata.resourceVersion} of an object this command produces: one more than its
   * offset. Kubernetes reserves {@code "0"} ("any version" on reads, "no precondition" on writes),
   * so the first command of a partition, at offset 0, must not produce it; adding one keeps the
   * versions of a partition increasing and distinct.
   */
  public String resourceVersion() {
    return Long.toString(offset + 1);
  }
}
