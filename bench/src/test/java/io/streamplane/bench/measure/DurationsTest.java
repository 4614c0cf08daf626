package io.streamplane.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void readsTheShortFormsPeopleType() {
    assertThat(Durations.parse("60s")).isEqualTo(Duration.ofSeconds(60));
    assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("30")).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void readsIso8601() {
    assertThat(Durations.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("pt5s")).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void refusesWhatIsNotADurationWithExamples() {
    assertThatThrownBy(() -> Durations.parse("soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("60s");
  }
}
