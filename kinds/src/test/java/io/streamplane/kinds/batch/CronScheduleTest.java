package io.streamplane.kinds.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class CronScheduleTest {

  private static final ZoneId UTC = ZoneId.of("UTC");

  private static ZonedDateTime at(String local) {
    return ZonedDateTime.parse(local + "Z").withZoneSameInstant(UTC);
  }

  @Test
  void stepsRangesListsAndNamesScheduleTheNextMatchingMinute() {
    assertThat(CronSchedule.parse("*/15 * * * *").next(at("2024-05-01T10:07:30")))
        .isEqualTo(at("2024-05-01T10:15:00"));
    assertThat(CronSchedule.parse("0 9-17/4 * * mon-fri").next(at("2024-05-03T17:00:00")))
        .isEqualTo(at("2024-05-06T09:00:00"));
    assertThat(CronSchedule.parse("30 2 1,15 jan *").next(at("2024-01-01T02:30:00")))
        .isEqualTo(at("2024-01-15T02:30:00"));
  }

  @Test
  void bothRestrictedDayFieldsMatchEitherDay() {
    // The 13th of the month or a Friday, as cron reads "0 0 13 * 5".
    assertThat(CronSchedule.parse("0 0 13 * 5").next(at("2024-05-01T00:00:00")))
        .isEqualTo(at("2024-05-03T00:00:00"));
  }

  @Test
  void descriptorsAreMacrosOfTheFiveFields() {
    assertThat(CronSchedule.parse("@hourly").next(at("2024-05-01T10:00:00")))
        .isEqualTo(at("2024-05-01T11:00:00"));
    assertThat(CronSchedule.parse("@daily").next(at("2024-05-01T10:00:00")))
        .isEqualTo(at("2024-05-02T00:00:00"));
    assertThat(CronSchedule.parse("@weekly").next(at("2024-05-01T10:00:00")))
        .isEqualTo(at("2024-05-05T00:00:00"));
    assertThat(CronSchedule.parse("@yearly").next(at("2024-05-01T10:00:00")))
        .isEqualTo(at("2025-01-01T00:00:00"));
    assertThat(CronSchedule.parse("@every 1h30m").next(at("2024-05-01T10:00:00")))
        .isEqualTo(at("2024-05-01T11:30:00"));
  }

  @Test
  void aScheduleIsReadInItsTimeZone() {
    ZonedDateTime paris = ZonedDateTime.parse("2024-05-01T10:00:00+02:00[Europe/Paris]");
    assertThat(CronSchedule.parse("0 12 * * *").next(paris).toInstant())
        .isEqualTo(at("2024-05-01T10:00:00").toInstant());
  }

  @Test
  void malformedSchedulesAreRefusedSayingWhatIsWrong() {
    assertThatThrownBy(() -> CronSchedule.parse("* * *"))
        .hasMessage("expected exactly 5 fields, found 3");
    assertThatThrownBy(() -> CronSchedule.parse("x * * * *")).hasMessageContaining("x");
    assertThatThrownBy(() -> CronSchedule.parse("61 * * * *")).hasMessageContaining("61");
    assertThatThrownBy(() -> CronSchedule.parse("@fortnightly"))
        .hasMessage("unrecognized descriptor: @fortnightly");
  }
}
