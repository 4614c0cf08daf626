package io.streamplane.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ListVersion}: a list's resourceVersion survives the round trip through its string form,
 * and nothing else — in particular no object resourceVersion — parses as one.
 */
class ListVersionTest {

  @Test
  void roundTripsThroughItsStringForm() {
    ListVersion version = new ListVersion(new long[] {12, 0, 7, 3, 3, 9});

    assertThat(version.toString()).isEqualTo("L12.0.7.3.3.9");
    assertThat(ListVersion.parse(version.toString())).contains(version);
  }

  @Test
  void singlePartitionRoundTrips() {
    assertThat(ListVersion.parse("L42")).contains(new ListVersion(new long[] {42}));
  }

  @Test
  void partitionsBeyondTheVectorReadAsOffsetZero() {
    ListVersion version = ListVersion.parse("L5.6").orElseThrow();

    assertThat(version.offset(0)).isEqualTo(5);
    assertThat(version.offset(1)).isEqualTo(6);
    assertThat(version.offset(2)).isZero();
  }

  @Test
  void equalityIsByOffsets() {
    assertThat(new ListVersion(new long[] {1, 2}))
        .isEqualTo(new ListVersion(new long[] {1, 2}))
        .hasSameHashCodeAs(new ListVersion(new long[] {1, 2}))
        .isNotEqualTo(new ListVersion(new long[] {1, 3}));
  }

  @ParameterizedTest
  @ValueSource(strings = {"5", "0", "123456"})
  void rejectsObjectResourceVersions(String plainNumber) {
    assertThat(ListVersion.parse(plainNumber)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "L",
        "L1..2",
        "L1.x",
        "Lx",
        "l1.2",
        "L1.2.",
        ".L1",
        "L-1",
        "L+1",
        "L 1",
        "L99999999999999999999",
        "garbage"
      })
  void rejectsGarbage(String value) {
    assertThat(ListVersion.parse(value)).isEmpty();
  }

  @Test
  void rejectsNull() {
    assertThat(ListVersion.parse(null)).isEmpty();
  }
}
