package io.streamplane.gateway.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a cluster holds, taken before and after a run of requests that must change nothing: how far
 * the {@code events} log goes, and every object of some lists with its resourceVersion.
 */
public final class StoredState {

  private static final ObjectMapper JSON = new ObjectMapper();

  private StoredState() {}

  /** A list request's answer: the body of a 200, anything else fails the test. */
  @FunctionalInterface
  public interface Lister {
    byte[] list(String path) throws IOException;
  }

  /** The sum of the end offsets of {@code events}' partitions. */
  public static long eventsEnd(String bootstrap, Topics topics) {
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", bootstrap),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topics.events().name())) {
        partitions.add(new TopicPartition(p.topic(), p.partition()));
      }
      return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** {@code name@resourceVersion} of every item of each list, by its path. */
  public static Map<String, TreeSet<String>> objects(List<String> paths, Lister lister)
      throws IOException {
    Map<String, TreeSet<String>> objects = new LinkedHashMap<>();
    for (String path : paths) {
      TreeSet<String> names = new TreeSet<>();
      for (JsonNode item : JSON.readTree(lister.list(path)).path("items")) {
        names.add(
            item.at("/metadata/name").asText()
                + "@"
                + item.at("/metadata/resourceVersion").asText());
      }
      objects.put(path, names);
    }
    return objects;
  }
}
