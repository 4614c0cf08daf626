package io.streamplane.bench.scenario;

import io.streamplane.bench.load.KubeClient;

/** One load scenario: it drives the API server (and maybe Kafka) and says what it measured. */
public interface Scenario {

  /** The scenario's name: the default report name and the JSON's {@code scenario}. */
  String name();

  /** Whether the scenario cannot run without an API server (false: it uses one if there is). */
  default boolean needsApiServer() {
    return true;
  }

  /**
   * Runs the scenario. {@code client} is null only when {@link #needsApiServer} is false and no
   * kubeconfig was found. Exceptions end the run without a report.
   */
  Outcome run(KubeClient client) throws Exception;
}
