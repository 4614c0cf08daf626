package io.streamplane.node.runtime.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Containers' resource limits as Linux control groups, where the OS lets this process make them:
 * one group per container run, {@code streamplane/<id>}, with the memory limit ({@code
 * memory.limit_in_bytes}, cgroup v1; {@code memory.max}, v2) and the CPU limit as a CFS quota per
 * 100 ms period ({@code cpu.cfs_quota_us}; {@code cpu.max}). A process exceeding its memory limit
 * is killed by the kernel's OOM killer, which the group counts, so its exit reads {@code
 * OOMKilled}.
 *
 * <p>Limits: {@link #detect} answers empty when the cgroup file system is not writable (not root,
 * read-only mount): containers then run unlimited. An unsandboxed container's process joins its
 * group just after it started, so what it forks in its first instants is not limited; a sandboxed
 * one joins before it runs anything ({@link #prepare}). Requests are not enforced (no CPU shares),
 * as most single-node setups of Kubernetes.
 */
final class Cgroups {

  private static final Logger LOG = LoggerFactory.getLogger(Cgroups.class);
  private static final long CPU_PERIOD_US = 100_000;
  private static final String PARENT = "streamplane";

  private final Path root;
  private final boolean unified;

  private Cgroups(Path root, boolean unified) {
    this.root = root;
    this.unified = unified;
  }

  /** The cgroup file system under {@code root} if this process can make groups in it. */
  static Optional<Cgroups> detect(Path root) {
    boolean unified = Files.exists(root.resolve("cgroup.controllers"));
    Path probe = unified ? root.resolve(PARENT) : root.resolve("memory").resolve(PARENT);
    try {
      Files.createDirectories(probe);
      if (unified) {
        Files.writeString(root.resolve("cgroup.subtree_control"), "+memory +cpu");
        Files.writeString(probe.resolve("cgroup.subtree_control"), "+memory +cpu");
      } else {
        Files.createDirectories(root.resolve("cpu").resolve(PARENT));
      }
      return Optional.of(new Cgroups(root, unified));
    } catch (IOException | RuntimeException e) {
      LOG.info("no resource limits: cannot make control groups under {} ({})", root, e.toString());
      return Optional.empty();
    }
  }

  /**
   * Puts {@code pid} in a new group {@code id} limited to {@code memoryBytes} and {@code cpuMillis}
   * (0: no limit). Nothing is made when both are 0. False when the kernel refused.
   */
  boolean limit(String id, long pid, long memoryBytes, long cpuMillis) {
    try {
      for (Path procs : prepare(id, memoryBytes, cpuMillis)) {
        Files.writeString(procs, Long.toString(pid));
      }
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot limit process {} ({}): {}", pid, id, e.toString());
      return false;
    }
  }

  /**
   * Makes group {@code id} limited to {@code memoryBytes} and {@code cpuMillis} (0: no limit) and
   * answers the {@code cgroup.procs} files a process writes its pid to, to join it (one per
   * hierarchy); none when both are 0. A sandboxed container's setup joins them before it starts
   * anything, so nothing of the container runs outside its group.
   */
  List<Path> prepare(String id, long memoryBytes, long cpuMillis) throws IOException {
    if (memoryBytes <= 0 && cpuMillis <= 0) {
      return List.of();
    }
    if (unified) {
      Path group = Files.createDirectories(root.resolve(PARENT).resolve(id));
      if (memoryBytes > 0) {
        Files.writeString(group.resolve("memory.max"), Long.toString(memoryBytes));
      }
      if (cpuMillis > 0) {
        Files.writeString(
            group.resolve("cpu.max"), cpuMillis * CPU_PERIOD_US / 1000 + " " + CPU_PERIOD_US);
      }
      return List.of(group.resolve("cgroup.procs"));
    }
    List<Path> procs = new ArrayList<>();
    if (memoryBytes > 0) {
      Path memory = Files.createDirectories(root.resolve("memory").resolve(PARENT).resolve(id));
      Files.writeString(memory.resolve("memory.limit_in_bytes"), Long.toString(memoryBytes));
      procs.add(memory.resolve("cgroup.procs"));
    }
    if (cpuMillis > 0) {
      Path cpu = Files.createDirectories(root.resolve("cpu").resolve(PARENT).resolve(id));
      Files.writeString(cpu.resolve("cpu.cfs_period_us"), Long.toString(CPU_PERIOD_US));
      Files.writeString(
          cpu.resolve("cpu.cfs_quota_us"), Long.toString(cpuMillis * CPU_PERIOD_US / 1000));
      procs.add(cpu.resolve("cgroup.procs"));
    }
    return procs;
  }

  /** True when the kernel's OOM killer killed a process of group {@code id}. */
  boolean oomKilled(String id) {
    Path file =
        unified
            ? root.resolve(PARENT).resolve(id).resolve("memory.events")
            : root.resolve("memory").resolve(PARENT).resolve(id).resolve("memory.oom_control");
    try {
      for (String line : Files.readAllLines(file)) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length == 2 && fields[0].equals("oom_kill") && !fields[1].equals("0")) {
          return true;
        }
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
    return false;
  }

  /** Removes group {@code id} once its processes are gone (the kernel refuses otherwise). */
  void remove(String id) {
    List<Path> groups =
        unified
            ? List.of(root.resolve(PARENT).resolve(id))
            : List.of(
                root.resolve("memory").resolve(PARENT).resolve(id),
                root.resolve("cpu").resolve(PARENT).resolve(id));
    for (Path group : groups) {
      try {
        Files.deleteIfExists(group);
      } catch (IOException | RuntimeException e) {
        LOG.debug("cannot remove {}: {}", group, e.toString());
      }
    }
  }
}
