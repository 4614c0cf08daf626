package io.streamplane.node;

import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.process.ProcessRuntime;
import io.streamplane.node.runtime.simulated.SimulatedRuntime;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * The runtimes a node can run, by the name {@code --runtime} takes, with what follows from the
 * choice: how the runtime is built, how often pods are synced, and where pod IPs come from.
 */
public enum RuntimeChoice {
  /** Real OS processes; pod IPs on the loopback network, so pods are reachable. */
  PROCESS("process", true, KubeletConfig.defaults()),
  /** kwok-style: phases advance, nothing runs; pod IPs from {@code 10.0.0.0/8}. */
  SIMULATED("simulated", false, KubeletConfig.simulated());

  private final String flag;
  private final boolean loopback;
  private final KubeletConfig kubelet;

  RuntimeChoice(String flag, boolean loopback, KubeletConfig kubelet) {
    this.flag = flag;
    this.loopback = loopback;
    this.kubelet = kubelet;
  }

  public static Optional<RuntimeChoice> named(String name) {
    return Arrays.stream(values()).filter(r -> r.flag.equals(name)).findFirst();
  }

  public String flag() {
    return flag;
  }

  public KubeletConfig kubelet() {
    return kubelet;
  }

  /** Builds the runtime; a process runtime keeps its pods' directories under {@code root}. */
  public Function<ScheduledExecutorService, PodRuntime> factory(Path root) {
    return factory(root, SimulatedRuntime.DEFAULT_START_DELAY, SimulatedRuntime.DEFAULT_STOP_DELAY);
  }

  /**
   * Builds the runtime: a process runtime keeps its pods' directories under {@code root}; a
   * simulated one starts pods after {@code startDelay} and stops them after {@code stopDelay}.
   */
  public Function<ScheduledExecutorService, PodRuntime> factory(
      Path root, Duration startDelay, Duration stopDelay) {
    return switch (this) {
      case PROCESS -> scheduler -> new ProcessRuntime(root.toAbsolutePath());
      case SIMULATED ->
          scheduler -> new SimulatedRuntime(scheduler, startDelay, stopDelay, Clock.systemUTC());
    };
  }

  /** The pod CIDR of a node known by its name only. */
  public String cidrForName(String name) {
    return loopback ? PodAddresses.loopbackCidrForName(name) : PodAddresses.cidrForName(name);
  }

  /** True when pod IPs are loopback addresses. */
  public boolean loopback() {
    return loopback;
  }
}
