package io.streamplane.node.runtime;

import io.streamplane.api.Pod;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * What a node needs from a container runtime: the Streamplane analogue of the CRI's
 * RunPodSandbox/CreateContainer/StartContainer, ContainerStatus and StopPodSandbox, folded into
 * three calls on whole pods.
 *
 * <p>Contract: {@code start} completes when every container of the pod has started (or fails with
 * the reason it could not); the node has already chosen the pod's IP. {@code status} answers from
 * the runtime's own bookkeeping without blocking. {@code stop} completes when nothing of the pod is
 * left running, at the latest after {@code grace}; stopping an unknown sandbox completes at once.
 * Implementations are thread-safe and never block the caller: long work completes the returned
 * future later.
 *
 * <p>Limits: no init containers, hooks, probes or restarts yet at this level; those belong to the
 * {@code process} runtime slice of issue #6.
 */
public interface PodRuntime extends AutoCloseable {

  /** The runtime's name and version, as Kubernetes shows it: {@code name://version}. */
  String version();

  /** The operating system image the node reports (Node {@code status.nodeInfo.osImage}). */
  String osImage();

  /** Starts every container of {@code pod} in a new sandbox reachable at {@code podIP}. */
  CompletableFuture<PodSandbox> start(Pod pod, String podIP);

  /** The current state of a sandbox this runtime started. */
  PodSandbox status(PodSandbox sandbox);

  /** Stops a sandbox's containers, waiting at most {@code grace} for them to exit. */
  CompletableFuture<Void> stop(PodSandbox sandbox, Duration grace);

  @Override
  void close();
}
