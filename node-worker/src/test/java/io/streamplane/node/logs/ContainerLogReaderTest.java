package io.streamplane.node.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerLogReaderTest {

  @TempDir Path dir;

  private Path log(String... records) throws IOException {
    Path file = dir.resolve("0.log");
    Files.writeString(file, String.join("\n", records) + "\n");
    return file;
  }

  private static String read(Path file, LogOptions options) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ContainerLogReader.copy(file, options, () -> false, out);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void partialChunksAreJoinedPerStreamEvenWhenAnotherStreamWritesInBetween() throws Exception {
    Path file =
        log(
            "2026-03-01T12:00:00Z stdout P hel",
            "2026-03-01T12:00:01Z stderr F oops",
            "2026-03-01T12:00:02Z stdout P lo wor",
            "2026-03-01T12:00:03Z stdout F ld");

    assertThat(read(file, LogOptions.all())).isEqualTo("oops\nhello world\n");
  }

  @Test
  void malformedRecordsAreSkipped() throws Exception {
    Path file = log("garbage", "2026-03-01T12:00:00Z stdout F kept", "not-a-time stdout F x");

    assertThat(read(file, LogOptions.all())).isEqualTo("kept\n");
  }

  @Test
  void tailLinesGivesTheLastCompleteLines() throws Exception {
    Path file =
        log(
            "2026-03-01T12:00:00Z stdout F one",
            "2026-03-01T12:00:01Z stdout P tw",
            "2026-03-01T12:00:02Z stdout F o",
            "2026-03-01T12:00:03Z stdout F three");

    assertThat(read(file, LogOptions.all().withTailLines(2))).isEqualTo("two\nthree\n");
    assertThat(read(file, LogOptions.all().withTailLines(0))).isEmpty();
    assertThat(read(file, LogOptions.all().withTailLines(10))).isEqualTo("one\ntwo\nthree\n");
  }

  @Test
  void sinceSkipsLinesStampedBeforeItAndKeepsOneStampedExactlyThen() throws Exception {
    Path file =
        log(
            "2026-03-01T12:00:00Z stdout F old",
            "2026-03-01T12:00:05.5Z stdout F exact",
            "2026-03-01T13:00:05+01:00 stdout F same instant as exact minus half a second",
            "2026-03-01T12:00:09Z stdout F new");

    assertThat(read(file, LogOptions.all().withSince(Instant.parse("2026-03-01T12:00:05.5Z"))))
        .isEqualTo("exact\nnew\n");
  }

  @Test
  void timestampsPrefixEachLineWithItsRfc3339NanoTimeWithoutTrailingZeros() throws Exception {
    Path file =
        log(
            "2026-03-01T12:00:00.120000000Z stdout F a",
            "2026-03-01T12:00:01Z stdout P b",
            "2026-03-01T12:00:02.000000001Z stdout F c");

    assertThat(read(file, LogOptions.all().withTimestamps(true)))
        .isEqualTo("2026-03-01T12:00:00.12Z a\n2026-03-01T12:00:01Z bc\n");
  }

  @Test
  void limitBytesCutsTheOutputEvenWithinALine() throws Exception {
    Path file = log("2026-03-01T12:00:00Z stdout F abcdef", "2026-03-01T12:00:01Z stdout F gh");

    assertThat(read(file, LogOptions.all().withLimitBytes(9))).isEqualTo("abcdef\ngh");
    assertThat(read(file, LogOptions.all().withLimitBytes(3))).isEqualTo("abc");
  }

  @Test
  void followReadsLinesWrittenLaterAndEndsOnceTheContainerStoppedAndTheFileIsDrained()
      throws Exception {
    Path file = log("2026-03-01T12:00:00Z stdout F first");
    AtomicBoolean running = new AtomicBoolean(true);
    SharedOutput out = new SharedOutput();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread follower =
        new Thread(
            () -> {
              try {
                ContainerLogReader.copy(file, LogOptions.all().withFollow(true), running::get, out);
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    follower.start();

    await("the first line")
        .atMost(Duration.ofSeconds(10))
        .until(() -> out.text().equals("first\n"));
    append(file, "2026-03-01T12:00:01Z stdout P sec");
    append(file, "2026-03-01T12:00:02Z stdout F ond");
    await("the second line")
        .atMost(Duration.ofSeconds(10))
        .until(() -> out.text().contains("second"));
    append(file, "2026-03-01T12:00:03Z stdout F last words");
    running.set(false);
    follower.join(Duration.ofSeconds(10).toMillis());

    assertThat(follower.isAlive()).as("the follow ended").isFalse();
    assertThat(failure.get()).isNull();
    assertThat(out.text()).isEqualTo("first\nsecond\nlast words\n");
  }

  @Test
  void followEndsWithAnIOExceptionWhenTheClientGoesAway() throws Exception {
    Path file = log("2026-03-01T12:00:00Z stdout F first");
    OutputStream gone =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Broken pipe");
          }
        };

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                ContainerLogReader.copy(file, LogOptions.all().withFollow(true), () -> true, gone))
        .isInstanceOf(IOException.class)
        .hasMessage("Broken pipe");
  }

  @Test
  void writerOutputReadsBackAsTheOriginalLines() throws Exception {
    Path file = dir.resolve("w/0.log");
    String longLine = "y".repeat(ContainerLogWriter.MAX_LINE_BYTES + 5);
    try (ContainerLogWriter writer = ContainerLogWriter.open(file, java.time.Clock.systemUTC())) {
      writer.pump(
          new java.io.ByteArrayInputStream(
              ("short\n" + longLine + "\nünïcode\n").getBytes(StandardCharsets.UTF_8)),
          "stdout");
      assertThat(writer.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }

    assertThat(read(file, LogOptions.all())).isEqualTo("short\n" + longLine + "\nünïcode\n");
  }

  private static void append(Path file, String record) throws IOException {
    Files.writeString(file, record + "\n", StandardOpenOption.APPEND);
  }

  /** An output another thread reads while the follower writes. */
  private static final class SharedOutput extends OutputStream {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      bytes.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      bytes.write(b, off, len);
    }

    synchronized String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }
}
