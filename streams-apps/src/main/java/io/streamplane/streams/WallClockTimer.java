package io.streamplane.streams;

import java.time.Duration;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * A wall-clock punctuation that exists only while a processor has something to do at a known
 * moment. Kafka Streams marks a task as needing a commit after every punctuation, and under
 * exactly_once_v2 a commit is a transaction: a periodic punctuator makes an idle application write
 * one transaction (offsets, markers, transaction state) per period, so a cluster at rest would not
 * be at rest. Processors ask for the moment they need instead ({@link #at}), and the timer fires
 * once at or soon after it.
 *
 * <p>Not thread-safe; used from the task's own thread, like the processor context.
 */
public final class WallClockTimer {

  private final ProcessorContext<?, ?> context;
  private final Punctuator action;
  private Cancellable scheduled;
  private long dueMs = Long.MAX_VALUE;

  public WallClockTimer(ProcessorContext<?, ?> context, Punctuator action) {
    this.context = context;
    this.action = action;
  }

  /** Makes the timer fire at {@code wantedMs} at the latest (at once if that has passed). */
  public void at(long wantedMs) {
    if (wantedMs == Long.MAX_VALUE || (scheduled != null && dueMs <= wantedMs)) {
      return;
    }
    cancel();
    long now = context.currentSystemTimeMs();
    dueMs = Math.max(wantedMs, now + 1);
    scheduled =
        context.schedule(
            Duration.ofMillis(dueMs - now), PunctuationType.WALL_CLOCK_TIME, this::fire);
  }

  private void fire(long timestamp) {
    cancel();
    action.punctuate(timestamp);
  }

  public void cancel() {
    if (scheduled != null) {
      scheduled.cancel();
      scheduled = null;
    }
    dueMs = Long.MAX_VALUE;
  }
}
