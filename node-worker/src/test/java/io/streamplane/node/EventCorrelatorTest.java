package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.schema.objects.ObjectEvents;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class EventCorrelatorTest {

  /** A clock the test moves. */
  private static final class TestClock extends Clock {
    Instant now = Instant.parse("2026-11-27T10:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneId.of("UTC");
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final TestClock clock = new TestClock();
  private final EventCorrelator correlator = new EventCorrelator(clock);

  private Event event(String pod, String reason, String message, String seed) {
    return ObjectEvents.about(
        "Pod",
        "v1",
        ObjectMeta.newBuilder().setName(pod).setNamespace("default").setUid(pod + "-uid").build(),
        EventSource.newBuilder().setComponent("kubelet").setHost("node-1").build(),
        "Warning",
        reason,
        message,
        clock.instant(),
        seed);
  }

  private EventCorrelator.Decision record(String pod, String reason, String message, String seed) {
    return correlator.correlate(event(pod, reason, message, seed), seed);
  }

  @Test
  void anOccurrenceSeenOnSeveralSyncsIsRecordedOnce() {
    assertThat(record("web", "Started", "Started container c", "c-1"))
        .isInstanceOf(EventCorrelator.Create.class);
    assertThat(record("web", "Started", "Started container c", "c-1"))
        .isInstanceOf(EventCorrelator.Drop.class);
  }

  @Test
  void theSameEventAgainCountsOnTheFirstOne() {
    EventCorrelator.Create first =
        (EventCorrelator.Create) record("web", "BackOff", "Back-off restarting", "r-1");
    clock.now = clock.now.plusSeconds(30);
    EventCorrelator.Decision again = record("web", "BackOff", "Back-off restarting", "r-2");

    assertThat(again).isInstanceOf(EventCorrelator.Count.class);
    EventCorrelator.Count count = (EventCorrelator.Count) again;
    assertThat(count.name()).isEqualTo(first.event().getMetadata().getName());
    assertThat(count.count()).isEqualTo(2);
    assertThat(count.lastTimestamp()).isEqualTo(clock.now);
    assertThat(count.event().getFirstTimestamp()).isEqualTo(first.event().getFirstTimestamp());
    // Another pod's identical event is its own.
    assertThat(record("db", "BackOff", "Back-off restarting", "r-3"))
        .isInstanceOf(EventCorrelator.Create.class);
  }

  @Test
  void tenDifferentMessagesOfOneReasonWithinTenMinutesBecomeOneCombinedEvent() {
    for (int i = 1; i < EventCorrelator.AGGREGATE_MAX_EVENTS; i++) {
      assertThat(record("web", "Failed", "error " + i, "f-" + i))
          .isInstanceOf(EventCorrelator.Create.class);
    }
    EventCorrelator.Create combined =
        (EventCorrelator.Create) record("web", "Failed", "error 10", "f-10");
    assertThat(combined.event().getMessage()).isEqualTo(EventCorrelator.COMBINED + "error 10");
    EventCorrelator.Count next =
        (EventCorrelator.Count) record("web", "Failed", "error 11", "f-11");
    assertThat(next.name()).isEqualTo(combined.event().getMetadata().getName());
    assertThat(next.message()).isEqualTo(EventCorrelator.COMBINED + "error 11");

    // After ten quiet minutes the group starts again.
    clock.now = clock.now.plus(EventCorrelator.AGGREGATE_INTERVAL).plusSeconds(1);
    assertThat(record("web", "Failed", "error 12", "f-12"))
        .isInstanceOf(EventCorrelator.Create.class);
  }

  @Test
  void aSourceWritesTwentyFiveEventsAboutAnObjectThenOneEveryFiveMinutes() {
    int written = 0;
    for (int i = 0; i < 40; i++) {
      // Distinct reasons: nothing to count or combine, only the spam filter decides.
      if (!(record("web", "Reason" + i, "m", "s-" + i) instanceof EventCorrelator.Drop)) {
        written++;
      }
    }
    assertThat(written).isEqualTo(EventCorrelator.SPAM_BURST);

    clock.now = clock.now.plus(EventCorrelator.SPAM_REFILL);
    assertThat(record("web", "Later", "m", "later-1")).isNotInstanceOf(EventCorrelator.Drop.class);
    assertThat(record("web", "Later2", "m", "later-2")).isInstanceOf(EventCorrelator.Drop.class);
    // The budget is per object: another pod still has its own.
    assertThat(record("db", "Reason0", "m", "db-0")).isInstanceOf(EventCorrelator.Create.class);
  }
}
