package io.streamplane.gateway.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link QueryBooleans}: kube-apiserver's reading of a boolean query parameter. */
class QueryBooleansTest {

  @Test
  void anAbsentParameterIsFalse() {
    assertThat(QueryBooleans.get(Map.of(), "follow")).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      value = {
        "true,true",
        "True,true",
        "1,true",
        "t,true",
        "'',true",
        "on,true",
        "false,false",
        "False,false",
        "FALSE,false",
        "fAlSe,false",
        "0,false",
        "f,true"
      },
      emptyValue = "")
  void everyValueButZeroAndFalseIsTrue(String value, boolean expected) {
    assertThat(QueryBooleans.get(Map.of("follow", value), "follow")).isEqualTo(expected);
  }
}
