package io.streamplane.node.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerLogWriterTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-01T12:00:00.120Z"), ZoneOffset.UTC);

  @TempDir Path dir;

  @Test
  void eachLineBecomesAFullCriRecordStampedWithItsStreamAndTheParentsAreCreated() throws Exception {
    Path file = dir.resolve("ns_pod_uid/web/0.log");
    try (ContainerLogWriter writer = ContainerLogWriter.open(file, CLOCK)) {
      writer.pump(stream("hello\n\nworld\n"), "stdout");
      assertThat(writer.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(Files.readAllLines(file))
        .containsExactly(
            "2026-03-01T12:00:00.12Z stdout F hello",
            "2026-03-01T12:00:00.12Z stdout F ",
            "2026-03-01T12:00:00.12Z stdout F world");
  }

  @Test
  void aLineLongerThan16KiBIsSplitIntoPartialRecordsEndedByAFullOne() throws Exception {
    String longLine = "x".repeat(ContainerLogWriter.MAX_LINE_BYTES * 2 + 100);
    Path file = dir.resolve("0.log");
    try (ContainerLogWriter writer = ContainerLogWriter.open(file, CLOCK)) {
      writer.pump(stream(longLine + "\n"), "stdout");
      assertThat(writer.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }

    List<String> records = Files.readAllLines(file);
    assertThat(records).hasSize(3);
    assertThat(records.get(0)).startsWith("2026-03-01T12:00:00.12Z stdout P xxx");
    assertThat(records.get(1)).startsWith("2026-03-01T12:00:00.12Z stdout P xxx");
    assertThat(records.get(2)).isEqualTo("2026-03-01T12:00:00.12Z stdout F " + "x".repeat(100));
    String prefix = "2026-03-01T12:00:00.12Z stdout P ";
    assertThat(records.get(0)).hasSize(prefix.length() + ContainerLogWriter.MAX_LINE_BYTES);
  }

  @Test
  void outputEndingWithoutANewlineIsWrittenAsAFullLine() throws Exception {
    Path file = dir.resolve("0.log");
    try (ContainerLogWriter writer = ContainerLogWriter.open(file, CLOCK)) {
      writer.pump(stream("no newline"), "stderr");
      assertThat(writer.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(Files.readAllLines(file))
        .containsExactly("2026-03-01T12:00:00.12Z stderr F no newline");
  }

  @Test
  void aProcessStdoutAndStderrLinesAreAllInTheFileOnceDrainedAndNeverMixedWithinARecord()
      throws Exception {
    Process process =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                "i=0; while [ $i -lt 200 ]; do echo out-$i; echo err-$i >&2; i=$((i+1)); done")
            .start();
    Path file = dir.resolve("0.log");
    try (ContainerLogWriter writer = ContainerLogWriter.open(file, Clock.systemUTC())) {
      writer.pump(process.getInputStream(), "stdout");
      writer.pump(process.getErrorStream(), "stderr");
      process.waitFor();
      assertThat(writer.awaitDrained(Duration.ofSeconds(30))).isTrue();
    }

    List<String> records = Files.readAllLines(file);
    assertThat(records).hasSize(400);
    assertThat(records)
        .allMatch(
            r -> r.matches("\\S+Z stdout F out-\\d+") || r.matches("\\S+Z stderr F err-\\d+"));
    assertThat(records.stream().filter(r -> r.contains(" stdout F ")).map(r -> r.split(" ")[3]))
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, 200).mapToObj(i -> "out-" + i).toList());
  }

  private static ByteArrayInputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }
}
