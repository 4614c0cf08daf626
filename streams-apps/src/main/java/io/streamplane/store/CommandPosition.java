package io.streamplane.store;

import java.time.Instant;

/**
 * Where a command sits in the log: its {@code commands} partition and offset, and its record
 * timestamp. Everything the store derives from "now" or "new" (resourceVersion, uid, timestamps)
 * comes from here, so replaying the same log rebuilds the same objects.
 */
public record CommandPosition(int partition, long offset, Instant timestamp) {}
