package io.streamplane.cli.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TimeBoundTest {

  private static final Instant NOW = Instant.parse("2026-03-04T12:00:00Z");

  @Test
  void anIsoTimeInUtcIsThatInstant() {
    assertThat(TimeBound.parse("2026-01-02T03:04:05Z", NOW))
        .isEqualTo(Instant.parse("2026-01-02T03:04:05Z"));
  }

  @Test
  void anIsoTimeWithAnOffsetIsConvertedToUtc() {
    assertThat(TimeBound.parse("2026-01-02T03:04:05+02:00", NOW))
        .isEqualTo(Instant.parse("2026-01-02T01:04:05Z"));
  }

  @Test
  void aDateIsItsStartInUtc() {
    assertThat(TimeBound.parse("2026-01-02", NOW)).isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));
  }

  @Test
  void aDurationIsThatLongBeforeNow() {
    assertThat(TimeBound.parse("1h", NOW)).isEqualTo(NOW.minus(Duration.ofHours(1)));
    assertThat(TimeBound.parse("2d", NOW)).isEqualTo(NOW.minus(Duration.ofDays(2)));
    assertThat(TimeBound.parse("90s", NOW)).isEqualTo(NOW.minusSeconds(90));
    assertThat(TimeBound.parse("1h30m", NOW)).isEqualTo(NOW.minus(Duration.ofMinutes(90)));
    assertThat(TimeBound.parse("250ms", NOW)).isEqualTo(NOW.minusMillis(250));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "yesterday", "1w", "h1", "2026-13-01", "1.5h"})
  void anythingElseIsRejectedWithTheAcceptedForms(String text) {
    assertThatThrownBy(() -> TimeBound.parse(text, NOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ISO-8601");
  }
}
