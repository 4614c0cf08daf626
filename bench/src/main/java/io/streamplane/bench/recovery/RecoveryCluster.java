package io.streamplane.bench.recovery;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.metrics.Scrape;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A cluster a recovery run kills part of: {@link UpCluster} (the whole {@code streamplane up}) or
 * {@link RoleCluster} (one process of the multi-process cluster). The run kills its victim with
 * SIGKILL, starts it again with the command line it was started with, and asks when it is ready.
 */
interface RecoveryCluster extends AutoCloseable {

  /** The cluster in a sentence, for the report. */
  String description();

  /** A client of the API the workload and the checks use, as the cluster's administrator. */
  KubeClient admin();

  /** Whether the cluster serves further runs after this one (else a run's namespace is left). */
  default boolean reused() {
    return true;
  }

  /** The Kafka cluster, for the broker's view of lag. */
  String bootstrapServers();

  /** Partitions of the log: ConfigMaps are spread over them by key. */
  int partitions();

  /** A scrape of every process serving {@code /metrics} now, by name; those down are left out. */
  Map<String, Scrape> scrape();

  /** SIGKILL to the victim (a whole process group for {@code up}). */
  void kill(String victim) throws IOException;

  /** Starts the victim again as it was first started. */
  void restart(String victim) throws IOException;

  /** Whether the restarted victim does its job again; see the implementations. */
  boolean ready(String victim);

  /** The victim's log and where its restart begins in it, for {@link StallSignatures}. */
  LogStart log(String victim);

  /** A log file and the byte offset at which the lines of interest begin. */
  record LogStart(Path file, long offset) {}

  @Override
  void close();
}
