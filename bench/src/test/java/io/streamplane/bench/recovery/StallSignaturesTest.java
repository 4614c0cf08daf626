package io.streamplane.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StallSignaturesTest {

  @TempDir Path dir;

  @Test
  void countsEachKindOfTellTaleLineAndKeepsTheFirst() {
    List<StallSignatures.Count> counts =
        StallSignatures.count(
            List.of(
                "01:00:01.000 [WARN] StreamThread - Timeout of 60000ms expired before the last"
                    + " committed offset for partitions [sp.events-1] could be determined",
                "01:00:02.000 [INFO] something else",
                "01:00:03.000 [WARN] Timeout of 60000ms expired before the last committed offset"
                    + " for partitions [sp.events-4] could be determined",
                "01:00:04.000 [INFO] StreamsApp - sp-store: the last run did not stop cleanly;"
                    + " discarded the state of its 6 tasks"));

    assertThat(counts)
        .extracting(StallSignatures.Count::meaning, StallSignatures.Count::count)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "task waited for its committed offsets (a transaction left open)", 2),
            org.assertj.core.groups.Tuple.tuple("state of an unclean stop discarded at start", 1));
    assertThat(counts.get(0).first()).contains("sp.events-1");
  }

  @Test
  void readsALogFromTheOffsetOfTheRestart() throws Exception {
    Path log = dir.resolve("log");
    Files.writeString(log, "before the kill\n");
    long offset = Files.size(log);
    Files.writeString(
        log, "after the restart\nand more\n", java.nio.file.StandardOpenOption.APPEND);

    assertThat(StallSignatures.linesFrom(log, offset))
        .containsExactly("after the restart", "and more");
    assertThat(StallSignatures.linesFrom(dir.resolve("absent"), 0)).isEmpty();
  }
}
