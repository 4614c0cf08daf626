package io.streamplane.node.runtime.process;

import io.streamplane.api.Container;
import io.streamplane.api.VolumeMount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the process runtime runs a container in a Linux sandbox of its own, with util-linux tools run
 * as OS processes (no native code in the node).
 *
 * <p>Contract: {@link #container} is the command line of a container: {@code unshare} makes new
 * PID, mount, UTS and IPC namespaces (not a network one: pods keep the host's network and their
 * loopback IPs); in them a setup shell, PID 1, joins the container's control groups, mounts the
 * container's root — an overlay whose lower layer is a skeleton the node made ({@code
 * <root>/.sandbox/base}: empty {@code /tmp}, {@code /var}, {@code /root}... and the host's {@code
 * /bin -> usr/bin} links) and whose upper layer is {@code <containerDir>/rootfs/upper}, with the
 * host's {@code /usr} and {@code /etc} as read-only lower layers of overlays of their own (secrets
 * of the host's {@code /etc} masked) — and {@code pivot_root}s into it, then mounts a fresh {@code
 * /proc} (its {@code sys} read-only), a {@code /dev} of {@code null}, {@code zero}, {@code full},
 * {@code random}, {@code urandom}, {@code tty}, a new {@code pts} instance and {@code shm}, a tmpfs
 * {@code /tmp}, each volume at its {@code mountPath}, and the image's own files read-only; sets the
 * hostname; detaches the host's root; makes the root read-only for {@code readOnlyRootFilesystem};
 * and {@code exec}s {@code setpriv}, which takes the container's user, groups and capabilities
 * ({@link ContainerSecurity}) and runs a shell that runs the command in the working directory as
 * its child and exits with its exit code. That shell stays PID 1, so a SIGTERM reaches the command
 * (a PID 1 ignores signals it has no handler for) and the namespace dies with the command. Once the
 * setup is done the shell writes {@code ready} to {@code <containerDir>/rootfs/ready}; {@link
 * #enter} (exec, probes, cp) waits for it, then enters the namespaces of the container's PID 1 with
 * {@code nsenter} as the same user.
 *
 * <p>{@link #detect} checks what the node has: root, the tools, and an overlay mount; without an
 * overlay (a kernel or file system that refuses it) the root is a plain directory of the container
 * and {@code /usr} and {@code /etc} the host's, read-only. Without the rest there is no sandbox:
 * {@link #unavailable} says why.
 *
 * <p>Limits: each container has its own PID, UTS and IPC namespaces ({@code shareProcessNamespace}
 * is not honoured, and containers of a pod do not share IPC); no user namespace (root in a
 * container is root on the host, held by its bounding set, its mount namespace and its PID
 * namespace); no seccomp or AppArmor profile; no {@code /sys}; the host's network.
 */
final class LinuxSandbox {

  private static final Logger LOG = LoggerFactory.getLogger(LinuxSandbox.class);

  /** Directories of the host a container sees (read-only lower layers), when they are not links. */
  private static final List<String> SYSTEM_DIRS =
      List.of("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32");

  /** Files and directories of the host's {@code /etc} a container must not read. */
  private static final List<String> MASKED_FILES =
      List.of("etc/shadow", "etc/shadow-", "etc/gshadow", "etc/gshadow-", "etc/krb5.keytab");

  private static final List<String> MASKED_DIRS = List.of("etc/ssh", "etc/ssl/private");

  private static final List<String> DEVICES =
      List.of("null", "zero", "full", "random", "urandom", "tty");

  private static final String INIT = "cd \"$0\" || exit 126; \"$@\"; exit $?";

  private static final String ENTER = "cd \"$0\" || exit 126; exec \"$@\"";

  private final Optional<String> unavailable;
  private final boolean overlay;
  private final Path base;
  private final List<String> systemDirs;

  private LinuxSandbox(
      Optional<String> unavailable, boolean overlay, Path base, List<String> systemDirs) {
    this.unavailable = unavailable;
    this.overlay = overlay;
    this.base = base;
    this.systemDirs = systemDirs;
  }

  /** What this node can do, with the skeleton root made under {@code <root>/.sandbox}. */
  static LinuxSandbox detect(Path root) {
    Path base = root.toAbsolutePath().resolve(".sandbox").resolve("base");
    List<String> systemDirs = new ArrayList<>();
    try {
      if (!"0".equals(effectiveUid())) {
        return unavailable("the node does not run as root", base);
      }
      for (String tool : List.of("unshare", "nsenter", "setpriv", "pivot_root", "mount")) {
        if (Stream.of("/usr/bin", "/usr/sbin", "/bin", "/sbin")
            .noneMatch(dir -> Files.isExecutable(Path.of(dir, tool)))) {
          return unavailable("util-linux's " + tool + " is missing", base);
        }
      }
      Files.createDirectories(base);
      for (String dir :
          List.of("usr", "etc", "proc", "dev", "tmp", "var/tmp", "root", "home", "run", "mnt")) {
        Files.createDirectories(base.resolve(dir));
      }
      for (String dir : SYSTEM_DIRS) {
        Path host = Path.of("/", dir);
        Path copy = base.resolve(dir);
        if (Files.isSymbolicLink(host)) {
          Files.deleteIfExists(copy);
          Files.createSymbolicLink(copy, Files.readSymbolicLink(host));
        } else if (Files.isDirectory(host, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(copy);
          systemDirs.add(dir);
        }
      }
      boolean overlay = overlayWorks(root.toAbsolutePath().resolve(".sandbox"));
      if (!overlay) {
        LOG.warn(
            "the kernel refuses an overlay mount under {}: containers' roots are plain directories"
                + " and /usr and /etc the host's, read-only",
            root);
      }
      return new LinuxSandbox(Optional.empty(), overlay, base, List.copyOf(systemDirs));
    } catch (IOException | RuntimeException e) {
      return unavailable("cannot prepare the sandbox root: " + e.getMessage(), base);
    }
  }

  private static LinuxSandbox unavailable(String why, Path base) {
    LOG.error("pods cannot be sandboxed on this node: {}; their containers will not start", why);
    return new LinuxSandbox(Optional.of(why), false, base, List.of());
  }

  /** Why containers cannot be sandboxed here; empty when they can. */
  Optional<String> unavailable() {
    return unavailable;
  }

  boolean overlay() {
    return overlay;
  }

  private static String effectiveUid() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("Uid:")) {
        return line.substring(4).trim().split("\\s+")[1];
      }
    }
    return "";
  }

  /** Mounts an overlay in a throwaway mount namespace: true when the kernel allows it here. */
  private static boolean overlayWorks(Path dir) throws IOException {
    Path probe = dir.resolve("probe");
    deleteTree(probe);
    for (String sub : List.of("lower", "upper", "work", "merged")) {
      Files.createDirectories(probe.resolve(sub));
    }
    String mount =
        "mount -t overlay overlay -o lowerdir="
            + probe.resolve("lower")
            + ",upperdir="
            + probe.resolve("upper")
            + ",workdir="
            + probe.resolve("work")
            + " "
            + probe.resolve("merged");
    try {
      Process process =
          new ProcessBuilder(
                  "unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", mount)
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      boolean done = process.waitFor(10, TimeUnit.SECONDS);
      if (!done || process.exitValue() != 0) {
        LOG.info("overlay probe failed: {}", output.trim());
        return false;
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      deleteTree(probe);
    }
  }

  /** The directory of a container's writable layer; a new run starts from an empty one. */
  static Path layer(Path containerDir) {
    return containerDir.resolve("rootfs");
  }

  /**
   * The command line that runs {@code command} in a new sandbox for {@code container}, its writable
   * layer made afresh under {@code containerDir}; the setup joins {@code cgroupProcs} first.
   */
  List<String> container(
      Container container,
      ContainerSecurity security,
      String hostname,
      Map<String, Path> volumes,
      Map<String, Path> podFiles,
      List<Path> imageFiles,
      List<Path> cgroupProcs,
      Path containerDir,
      String workingDir,
      List<String> command)
      throws IOException {
    Path layer = layer(containerDir).toAbsolutePath();
    deleteTree(layer);
    List<String> overlays = new ArrayList<>(List.of("root"));
    overlays.addAll(systemDirs);
    for (String dir : overlays) {
      Files.createDirectories(layer.resolve("upper").resolve(dir));
      Files.createDirectories(layer.resolve("work").resolve(dir));
    }
    Path newRoot = Files.createDirectories(layer.resolve("root"));
    Path ready = layer.resolve("ready");
    Files.createFile(ready);

    String r = q(newRoot.toString());
    StringBuilder s = new StringBuilder();
    // The setup's own tools, wherever the container's PATH points; restored before the command.
    s.append("set -e\nP0=$PATH\nPATH=/usr/sbin:/usr/bin:/sbin:/bin\n");
    for (Path procs : cgroupProcs) {
      s.append("echo $$ > ").append(q(procs.toString())).append('\n');
    }
    s.append("exec 9>>").append(q(ready.toString())).append('\n');
    if (overlay) {
      s.append(overlayMount(base.toString(), layer, "root", r));
      for (String dir : systemDirs) {
        s.append(overlayMount("/" + dir, layer, dir, q(newRoot.resolve(dir).toString())));
      }
    } else {
      Path plain = layer.resolve("upper").resolve("root");
      s.append("cp -a ")
          .append(q(base + "/."))
          .append(' ')
          .append(q(plain.toString()))
          .append('\n');
      s.append("mount --bind ").append(q(plain.toString())).append(' ').append(r).append('\n');
      for (String dir : systemDirs) {
        String target = q(newRoot.resolve(dir).toString());
        s.append("mount --bind /").append(dir).append(' ').append(target).append('\n');
        s.append("mount -o remount,bind,ro ").append(target).append('\n');
      }
    }
    s.append("mkdir -p ").append(r).append("/.oldroot\ncd ").append(r).append('\n');
    s.append("pivot_root . .oldroot\ncd /\n");
    s.append("mount -t proc -o nosuid,nodev,noexec proc /proc\n");
    s.append("mount -t tmpfs -o mode=755,nosuid tmpfs /dev\n");
    for (String device : DEVICES) {
      s.append(": > /dev/").append(device).append("\nmount --bind /.oldroot/dev/");
      s.append(device).append(" /dev/").append(device).append('\n');
    }
    s.append("mkdir /dev/pts /dev/shm\n");
    s.append("mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts\n");
    s.append("ln -s pts/ptmx /dev/ptmx\nln -s /proc/self/fd /dev/fd\n");
    s.append("ln -s /proc/self/fd/0 /dev/stdin\nln -s /proc/self/fd/1 /dev/stdout\n");
    s.append("ln -s /proc/self/fd/2 /dev/stderr\n");
    s.append("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm\n");
    s.append("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp\n");
    for (String file : MASKED_FILES) {
      s.append("if [ -e /").append(file).append(" ]; then mount --bind /dev/null /");
      s.append(file).append("; fi\n");
    }
    for (String dir : MASKED_DIRS) {
      s.append("if [ -d /").append(dir).append(" ]; then mount -t tmpfs -o ro,mode=755 tmpfs /");
      s.append(dir).append("; fi\n");
    }
    for (Path file : imageFiles) {
      String target = q(file.toAbsolutePath().toString());
      s.append("mkdir -p ").append(target).append("\nmount --bind ");
      s.append(q("/.oldroot" + file.toAbsolutePath())).append(' ').append(target).append('\n');
      s.append("mount -o remount,bind,ro ").append(target).append('\n');
    }
    // The pod's /etc/hosts and /etc/resolv.conf over the host's (a symbolic link, such as
    // systemd-resolved's resolv.conf, is replaced by a file first).
    for (var file : podFiles.entrySet()) {
      String target = q(file.getKey());
      s.append("if [ -L ").append(target).append(" ] || [ ! -e ").append(target).append(" ]; then");
      s.append(" rm -f ").append(target).append("; : > ").append(target).append("; fi\n");
      s.append("mount --bind ").append(q("/.oldroot" + file.getValue().toAbsolutePath()));
      s.append(' ').append(target).append('\n');
    }
    List<VolumeMount> mounts =
        container.getVolumeMounts() == null ? List.of() : container.getVolumeMounts();
    for (VolumeMount mount : mounts) {
      Path volume = volumes.get(mount.getName());
      if (volume == null) {
        throw new IllegalStateException(
            "container " + container.getName() + " mounts unknown volume " + mount.getName());
      }
      Path source =
          mount.getSubPath() == null || mount.getSubPath().isEmpty()
              ? volume
              : volume.resolve(mount.getSubPath());
      String target = q(mount.getMountPath());
      if (Files.isDirectory(source)) {
        s.append("mkdir -p ").append(target).append('\n');
      } else {
        s.append("mkdir -p \"$(dirname ").append(target).append(")\"; [ -e ").append(target);
        s.append(" ] || : > ").append(target).append('\n');
      }
      s.append("mount --bind ").append(q("/.oldroot" + source.toAbsolutePath()));
      s.append(' ').append(target).append('\n');
      if (Boolean.TRUE.equals(mount.getReadOnly())) {
        s.append("mount -o remount,bind,ro ").append(target).append('\n');
      }
    }
    s.append("echo ").append(q(hostname)).append(" > /proc/sys/kernel/hostname\n");
    s.append("mkdir -p ").append(q(workingDir)).append('\n');
    if (!security.privileged()) {
      s.append("mount --bind /proc/sys /proc/sys\nmount -o remount,bind,ro /proc/sys\n");
      s.append(
          "if [ -e /proc/sysrq-trigger ]; then mount --bind /dev/null /proc/sysrq-trigger; fi\n");
    }
    s.append("umount -l /.oldroot\nrmdir /.oldroot\n");
    if (security.readOnlyRootFilesystem()) {
      s.append("mount -o remount,bind,ro /\n");
      for (String dir : systemDirs) {
        s.append("mount -o remount,bind,ro /").append(dir).append('\n');
      }
    }
    s.append("echo ready >&9\nexec 9>&-\nPATH=$P0\nexec \"$@\"\n");

    List<String> line = new ArrayList<>();
    line.addAll(
        List.of(
            "unshare",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount",
            "--uts",
            "--ipc",
            "--propagation",
            "private",
            "/bin/sh",
            "-c",
            s.toString(),
            "streamplane-sandbox"));
    line.add("setpriv");
    line.addAll(security.setprivArguments());
    line.addAll(List.of("--", "/bin/sh", "-c", INIT, workingDir));
    line.addAll(command);
    return line;
  }

  private static String overlayMount(String lower, Path layer, String dir, String target) {
    return "mount -t overlay overlay -o "
        + q(
            "lowerdir="
                + lower
                + ",upperdir="
                + layer.resolve("upper").resolve(dir)
                + ",workdir="
                + layer.resolve("work").resolve(dir))
        + " "
        + target
        + "\n";
  }

  /**
   * The command line that runs {@code command} in the sandbox whose PID 1 is {@code initPid}, as
   * the container's user, in {@code workingDir}.
   */
  static List<String> enter(
      long initPid, ContainerSecurity security, String workingDir, List<String> command) {
    List<String> line = new ArrayList<>();
    line.addAll(
        List.of(
            "nsenter",
            "--target",
            Long.toString(initPid),
            "--mount",
            "--pid",
            "--uts",
            "--ipc",
            "--",
            "setpriv"));
    line.addAll(security.setprivArguments());
    line.addAll(List.of("--", "/bin/sh", "-c", ENTER, workingDir));
    line.addAll(command);
    return line;
  }

  /** True once the setup of the sandbox whose layer is under {@code containerDir} is done. */
  static boolean ready(Path containerDir) {
    try {
      return Files.size(layer(containerDir).resolve("ready")) > 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** Removes a container's writable layer (its sandbox's mounts are gone with its namespace). */
  static void remove(Path containerDir) {
    try {
      deleteTree(layer(containerDir));
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("cannot remove the layer of {}: {}", containerDir, e.toString());
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }

  private static String q(String text) {
    return Volumes.quote(text);
  }
}
