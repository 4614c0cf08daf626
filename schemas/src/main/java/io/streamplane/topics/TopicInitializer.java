package io.streamplane.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Makes the broker's topics match a list of {@link TopicSpec}s, idempotently: creates the missing
 * ones, sets topic configs that differ, and refuses (with {@link TopicMismatchException}) what it
 * cannot repair — a different partition count, which would move keys between partitions, or a
 * different replication factor. Safe to run from several processes at once.
 */
public final class TopicInitializer {

  /** What one run did: the topics it created and the configs it changed. */
  public record Outcome(List<String> created, List<String> reconfigured) {}

  private static final Duration METADATA_WAIT = Duration.ofSeconds(30);

  private final Admin admin;

  public TopicInitializer(Admin admin) {
    this.admin = admin;
  }

  private static final Duration LEADERS_TIMEOUT = Duration.ofSeconds(30);

  public Outcome ensure(Collection<TopicSpec> specs) {
    try {
      Set<String> existing = admin.listTopics().names().get();
      List<String> created =
          create(specs.stream().filter(s -> !existing.contains(s.name())).toList());
      List<TopicSpec> present = specs.stream().filter(s -> existing.contains(s.name())).toList();
      checkLayout(present);
      List<String> reconfigured = reconfigure(present);
      return new Outcome(created, reconfigured);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while initializing topics", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot initialize topics: " + e.getCause().getMessage(), e);
    }
  }

  private List<String> create(List<TopicSpec> missing)
      throws InterruptedException, ExecutionException {
    List<String> created = new ArrayList<>();
    if (missing.isEmpty()) {
      return created;
    }
    var result =
        admin.createTopics(
            missing.stream()
                .map(
                    s ->
                        new NewTopic(s.name(), s.partitions(), s.replicationFactor())
                            .configs(s.configs()))
                .toList());
    for (var entry : result.values().entrySet()) {
      try {
        entry.getValue().get();
        created.add(entry.getKey());
      } catch (ExecutionException e) {
        // Another process created it between our listing and our request; checked below.
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
    checkLayout(missing);
    awaitLeaders(missing);
    return created;
  }

  /**
   * Waits until the broker hosting each new partition serves it. A producer that writes to a
   * partition the controller has created but its leader does not host yet gets an error for a batch
   * the leader may still append, and the idempotent producer's retry of that batch is then refused
   * as out of order, again and again: writers start only after every partition answers a
   * ListOffsets, which its leader alone serves.
   */
  private void awaitLeaders(List<TopicSpec> created) throws InterruptedException {
    Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
    for (TopicSpec spec : created) {
      for (int p = 0; p < spec.partitions(); p++) {
        partitions.put(new TopicPartition(spec.name(), p), OffsetSpec.latest());
      }
    }
    long deadline = System.nanoTime() + LEADERS_TIMEOUT.toNanos();
    while (true) {
      try {
        admin.listOffsets(partitions).all().get();
        return;
      } catch (ExecutionException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the new topics' partitions have no serving leader after "
                  + LEADERS_TIMEOUT.toSeconds()
                  + " s: "
                  + e.getCause().getMessage(),
              e);
        }
        Thread.sleep(100);
      }
    }
  }

  private void checkLayout(List<TopicSpec> specs) throws InterruptedException, ExecutionException {
    if (specs.isEmpty()) {
      return;
    }
    Map<String, TopicDescription> described = describe(specs);
    List<String> problems = new ArrayList<>();
    for (TopicSpec spec : specs) {
      TopicDescription description = described.get(spec.name());
      int partitions = description.partitions().size();
      if (partitions != spec.partitions()) {
        problems.add(
            spec.name()
                + " has "
                + partitions
                + " partitions but "
                + spec.partitions()
                + " are configured; keyed topics cannot be repartitioned in place, so configure "
                + partitions
                + " or start a new cluster");
      }
      int replicas = description.partitions().get(0).replicas().size();
      if (replicas != spec.replicationFactor()) {
        problems.add(
            spec.name()
                + " has replication factor "
                + replicas
                + " but "
                + spec.replicationFactor()
                + " is configured; reassign its partitions with Kafka's tools first");
      }
    }
    if (!problems.isEmpty()) {
      throw new TopicMismatchException(problems);
    }
  }

  /**
   * Describes the topics, waiting while the broker has not yet learnt of a topic just created (here
   * or by another process): its metadata arrives a moment after the controller answered.
   */
  private Map<String, TopicDescription> describe(List<TopicSpec> specs)
      throws InterruptedException, ExecutionException {
    long deadline = System.nanoTime() + METADATA_WAIT.toNanos();
    while (true) {
      try {
        return admin
            .describeTopics(specs.stream().map(TopicSpec::name).toList())
            .allTopicNames()
            .get();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private List<String> reconfigure(List<TopicSpec> specs)
      throws InterruptedException, ExecutionException {
    if (specs.isEmpty()) {
      return List.of();
    }
    Map<ConfigResource, TopicSpec> resources =
        specs.stream()
            .collect(
                Collectors.toMap(
                    s -> new ConfigResource(ConfigResource.Type.TOPIC, s.name()), s -> s));
    Map<ConfigResource, Config> actual = admin.describeConfigs(resources.keySet()).all().get();
    Map<ConfigResource, Collection<AlterConfigOp>> changes = new HashMap<>();
    List<String> reconfigured = new ArrayList<>();
    for (var entry : resources.entrySet()) {
      Config config = actual.get(entry.getKey());
      List<AlterConfigOp> ops = new ArrayList<>();
      entry
          .getValue()
          .configs()
          .forEach(
              (key, wanted) -> {
                ConfigEntry current = config.get(key);
                if (current == null || !wanted.equals(current.value())) {
                  ops.add(
                      new AlterConfigOp(new ConfigEntry(key, wanted), AlterConfigOp.OpType.SET));
                  reconfigured.add(entry.getValue().name() + " " + key + "=" + wanted);
                }
              });
      if (!ops.isEmpty()) {
        changes.put(entry.getKey(), ops);
      }
    }
    if (!changes.isEmpty()) {
      admin.incrementalAlterConfigs(changes).all().get();
    }
    return reconfigured;
  }
}
