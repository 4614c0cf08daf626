package io.streamplane.gateway.history;

import io.streamplane.log.ResourceEvent;
import java.time.Instant;

/** One version of an object: the event that made it, when, and where it is in {@code events}. */
public record ObjectVersion(Instant time, int partition, long offset, ResourceEvent event) {}
