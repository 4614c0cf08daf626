package io.streamplane.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProgressTest {

  @Test
  void aLineWithATotalHasABarCountsRateAndElapsedTime() {
    String line =
        Progress.render(
            new Progress.Status("pods", 50, 200, "Running", "scheduled 80"),
            Duration.ofSeconds(75),
            12.34);

    assertThat(line)
        .isEqualTo("pods [######------------------] 50/200 Running  12.3/s  1:15  scheduled 80");
  }

  @Test
  void aLineWithoutATotalHasNoBar() {
    String line =
        Progress.render(Progress.Status.of("idle", 1234, 0, "records"), Duration.ofSeconds(5), 0);

    assertThat(line).isEqualTo("idle 1,234 records  0.0/s  0:05");
  }

  @Test
  void aLineWithoutAUnitHasOnlyThePhaseAndTheTime() {
    String line =
        Progress.render(
            new Progress.Status("deleting namespace x", 0, 0, "", ""), Duration.ofSeconds(3), 0);

    assertThat(line).isEqualTo("deleting namespace x 0:03");
  }

  @Test
  void closingPrintsTheLastStateOnItsOwnLine() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    Progress.start(out, true, () -> Progress.Status.of("creates", 3, 3, "ops")).close();

    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(printed).startsWith("\rcreates [").contains("3/3 ops").endsWith("\u001b[K\n");
  }
}
