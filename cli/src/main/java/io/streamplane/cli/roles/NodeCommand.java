package io.streamplane.cli.roles;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane node}: one node worker (the kubelet) registering with a gateway and running
 * the pods bound to it.
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = "One node worker (the kubelet): registers a Node and runs its pods.")
public final class NodeCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Mixin NodeWorkerOptions node;

  @Mixin MetricsOptions metrics;

  @Option(names = "--name", required = true, description = "The node's name.")
  String name;

  @Option(
      names = "--pod-cidr",
      description = "The node's pod CIDR, an IPv4 a.b.c.0/24 (default: derived from the name).")
  String podCIDR;

  @Override
  public Integer call() throws Exception {
    String refusal = node.refusal("node");
    if (refusal != null) {
      System.err.println(refusal);
      return 2;
    }
    var options = node.template(name);
    if (podCIDR != null) {
      options = options.withPodCIDR(podCIDR);
    }
    return node.run("node", cluster, metrics, List.of(options), "node " + name);
  }
}
