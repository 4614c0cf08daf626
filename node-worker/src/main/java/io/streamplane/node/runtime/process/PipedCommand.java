package io.streamplane.node.runtime.process;

import io.streamplane.node.runtime.ContainerCommand;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;

/** A command of an exec session on pipes: stdin, stdout and stderr apart, no terminal. */
class PipedCommand implements ContainerCommand {

  final Process process;

  PipedCommand(Process process) {
    this.process = process;
  }

  @Override
  public OutputStream stdin() {
    return process.getOutputStream();
  }

  @Override
  public InputStream stdout() {
    return process.getInputStream();
  }

  @Override
  public InputStream stderr() {
    return process.getErrorStream();
  }

  @Override
  public void resize(int width, int height) {}

  @Override
  public int waitFor() throws InterruptedException {
    return process.waitFor();
  }

  @Override
  public void kill() {
    ProcessRuntime.terminate(List.of(process), Duration.ZERO);
  }
}
