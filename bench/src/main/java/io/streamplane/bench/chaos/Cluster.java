package io.streamplane.bench.chaos;

import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.util.List;

/**
 * The processes of a Streamplane control plane, as the fault injector sees them: a list of
 * instances (Kafka brokers and role instances) it can kill with SIGKILL, start again, and pause and
 * resume with SIGSTOP and SIGCONT. Implementations start the processes themselves ({@link
 * ProcessCluster}) or find them in a local cluster's run directory.
 */
public interface Cluster extends AutoCloseable {

  /**
   * One process of the cluster; {@code role} is {@code kafka}, {@code store}, {@code gateway}...
   */
  record Instance(String name, String role) {}

  List<Instance> instances();

  /** The Kubernetes API servers, one HTTPS URL per gateway. */
  List<String> apiServers();

  /** The administrator's client certificate, and the CA that signed the gateways' certificate. */
  ClusterPki.ClientIdentity identity();

  String bootstrapServers();

  /** Whether the instance's process is running (paused counts as running). */
  boolean alive(String name);

  /**
   * Whether the instance does its job again after a restart, as far as can be seen from outside: a
   * gateway answers {@code /readyz}; for the others, the process runs.
   */
  boolean serving(String name);

  /** SIGKILL: the process dies at once, without closing anything. */
  void kill(String name) throws IOException;

  /** Starts the instance again with the command line it was first started with. */
  void restart(String name) throws IOException;

  /** SIGSTOP: the process stops being scheduled, its sockets stay open (a long GC pause). */
  void pause(String name) throws IOException;

  /** SIGCONT after {@link #pause}. */
  void resume(String name) throws IOException;

  @Override
  void close();
}
