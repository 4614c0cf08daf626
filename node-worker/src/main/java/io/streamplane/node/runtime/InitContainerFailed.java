package io.streamplane.node.runtime;

import java.util.List;

/**
 * A start that ended because an init container could not start or exited non-zero: how each init
 * container that ran ended, the failed one last, so the node can report them ({@code Init:Error}).
 */
public final class InitContainerFailed extends RuntimeException {

  private final transient List<RuntimeContainer> initContainers;

  public InitContainerFailed(String message, List<RuntimeContainer> initContainers) {
    super(message);
    this.initContainers = List.copyOf(initContainers);
  }

  /** The init containers that ran, in order, the failed one last. */
  public List<RuntimeContainer> initContainers() {
    return initContainers;
  }
}
