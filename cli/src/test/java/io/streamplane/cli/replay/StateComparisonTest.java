package io.streamplane.cli.replay;

import static io.streamplane.cli.replay.ReplayFixtures.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.cli.replay.StateComparison.Difference;
import io.streamplane.cli.replay.StateComparison.Problem;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateComparisonTest {

  private static KeyState state(String value) {
    return new KeyState(bytes(value), null, 0, 0);
  }

  @Test
  void equalBytesUnderEqualKeysAreNoDifference() {
    Map<String, KeyState> live = Map.of("a", state("x"), "b", state("y"));

    assertThat(
            StateComparison.compare(
                "events", Map.of("a", state("x"), "b", state("y")), live, Set.of()))
        .isEmpty();
  }

  @Test
  void differentBytesMissingAndExtraKeysAreReportedInKeyOrderNamingTheSource() {
    Map<String, KeyState> live = Map.of("a", state("x"), "b", state("y"), "d", state("w"));
    Map<String, KeyState> replayed = Map.of("a", state("x"), "b", state("z"), "c", state("v"));

    List<Difference> differences = StateComparison.compare("commands", replayed, live, Set.of());

    assertThat(differences)
        .extracting(Difference::key, Difference::problem)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("b", Problem.DIFFERENT),
            org.assertj.core.groups.Tuple.tuple("c", Problem.NOT_LIVE),
            org.assertj.core.groups.Tuple.tuple("d", Problem.NOT_REPLAYED));
    assertThat(differences.get(0).toString())
        .isEqualTo("b: differs between commands and the live state");
    assertThat(differences.get(2).toString())
        .isEqualTo("d: in the live state but not replayed from commands");
  }

  @Test
  void unsettledKeysAreNotCompared() {
    Map<String, KeyState> live = Map.of("a", state("x"), "b", state("old"));
    Map<String, KeyState> replayed = Map.of("a", state("x"), "b", state("new"), "c", state("v"));

    assertThat(StateComparison.compare("events", replayed, live, Set.of("b", "c"))).isEmpty();
  }
}
