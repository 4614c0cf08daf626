package io.streamplane.cli.up;

import io.streamplane.topics.TopicSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * How much each of the cluster's topics holds: the sum of its partitions' end offsets — the records
 * ever appended, plus one transaction marker per commit on topics written transactionally (events,
 * results, bindings); compaction and retention do not lower it.
 */
final class LogStatus {

  private final Admin admin;
  private final List<TopicSpec> topics;

  LogStatus(Admin admin, List<TopicSpec> topics) {
    this.admin = admin;
    this.topics = topics;
  }

  /** Records appended so far, by topic name, in catalogue order. */
  Map<String, Long> recordOffsets() {
    Map<TopicPartition, OffsetSpec> request =
        topics.stream()
            .flatMap(
                t ->
                    IntStream.range(0, t.partitions())
                        .mapToObj(p -> new TopicPartition(t.name(), p)))
            .collect(Collectors.toMap(Function.identity(), p -> OffsetSpec.latest()));
    try {
      var offsets = admin.listOffsets(request).all().get(10, TimeUnit.SECONDS);
      Map<String, Long> byTopic = new LinkedHashMap<>();
      topics.forEach(t -> byTopic.put(t.name(), 0L));
      offsets.forEach((tp, info) -> byTopic.merge(tp.topic(), info.offset(), Long::sum));
      return byTopic;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read topic offsets: " + e.getMessage(), e);
    }
  }

  static String describe(Map<String, Long> offsets) {
    return offsets.entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(" · "));
  }
}
