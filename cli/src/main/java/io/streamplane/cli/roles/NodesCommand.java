package io.streamplane.cli.roles;

import io.streamplane.node.NodeFleet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane nodes}: a fleet of nodes in one process ({@code <prefix>0 .. <prefix>N-1}),
 * sharing one HTTP client and one bindings consumer, their lease renewals spread over the 10 s
 * period.
 */
@Command(
    name = "nodes",
    mixinStandardHelpOptions = true,
    description = "A fleet of node workers in one process (simulated by default).")
public final class NodesCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Mixin NodeWorkerOptions node;

  @Mixin MetricsOptions metrics;

  @Option(names = "--count", required = true, description = "How many nodes.")
  int count;

  @Option(
      names = "--name-prefix",
      defaultValue = "sim-",
      description = "Node names are this prefix and a number (default: ${DEFAULT-VALUE}).")
  String namePrefix;

  @Override
  public Integer call() throws Exception {
    String refusal = node.refusal("nodes");
    if (refusal != null) {
      System.err.println(refusal);
      return 2;
    }
    if (count < 1 || count > 65_536) {
      System.err.println("streamplane nodes: --count must be between 1 and 65536.");
      return 2;
    }
    return node.run(
        "nodes",
        cluster,
        metrics,
        NodeFleet.numbered(
            namePrefix, count, node.template(namePrefix + "0"), node.choice().loopback()),
        count + " nodes " + namePrefix + "0.." + namePrefix + (count - 1));
  }
}
