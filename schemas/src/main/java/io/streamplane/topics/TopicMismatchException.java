package io.streamplane.topics;

import java.util.List;

/** The broker's topics disagree with the layout in a way Streamplane cannot repair by itself. */
public final class TopicMismatchException extends RuntimeException {

  private final List<String> problems;

  public TopicMismatchException(List<String> problems) {
    super(
        "the cluster's topics do not match the configuration:\n  - "
            + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
