package io.streamplane.e2e;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test class runs on a cluster of the given shape that it shares with the other classes of that
 * shape: its {@code @BeforeAll} method takes a {@link LocalCluster} parameter, and neither stops
 * nor deletes it. {@link ClusterOrder} runs the classes of a shape one after another, and {@link
 * SharedClusters} keeps one cluster alive at a time, started when the first class of its shape asks
 * for it and stopped when a class asks for another shape or the run ends.
 *
 * <p>The classes of a shape see each other's objects: each makes its own names or namespaces,
 * cleans up the nodes it adds, and asserts nothing about what another class could change.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(SharedClusters.class)
@interface SharedCluster {

  Shape value();

  /** The arguments of {@code up} and the JVM options of a shared cluster. */
  enum Shape {
    /**
     * One node with the process runtime; node metrics every 2 s for {@code kubectl top}, and the
     * autoscaler's sync every 3 s.
     */
    ONE_PROCESS_NODE(
        " -Dstreamplane.metric-resolution=PT2S"
            + " -Dstreamplane.horizontal-pod-autoscaler-sync-period=PT3S",
        "--nodes",
        "1",
        "--runtime",
        "process"),
    /** Two nodes with the process runtime. */
    TWO_PROCESS_NODES("", "--nodes", "2", "--runtime", "process"),
    /**
     * Two nodes with the simulated runtime; node metrics and the autoscaler's sync every 2 s, as
     * the autoscaling tests need.
     */
    TWO_SIMULATED_NODES(
        " -Dstreamplane.metric-resolution=PT2S"
            + " -Dstreamplane.horizontal-pod-autoscaler-sync-period=PT2S",
        "--nodes",
        "2",
        "--runtime",
        "simulated");

    final String javaOptions;
    final List<String> upArguments;

    Shape(String javaOptions, String... upArguments) {
      this.javaOptions = javaOptions;
      this.upArguments = List.of(upArguments);
    }
  }
}
