package io.streamplane.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class PastCutTest {

  @Test
  void aListResourceVersionNamesTheOffsetsOfTheCut() {
    PastCut cut = PastCut.of("L3.0.7", new long[] {5, 0, 9});

    assertThat(cut.offsets()).containsExactly(3, 0, 7);
    assertThat(cut.describe()).isEqualTo("resourceVersion L3.0.7");
  }

  @Test
  void aResourceVersionOfAnotherLogOrBeyondItsEndIsRefused() {
    assertThatThrownBy(() -> PastCut.of("L3.0", new long[] {5, 0, 9}))
        .hasMessageContaining("names 2 partitions; events has 3");
    assertThatThrownBy(() -> PastCut.of("L3.1.7", new long[] {5, 0, 9}))
        .hasMessageContaining("lies beyond the end of events, L5.0.9");
    assertThatThrownBy(() -> PastCut.of("42", new long[] {5, 0, 9}))
        .hasMessageContaining("is not a list resourceVersion");
  }

  @Test
  void aTimeCutSaysItsTimeAndItsVersion() {
    PastCut cut = PastCut.at(Instant.parse("2026-01-02T03:04:05Z"), new long[] {1, 2});

    assertThat(cut.describe()).isEqualTo("2026-01-02T03:04:05Z (resourceVersion L1.2)");
  }
}
