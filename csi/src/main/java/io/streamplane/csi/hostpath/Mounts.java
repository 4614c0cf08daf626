package io.streamplane.csi.hostpath;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How the host-path driver makes a volume's directory appear at a path the node chose: a bind mount
 * where this process may mount ({@link Mode#BIND}: root with the right to mount in its mount
 * namespace), else a symbolic link from the path to the directory ({@link Mode#SYMLINK}).
 *
 * <p>Contract: {@link #publish} makes {@code target} show {@code source} (replacing an empty
 * directory left there by the caller), read-only when asked and mounting; {@link #unpublish} undoes
 * it and removes {@code target}; both are idempotent. {@link #detect} probes once whether a bind
 * mount works here.
 *
 * <p>Limits: a symbolic link cannot be read-only; the container mounts of the node bind-mount the
 * link's destination, so the container sees the volume either way.
 */
public final class Mounts {

  /** How a volume is published. */
  public enum Mode {
    BIND,
    SYMLINK
  }

  private final Mode mode;

  public Mounts(Mode mode) {
    this.mode = mode;
  }

  public Mode mode() {
    return mode;
  }

  /** {@link Mode#BIND} when a bind mount of a scratch directory under {@code scratch} works. */
  public static Mode detect(Path scratch) {
    try {
      Path probe = Files.createTempDirectory(Files.createDirectories(scratch), "mount-probe");
      Path a = Files.createDirectories(probe.resolve("a"));
      Path b = Files.createDirectories(probe.resolve("b"));
      boolean ok = run(List.of("mount", "--bind", a.toString(), b.toString())) == null;
      if (ok) {
        run(List.of("umount", b.toString()));
      }
      Files.delete(a);
      Files.delete(b);
      Files.delete(probe);
      return ok ? Mode.BIND : Mode.SYMLINK;
    } catch (IOException e) {
      return Mode.SYMLINK;
    }
  }

  /** Makes {@code target} show {@code source}; a no-op when it already does. */
  public void publish(Path source, Path target, boolean readOnly) throws IOException {
    Files.createDirectories(target.getParent());
    if (mode == Mode.SYMLINK) {
      if (Files.isSymbolicLink(target)) {
        if (Files.readSymbolicLink(target).equals(source)) {
          return;
        }
        Files.delete(target);
      } else if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(target); // the empty directory the node made for the mount
      }
      Files.createSymbolicLink(target, source);
      return;
    }
    if (isMountPoint(target)) {
      return;
    }
    if (Files.isSymbolicLink(target)) {
      Files.delete(target);
    }
    Files.createDirectories(target);
    String failure = run(List.of("mount", "--bind", source.toString(), target.toString()));
    if (failure == null && readOnly) {
      failure = run(List.of("mount", "-o", "remount,bind,ro", target.toString()));
    }
    if (failure != null) {
      throw new IOException("bind mount of " + source + " at " + target + " failed: " + failure);
    }
  }

  /** Undoes {@link #publish}: unmounts or unlinks {@code target}, then removes it. */
  public void unpublish(Path target) throws IOException {
    if (Files.isSymbolicLink(target)) {
      Files.delete(target);
      return;
    }
    while (isMountPoint(target)) {
      String failure = run(List.of("umount", target.toString()));
      if (failure != null) {
        throw new IOException("unmount of " + target + " failed: " + failure);
      }
    }
    Files.deleteIfExists(target);
  }

  /** Whether {@code path} is the mount point of a mount of this process's namespace. */
  public static boolean isMountPoint(Path path) throws IOException {
    String wanted = path.toAbsolutePath().normalize().toString();
    Path mountinfo = Path.of("/proc/self/mountinfo");
    if (!Files.exists(mountinfo)) {
      return false;
    }
    for (String line : Files.readAllLines(mountinfo, StandardCharsets.UTF_8)) {
      String[] fields = line.split(" ");
      if (fields.length > 4 && unescape(fields[4]).equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  /** mountinfo escapes space, tab, newline and backslash as octal. */
  private static String unescape(String field) {
    return field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\");
  }

  /** Runs a command; null when it succeeded, else what it printed. */
  private static String run(List<String> command) {
    try {
      Process process =
          new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return String.join(" ", command) + ": timed out";
      }
      return process.exitValue() == 0 ? null : output.strip();
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted", e));
    }
  }
}
