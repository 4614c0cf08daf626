package io.streamplane.node.logs;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Reads a container log file in the CRI format ({@link CriLine}) the way kubelet serves {@code
 * /containerLogs}: lines reassembled from their {@code P} chunks (per stream, so a long stdout line
 * stays whole even when stderr wrote in between), then {@code tailLines} (the last N complete lines
 * of the file as it is when the read starts, as kubelet seeks back N lines before applying the
 * rest), then {@code since} (lines stamped before it are skipped), then {@code timestamps} (each
 * line prefixed with its first chunk's timestamp, RFC3339Nano, and a space), and {@code limitBytes}
 * on the output, which may cut a line.
 *
 * <p>With {@code follow} it keeps reading the file as it grows, every {@value #POLL_MILLIS} ms,
 * until {@code stillRunning} answers false and what was written until then has been read, or until
 * writing to {@code out} fails because the client went away (the {@link IOException} is thrown).
 * Output is flushed each time the reader reaches the end of the file.
 *
 * <p>Limits: malformed records are skipped; a line whose chunks are not all written yet is held
 * back, and dropped if the container stops before finishing it; no log rotation.
 */
public final class ContainerLogReader {

  static final long POLL_MILLIS = 150;

  private ContainerLogReader() {}

  /** Copies the part of {@code file} that {@code options} select to {@code out}. */
  public static void copy(
      Path file, LogOptions options, BooleanSupplier stillRunning, OutputStream out)
      throws IOException {
    long skip = 0;
    if (options.tailLines().isPresent()) {
      skip = Math.max(0, completeLines(file) - options.tailLines().getAsLong());
    }
    Output sink = new Output(out, options.limitBytes().orElse(Long.MAX_VALUE));
    Lines lines = new Lines();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      Records records = new Records(channel);
      while (true) {
        boolean running = options.follow() && stillRunning.getAsBoolean();
        for (byte[] record = records.next(); record != null; record = records.next()) {
          Optional<Line> line = lines.add(record);
          if (line.isEmpty()) {
            continue;
          }
          if (skip > 0) {
            skip--;
            continue;
          }
          if (options.since().isPresent() && line.get().time().isBefore(options.since().get())) {
            continue;
          }
          if (options.timestamps()) {
            sink.write(
                (CriLine.format(line.get().time()) + " ").getBytes(StandardCharsets.US_ASCII));
          }
          sink.write(line.get().content());
          sink.write(NEWLINE);
          if (sink.full()) {
            sink.flush();
            return;
          }
        }
        sink.flush();
        if (!running) {
          return;
        }
        sleep(Duration.ofMillis(POLL_MILLIS));
      }
    }
  }

  /** How many complete lines {@code file} holds now. */
  static long completeLines(Path file) throws IOException {
    long count = 0;
    Lines lines = new Lines();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      Records records = new Records(channel);
      for (byte[] record = records.next(); record != null; record = records.next()) {
        if (lines.add(record).isPresent()) {
          count++;
        }
      }
    }
    return count;
  }

  private static final byte[] NEWLINE = {'\n'};

  private static void sleep(Duration duration) throws InterruptedIOException {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while following a log");
    }
  }

  private record Line(Instant time, byte[] content) {}

  /** Joins each stream's P chunks with the F record that ends them. */
  private static final class Lines {
    private final Map<String, ByteArrayOutputStream> pending = new HashMap<>();
    private final Map<String, Instant> started = new HashMap<>();

    Optional<Line> add(byte[] record) {
      Optional<CriLine> parsed = CriLine.parse(record, record.length);
      if (parsed.isEmpty()) {
        return Optional.empty();
      }
      CriLine line = parsed.get();
      ByteArrayOutputStream chunks = pending.get(line.stream());
      if (line.partial()) {
        if (chunks == null) {
          chunks = new ByteArrayOutputStream();
          pending.put(line.stream(), chunks);
          started.put(line.stream(), line.time());
        }
        chunks.writeBytes(line.content());
        return Optional.empty();
      }
      if (chunks == null) {
        return Optional.of(new Line(line.time(), line.content()));
      }
      chunks.writeBytes(line.content());
      pending.remove(line.stream());
      return Optional.of(new Line(started.remove(line.stream()), chunks.toByteArray()));
    }
  }

  /**
   * The records of a file, newline excluded, read as far as it is written; a record still being
   * written is kept and completed by a later call.
   */
  private static final class Records {
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    private final ByteArrayOutputStream record = new ByteArrayOutputStream();

    Records(FileChannel channel) {
      this.channel = channel;
      buffer.flip();
    }

    /** The next complete record, or null at the end of what is written now. */
    byte[] next() throws IOException {
      while (true) {
        while (buffer.hasRemaining()) {
          byte b = buffer.get();
          if (b == '\n') {
            byte[] complete = record.toByteArray();
            record.reset();
            return complete;
          }
          record.write(b);
        }
        buffer.clear();
        int read = channel.read(buffer);
        buffer.flip();
        if (read <= 0) {
          return null;
        }
      }
    }
  }

  /** The client's stream, cut at {@code limitBytes}. */
  private static final class Output {
    private final OutputStream out;
    private long remaining;

    Output(OutputStream out, long limit) {
      this.out = new BufferedOutputStream(out, 8192);
      this.remaining = limit;
    }

    void write(byte[] bytes) throws IOException {
      int n = (int) Math.min(bytes.length, remaining);
      out.write(bytes, 0, n);
      remaining -= n;
    }

    boolean full() {
      return remaining == 0;
    }

    void flush() throws IOException {
      out.flush();
    }
  }
}
