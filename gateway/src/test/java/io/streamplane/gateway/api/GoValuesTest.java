package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.schema.convert.KubeJson;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class GoValuesTest {

  @Test
  void jsonPrintsAsGoPrintsWhatEncodingJsonDecodedIt() {
    assertThat(
            GoValues.format(
                KubeJson.parseJson(
                    "{\"metadata\":{\"labels\":\"invalid\"},\"a\":[1,true,null,\"x\"]}")))
        .isEqualTo("map[a:[1 true <nil> x] metadata:map[labels:invalid]]");
  }

  @Test
  void numbersAreFloat64sInTheirShortestForm() {
    assertThat(GoValues.float64(new BigDecimal("10"))).isEqualTo("10");
    assertThat(GoValues.float64(new BigDecimal("123456"))).isEqualTo("123456");
    assertThat(GoValues.float64(new BigDecimal("1000000"))).isEqualTo("1e+06");
    assertThat(GoValues.float64(new BigDecimal("1234567"))).isEqualTo("1.234567e+06");
    assertThat(GoValues.float64(new BigDecimal("0.5"))).isEqualTo("0.5");
    assertThat(GoValues.float64(new BigDecimal("0.00001"))).isEqualTo("1e-05");
    assertThat(GoValues.float64(new BigDecimal("-2.5"))).isEqualTo("-2.5");
  }
}
