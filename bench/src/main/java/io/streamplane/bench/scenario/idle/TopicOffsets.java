package io.streamplane.bench.scenario.idle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The end offsets of a cluster's topics: those named {@code <cluster>.*} (the log), {@code
 * <cluster>-*} (the Streams apps' repartition and changelog topics) and the broker's own {@code
 * __consumer_offsets} and {@code __transaction_state}, which offset commits and transactions write
 * to. An end offset counts records and, for transactional writers, commit markers.
 */
final class TopicOffsets {

  static final Set<String> BROKER_TOPICS = Set.of("__consumer_offsets", "__transaction_state");

  private final Admin admin;
  private final List<TopicPartition> partitions;

  private TopicOffsets(Admin admin, List<TopicPartition> partitions) {
    this.admin = admin;
    this.partitions = partitions;
  }

  static TopicOffsets of(Admin admin, String cluster) throws Exception {
    Set<String> names = new TreeSet<>();
    for (String name : admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get()) {
      if (name.startsWith(cluster + ".")
          || name.startsWith(cluster + "-")
          || BROKER_TOPICS.contains(name)) {
        names.add(name);
      }
    }
    if (names.stream().noneMatch(n -> n.startsWith(cluster + "."))) {
      throw new IllegalStateException(
          "the broker has no topic of cluster '" + cluster + "' (" + cluster + ".commands, ...)");
    }
    List<TopicPartition> partitions = new ArrayList<>();
    for (TopicDescription d : admin.describeTopics(names).allTopicNames().get().values()) {
      d.partitions().forEach(p -> partitions.add(new TopicPartition(d.name(), p.partition())));
    }
    return new TopicOffsets(admin, partitions);
  }

  /** Every partition's end offset now. */
  Map<TopicPartition, Long> end() throws ExecutionException, InterruptedException {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(p -> request.put(p, OffsetSpec.latest()));
    Map<TopicPartition, Long> offsets = new HashMap<>();
    admin.listOffsets(request).all().get().forEach((p, info) -> offsets.put(p, info.offset()));
    return offsets;
  }

  /** Per topic, the sum over its partitions of {@code to - from}. */
  static Map<String, Long> perTopic(Map<TopicPartition, Long> from, Map<TopicPartition, Long> to) {
    Map<String, Long> sums = new TreeMap<>();
    to.forEach((p, end) -> sums.merge(p.topic(), end - from.getOrDefault(p, end), Long::sum));
    return sums;
  }
}
