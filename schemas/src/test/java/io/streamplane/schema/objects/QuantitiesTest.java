package io.streamplane.schema.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantitiesTest {

  @ParameterizedTest(name = "{0} is {1} milli-units")
  @CsvSource({
    "1, 1000",
    "0.5, 500",
    ".5, 500",
    "1., 1000",
    "100m, 100",
    "1.5m, 2",
    "250u, 1",
    "0, 0",
    "2k, 2000000",
    "1e3, 1000000",
    "1E-3, 1",
    "+3, 3000",
    "-1, -1000",
    "1Ki, 1024000",
  })
  void milliValueRoundsUp(String quantity, long milli) {
    assertThat(Quantities.milliValue(quantity)).isEqualTo(milli);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "128974848, 128974848",
    "129e6, 129000000",
    "129M, 129000000",
    "123Mi, 128974848",
    "1Gi, 1073741824",
    "1G, 1000000000",
    "1Ti, 1099511627776",
    "2Pi, 2251799813685248",
    "1Ei, 1152921504606846976",
    "1T, 1000000000000",
    "1P, 1000000000000000",
    "1E, 1000000000000000000",
    "110, 110",
    "0.1, 1",
    "1500m, 2",
    "100n, 1",
    "0.5Ki, 512",
    "10E, 9223372036854775807",
    "1e99999999999, 9223372036854775807",
    "1e-99999, 1",
  })
  void valueRoundsUpAndSaturates(String quantity, long value) {
    assertThat(Quantities.value(quantity)).isEqualTo(value);
  }

  @ParameterizedTest(name = "''{0}'' is rejected")
  @ValueSource(
      strings = {"", " ", "abc", "1K", "1ki", "1.2.3", "1 Gi", "Gi", "1GiB", "e3", "1e", "--1"})
  void garbageIsRejectedWithTheAcceptedForm(String quantity) {
    assertThatThrownBy(() -> Quantities.value(quantity))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + quantity + "' is not a Kubernetes quantity");
  }

  @org.junit.jupiter.api.Test
  void nullIsRejected() {
    assertThatThrownBy(() -> Quantities.milliValue(null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
