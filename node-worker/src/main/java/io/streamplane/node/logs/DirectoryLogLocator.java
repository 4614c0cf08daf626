package io.streamplane.node.logs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * A {@link LogLocator} over the process runtime's layout on disk: {@code
 * <root>/<namespace>_<pod>_<uid>/<container>/<restartCount>.log}, the current attempt's file the
 * highest-numbered one and the previous attempt's the next lower one.
 *
 * <p>Which sandbox belongs to a pod: the one of the uid {@code podUid} gives (the node knows the
 * uid of the pod it runs now), or, when it gives none, the most recently modified sandbox directory
 * of that namespace and name. A sandbox without a directory or a file for the container means the
 * container has not started: waiting, {@code ContainerCreating}. Whether the current attempt still
 * runs is {@code running}'s answer, asked again during a follow.
 *
 * <p>Limits: from the files alone it cannot tell a container the pod does not have from one not
 * started yet (both read as waiting; the gateway checks names against the pod spec first).
 */
public final class DirectoryLogLocator implements LogLocator {

  /** Whether the current attempt of a container still runs: (namespace, pod, container). */
  @FunctionalInterface
  public interface Running {
    boolean running(String namespace, String pod, String container);
  }

  private final Path root;
  private final BiFunction<String, String, Optional<String>> podUid;
  private final Running running;

  public DirectoryLogLocator(
      Path root, BiFunction<String, String, Optional<String>> podUid, Running running) {
    this.root = root;
    this.podUid = podUid;
    this.running = running;
  }

  /** The sandbox directory of a pod attempt, as the process runtime names it. */
  public static Path sandboxDir(Path root, String namespace, String pod, String uid) {
    return root.resolve(namespace + "_" + pod + "_" + uid);
  }

  /** The log file of attempt {@code restartCount} of a container in a sandbox. */
  public static Path logFile(Path sandboxDir, String container, int restartCount) {
    return sandboxDir.resolve(container).resolve(restartCount + ".log");
  }

  @Override
  public Optional<ContainerLogs> locate(String namespace, String pod, String container) {
    Optional<Path> sandbox = sandbox(namespace, pod);
    if (sandbox.isEmpty()) {
      return Optional.empty();
    }
    List<Path> attempts = attempts(sandbox.get().resolve(container));
    if (attempts.isEmpty()) {
      return Optional.of(ContainerLogs.waiting("ContainerCreating", Optional.empty()));
    }
    Path current = attempts.get(attempts.size() - 1);
    Optional<Path> previous =
        attempts.size() > 1 ? Optional.of(attempts.get(attempts.size() - 2)) : Optional.empty();
    return Optional.of(
        ContainerLogs.files(current, previous, () -> running.running(namespace, pod, container)));
  }

  private Optional<Path> sandbox(String namespace, String pod) {
    Optional<String> uid = podUid.apply(namespace, pod);
    if (uid.isPresent()) {
      Path dir = sandboxDir(root, namespace, pod, uid.get());
      return Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    }
    String prefix = namespace + "_" + pod + "_";
    try (Stream<Path> dirs = Files.list(root)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith(prefix))
          // A uid has no "_", so "<ns>_<pod>_<uid>" is never mistaken for a pod named "<pod>_x".
          .filter(d -> d.getFileName().toString().indexOf('_', prefix.length()) < 0)
          .filter(Files::isDirectory)
          .max(Comparator.comparing(DirectoryLogLocator::modified));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The attempts' log files of a container directory, by restart count. */
  private static List<Path> attempts(Path containerDir) {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> entries = Files.list(containerDir)) {
      entries.filter(f -> restartCount(f) >= 0).forEach(files::add);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.sort(Comparator.comparingInt(DirectoryLogLocator::restartCount));
    return files;
  }

  private static int restartCount(Path file) {
    String name = file.getFileName().toString();
    if (!name.endsWith(".log")) {
      return -1;
    }
    try {
      return Integer.parseInt(name.substring(0, name.length() - ".log".length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static FileTime modified(Path dir) {
    try {
      return Files.getLastModifiedTime(dir);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }
}
