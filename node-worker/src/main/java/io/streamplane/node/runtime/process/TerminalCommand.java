package io.streamplane.node.runtime.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A command of an exec session on a pseudo-terminal. Java cannot open one itself; util-linux's
 * {@code script} (already needed for the volumes' {@code unshare}) does: {@code script -q -e -c
 * <command> /dev/null} runs the command on a new terminal, copies its own stdin to the terminal and
 * the terminal to its stdout, and ends with the command's exit code. The terminal echoes and
 * translates line ends as a real one does, which is what {@code kubectl exec -t} expects.
 *
 * <p>Resize: {@code script} only follows the size of its own terminal, and it has none; the size is
 * set on the command's terminal itself ({@code stty -F /proc/<pid>/fd/0 rows R cols C}, which the
 * kernel follows with SIGWINCH to the command), found as the stdin of {@code script}'s child.
 */
final class TerminalCommand extends PipedCommand {

  private static final Logger LOG = LoggerFactory.getLogger(TerminalCommand.class);

  TerminalCommand(Process process) {
    super(process);
  }

  /** The command line that runs {@code command} on a new terminal. */
  static List<String> wrap(List<String> command) {
    String line = command.stream().map(Volumes::quote).collect(Collectors.joining(" "));
    return List.of("script", "--quiet", "--return", "--command", line, "/dev/null");
  }

  @Override
  public InputStream stderr() {
    return null;
  }

  @Override
  public void resize(int width, int height) {
    if (width <= 0 || height <= 0) {
      return;
    }
    Optional<Path> terminal = terminal();
    if (terminal.isEmpty()) {
      return;
    }
    try {
      Process stty =
          new ProcessBuilder(
                  "stty",
                  "-F",
                  terminal.get().toString(),
                  "rows",
                  Integer.toString(height),
                  "cols",
                  Integer.toString(width))
              .redirectErrorStream(true)
              .start();
      stty.getInputStream().readAllBytes();
      stty.waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      LOG.debug("cannot resize {}", terminal.get(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The command's terminal, as {@code /proc/<pid>/fd/0} of the first descendant whose stdin is a
   * pseudo-terminal: in a sandbox, {@code script} runs inside the container's namespaces, and the
   * name {@code /dev/pts/N} is the container's, not the host's; the {@code /proc} link opens the
   * terminal itself. Its child may take a moment to start.
   */
  private Optional<Path> terminal() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (process.isAlive() && System.nanoTime() < deadline) {
      Optional<Path> found =
          process
              .descendants()
              .map(child -> Path.of("/proc", Long.toString(child.pid()), "fd", "0"))
              .flatMap(
                  fd -> {
                    try {
                      return Files.readSymbolicLink(fd).toString().startsWith("/dev/pts/")
                          ? Stream.of(fd)
                          : Stream.empty();
                    } catch (IOException e) {
                      return Stream.empty();
                    }
                  })
              .findFirst();
      if (found.isPresent()) {
        return found;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
