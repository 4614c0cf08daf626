package io.streamplane.gateway.cache;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a topic ends: each partition's high watermark, open transactions included (see {@link
 * WatchCache} for why a reader waits for that rather than the last stable offset).
 */
public final class LogEnd {

  private LogEnd() {}

  /**
   * The high watermark of each of {@code partitions}, indexed by partition number.
   *
   * @throws CacheUnavailableException if the broker did not answer within {@code timeout}
   */
  public static long[] of(Admin admin, List<TopicPartition> partitions, Duration timeout) {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
    long[] end = new long[partitions.size()];
    try {
      admin
          .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
          .all()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .forEach((tp, info) -> end[tp.partition()] = info.offset());
    } catch (Exception e) {
      String topic = partitions.isEmpty() ? "the topic" : partitions.get(0).topic();
      throw new CacheUnavailableException("cannot read the end of " + topic, e);
    }
    return end;
  }
}
