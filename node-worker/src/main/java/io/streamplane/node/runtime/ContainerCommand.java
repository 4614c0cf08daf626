package io.streamplane.node.runtime;

import java.io.InputStream;
import java.io.OutputStream;

/**
 * A command a runtime started in a container for a client to stream to, as {@code kubectl exec}
 * does: its input, its output, and its end. With a terminal, {@link #stderr()} is null (the
 * terminal carries both outputs) and {@link #resize} sets the terminal's size.
 */
public interface ContainerCommand {

  OutputStream stdin();

  InputStream stdout();

  /** The error output; null when the command runs on a terminal. */
  InputStream stderr();

  /** Sets the terminal's size in columns and rows; does nothing without a terminal. */
  void resize(int width, int height);

  /** Waits for the command to end; its exit code. */
  int waitFor() throws InterruptedException;

  /** Kills the command and what it started. */
  void kill();
}
