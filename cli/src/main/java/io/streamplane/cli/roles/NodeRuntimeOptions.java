package io.streamplane.cli.roles;

import io.streamplane.node.KubeletConfig;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.RuntimeChoice;
import io.streamplane.node.runtime.PodRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * What every command running nodes shares ({@code node}, {@code nodes} and {@code up}): the size
 * each node reports, the process runtime's directory and crash-loop back-off, and the simulated
 * runtime's delays. The runtime itself ({@code --runtime}) is each command's own option, as its
 * default differs: {@code up} runs real processes, {@code node} and {@code nodes} simulate.
 */
public final class NodeRuntimeOptions {

  @Option(
      names = "--cpu",
      defaultValue = "4",
      description = "CPU capacity of each node (default: ${DEFAULT-VALUE}).")
  String cpu;

  @Option(
      names = "--memory",
      defaultValue = "8Gi",
      description = "Memory capacity of each node (default: ${DEFAULT-VALUE}).")
  String memory;

  @Option(
      names = "--pods",
      defaultValue = "110",
      description = "Pod capacity of each node (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(
      names = "--root-dir",
      description =
          "Where the process runtime keeps pod directories and logs; a node starting on it kills"
              + " what a previous node left running there, so nodes must not share one (default:"
              + " .streamplane/nodes/<node name>, the first node's for a fleet; <state-dir>/pods"
              + " for up).")
  Path rootDir;

  @Option(
      names = "--crash-loop-back-off",
      defaultValue = "PT10S",
      description =
          "First back-off before restarting a crashed container again, ISO-8601; doubles per"
              + " restart up to 5 minutes (default: ${DEFAULT-VALUE}).")
  Duration crashLoopBackOff;

  @Option(
      names = "--simulated-start-delay",
      defaultValue = "PT0.5S",
      description =
          "Simulated runtime: how long a pod takes to start, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration simulatedStartDelay;

  @Option(
      names = "--simulated-stop-delay",
      defaultValue = "PT0.1S",
      description =
          "Simulated runtime: how long a pod takes to stop, at most its grace period, ISO-8601"
              + " (default: ${DEFAULT-VALUE}).")
  Duration simulatedStopDelay;

  /** Null when {@code runtime} names a runtime, else the message to print before exiting 2. */
  public static String refusal(String role, String runtime) {
    return RuntimeChoice.named(runtime).isPresent()
        ? null
        : "streamplane " + role + ": unknown runtime '" + runtime + "' (process or simulated).";
  }

  /** The options of a node named {@code name}: its size, and a pod CIDR from its name. */
  public NodeOptions template(RuntimeChoice choice, String name) {
    return NodeOptions.defaults(name)
        .withPodCIDR(choice.cidrForName(name))
        .withSize(cpu, memory, pods);
  }

  /** The runtime factory, pods under {@code --root-dir} or else {@code defaultRoot}. */
  public Function<ScheduledExecutorService, PodRuntime> factory(
      RuntimeChoice choice, Path defaultRoot) {
    return choice.factory(
        rootDir != null ? rootDir : defaultRoot, simulatedStartDelay, simulatedStopDelay);
  }

  /** The runtime's root: {@code --root-dir}, or else {@code defaultRoot}. */
  public Path root(Path defaultRoot) {
    return (rootDir != null ? rootDir : defaultRoot).toAbsolutePath();
  }

  public KubeletConfig kubelet(RuntimeChoice choice) {
    return choice.kubelet().withBackOffBase(crashLoopBackOff);
  }
}
