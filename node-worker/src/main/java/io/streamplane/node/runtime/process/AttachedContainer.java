package io.streamplane.node.runtime.process;

import io.streamplane.node.logs.ContainerLogWriter;
import io.streamplane.node.runtime.ContainerCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A client attached to a running container ({@code kubectl attach}, {@code kubectl run -it}): the
 * container's output from now on, as its log writer reads it (both outputs on one stream with a
 * terminal), and, when the container keeps its stdin open ({@code stdin: true}) and the client
 * asked for it, that stdin. The client leaving detaches it and leaves the container running; with
 * {@code stdinOnce} the container's stdin is closed once this first client's input ends or it
 * leaves, as the kubelet's runtimes do.
 *
 * <p>Limits: a terminal is not resized; output waiting for a slow client holds the container's
 * output pipe (what a client does not read, the container cannot write).
 */
final class AttachedContainer implements ContainerCommand {

  private static final int BUFFER = 64 * 1024;

  private final Process process;
  private final OutputStream containerStdin;
  private final boolean stdinOnce;
  private final boolean tty;
  private final PipedInputStream stdout = new PipedInputStream(BUFFER);
  private final PipedInputStream stderr = new PipedInputStream(BUFFER);
  private final PipedOutputStream stdoutSink;
  private final PipedOutputStream stderrSink;
  private final AutoCloseable tap;
  private final CompletableFuture<Void> detached = new CompletableFuture<>();

  /**
   * {@code containerStdin}: the container's stdin pipe when it keeps one and the client attaches to
   * it, else null.
   */
  AttachedContainer(
      Process process,
      ContainerLogWriter log,
      OutputStream containerStdin,
      boolean stdinOnce,
      boolean tty)
      throws IOException {
    this.process = process;
    this.containerStdin = containerStdin;
    this.stdinOnce = stdinOnce;
    this.tty = tty;
    this.stdoutSink = new PipedOutputStream(stdout);
    this.stderrSink = new PipedOutputStream(stderr);
    this.tap = log.tap(this::output);
  }

  /** What the container wrote on one stream, or null when that stream ended. */
  private void output(String stream, byte[] bytes) {
    PipedOutputStream sink = tty || stream.equals("stdout") ? stdoutSink : stderrSink;
    try {
      if (bytes == null) {
        if (!tty || stream.equals("stdout")) {
          sink.close();
        }
        if (tty && stream.equals("stdout")) {
          stderrSink.close();
        }
      } else {
        sink.write(bytes);
        sink.flush();
      }
    } catch (IOException e) {
      // The client has gone: its share of the output is dropped, the container goes on.
    }
  }

  @Override
  public OutputStream stdin() {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        if (containerStdin != null) {
          containerStdin.write(b, off, len);
        }
      }

      @Override
      public void flush() throws IOException {
        if (containerStdin != null) {
          containerStdin.flush();
        }
      }

      /** The client's input ended: with stdinOnce, so does the container's. */
      @Override
      public void close() throws IOException {
        if (containerStdin != null && stdinOnce) {
          containerStdin.close();
        }
      }
    };
  }

  @Override
  public InputStream stdout() {
    return stdout;
  }

  @Override
  public InputStream stderr() {
    return tty ? null : stderr;
  }

  @Override
  public void resize(int width, int height) {}

  /** Waits until the container ends (its exit code) or the client detaches (0). */
  @Override
  public int waitFor() throws InterruptedException {
    try {
      CompletableFuture.anyOf(process.onExit(), detached).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    return process.isAlive() ? 0 : process.exitValue();
  }

  /** Detaches: the container goes on, without this client. */
  @Override
  public void kill() {
    detached.complete(null);
    try {
      tap.close();
    } catch (Exception e) {
      // nothing held
    }
    output("stdout", null);
    output("stderr", null);
    if (containerStdin != null && stdinOnce) {
      try {
        containerStdin.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
