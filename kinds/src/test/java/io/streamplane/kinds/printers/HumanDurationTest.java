package io.streamplane.kinds.printers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HumanDurationTest {

  @ParameterizedTest(name = "{0}s -> {1}")
  @CsvSource({
    "-3, <invalid>",
    "-1, 0s",
    "0, 0s",
    "5, 5s",
    "119, 119s",
    "120, 2m",
    "200, 3m20s",
    "599, 9m59s",
    "600, 10m",
    "10799, 179m",
    "10800, 3h",
    "7500, 125m",
    "22500, 6h15m",
    "28799, 7h59m",
    "28800, 8h",
    "172799, 47h",
    "172800, 2d",
    "273600, 3d4h",
    "691199, 7d23h",
    "691200, 8d",
    "63071999, 729d",
    "63072000, 2y",
    "66528000, 2y40d",
    "252288000, 8y",
  })
  void formatsAsKubernetesHumanDuration(long seconds, String expected) {
    assertThat(HumanDuration.format(Duration.ofSeconds(seconds))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}ms -> {1}")
  @CsvSource({"-1500, 0s", "-2500, <invalid>", "1999, 1s"})
  void truncatesFractionsTowardZero(long millis, String expected) {
    assertThat(HumanDuration.format(Duration.ofMillis(millis))).isEqualTo(expected);
  }
}
