package io.streamplane.node.logs;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a container's stdout and stderr into its log file in the CRI format kubelet reads ({@link
 * CriLine}), as containerd does: one record per line, stamped when the line is complete; a line
 * longer than {@value #MAX_LINE_BYTES} bytes is cut into {@code P} records ended by an {@code F}
 * one; output that ends without a newline is written as a full line.
 *
 * <p>Contract: {@link #open} appends to the file (a restarted container gets a new file from its
 * runtime, so appending only matters for a writer reopened on the same attempt). Each {@link #pump}
 * copies one stream on its own daemon thread until end of stream. Records are written whole and one
 * at a time, each with one write to the file (no buffering), so stdout and stderr never mix within
 * a record and a reader following the file sees every line as soon as it is complete. {@link
 * #awaitDrained} waits until every pump has reached end of stream — for a process that exited,
 * until all its output is in the file. {@link #close} closes the file; records a pump produces
 * after that are dropped.
 *
 * <p>Limits: no rotation (kubelet's containerLogMaxSize); a failed write is logged and the rest of
 * that stream is read and dropped, so the process never blocks on a full pipe.
 */
public final class ContainerLogWriter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ContainerLogWriter.class);

  /** containerd's default maximum record size: longer lines become several records. */
  public static final int MAX_LINE_BYTES = 16 * 1024;

  private final Path file;
  private final FileOutputStream out;
  private final Clock clock;
  private final List<BiConsumer<String, byte[]>> taps = new CopyOnWriteArrayList<>();
  private int pumping;
  private boolean closed;

  private ContainerLogWriter(Path file, FileOutputStream out, Clock clock) {
    this.file = file;
    this.out = out;
    this.clock = clock;
  }

  /** Opens {@code file} for appending, creating it and its parent directories. */
  public static ContainerLogWriter open(Path file, Clock clock) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    return new ContainerLogWriter(file, new FileOutputStream(file.toFile(), true), clock);
  }

  public Path file() {
    return file;
  }

  /**
   * Copies {@code in} into the file as {@code stream} ("stdout" or "stderr") on a daemon thread.
   */
  public void pump(InputStream in, String stream) {
    synchronized (this) {
      pumping++;
    }
    Thread thread = new Thread(() -> copy(in, stream), "log-" + stream + "-" + file.getFileName());
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Hands {@code tap} what every pump reads from now on, as read ({@code "stdout"} or {@code
   * "stderr"}, the bytes), besides writing it to the file: what {@code kubectl attach} shows.
   * Closing the returned handle stops it.
   */
  public AutoCloseable tap(BiConsumer<String, byte[]> tap) {
    taps.add(tap);
    return () -> taps.remove(tap);
  }

  /** Whether any pump still reads its stream. */
  public synchronized boolean pumping() {
    return pumping > 0;
  }

  /** True when every pump reached end of stream within {@code timeout}. */
  public synchronized boolean awaitDrained(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (pumping > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  @Override
  public synchronized void close() throws IOException {
    if (!closed) {
      closed = true;
      out.close();
    }
  }

  private void copy(InputStream in, String stream) {
    byte[] line = new byte[MAX_LINE_BYTES];
    byte[] chunk = new byte[8192];
    int length = 0;
    boolean writable = true;
    try (in) {
      for (int n; (n = in.read(chunk)) >= 0; ) {
        if (n > 0 && !taps.isEmpty()) {
          byte[] read = Arrays.copyOf(chunk, n);
          taps.forEach(t -> t.accept(stream, read));
        }
        for (int i = 0; i < n; i++) {
          if (chunk[i] == '\n') {
            writable = writable && write(stream, line, length, false);
            length = 0;
          } else {
            line[length++] = chunk[i];
            if (length == MAX_LINE_BYTES) {
              writable = writable && write(stream, line, length, true);
              length = 0;
            }
          }
        }
      }
    } catch (IOException e) {
      // The pipe broke (the process is gone): what was read is all there is.
      LOG.debug("{} of {} ended", stream, file, e);
    } finally {
      if (length > 0 && writable) {
        write(stream, line, length, false);
      }
      synchronized (this) {
        pumping--;
        notifyAll();
      }
      taps.forEach(t -> t.accept(stream, null));
    }
  }

  private synchronized boolean write(String stream, byte[] content, int length, boolean partial) {
    if (closed) {
      return false;
    }
    try {
      out.write(CriLine.encode(clock.instant(), stream, partial, content, length));
      return true;
    } catch (IOException e) {
      LOG.warn("cannot write the log {}; the rest of {} is dropped", file, stream, e);
      return false;
    }
  }
}
