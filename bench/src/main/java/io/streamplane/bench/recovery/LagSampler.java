package io.streamplane.bench.recovery;

import io.streamplane.bench.metrics.Scrape;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Fills a {@link LagTimeline} while a run goes on: every second a scrape of every process's {@code
 * /metrics} ({@link LagTimeline.View#REPORTED}); every two seconds, from the broker, each consumer
 * group's committed offsets against its partitions' last stable and end offsets ({@link
 * LagTimeline.View#COMMITTED}, {@link LagTimeline.View#UNSTABLE}). A round that fails (the
 * processes or the broker are down) records nothing.
 */
public final class LagSampler implements AutoCloseable {

  private static final long TIMEOUT_SECONDS = 3;

  private final Supplier<Map<String, Scrape>> scrapes;
  private final LagTimeline timeline;
  private final LongSupplier clock;
  private final Admin admin;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;

  /**
   * Samples the processes {@code scrapes} answers for and the Kafka cluster at {@code
   * bootstrapServers} into {@code timeline}, at the times {@code clock} gives.
   */
  public LagSampler(
      String bootstrapServers,
      Supplier<Map<String, Scrape>> scrapes,
      LagTimeline timeline,
      LongSupplier clock) {
    this.scrapes = scrapes;
    this.timeline = timeline;
    this.clock = clock;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
    this.admin = Admin.create(props);
  }

  public void start() {
    threads.add(loop("recovery-lag-metrics", 1_000, this::reported));
    threads.add(loop("recovery-lag-broker", 2_000, this::committed));
  }

  private Thread loop(String name, long periodMillis, Runnable round) {
    Thread t =
        new Thread(
            () -> {
              while (!stopped) {
                long next = System.nanoTime() + periodMillis * 1_000_000;
                try {
                  round.run();
                } catch (RuntimeException e) {
                  // A round that fails records nothing; the next one tries again.
                }
                long wait = (next - System.nanoTime()) / 1_000_000;
                if (wait > 0) {
                  try {
                    Thread.sleep(wait);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private void reported() {
    long at = clock.getAsLong();
    Map<String, Scrape> now = scrapes.get();
    if (!now.isEmpty()) {
      timeline.add(at, LagTimeline.View.REPORTED, LagTimeline.reported(List.copyOf(now.values())));
    }
  }

  private void committed() {
    long at = clock.getAsLong();
    try {
      Collection<GroupListing> groups =
          admin.listGroups().all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
      for (GroupListing g : groups) {
        if (g.type().map(t -> t == GroupType.CLASSIC || t == GroupType.CONSUMER).orElse(true)) {
          specs.put(g.groupId(), new ListConsumerGroupOffsetsSpec());
        }
      }
      if (specs.isEmpty()) {
        return;
      }
      Map<String, Map<TopicPartition, OffsetAndMetadata>> committed =
          admin.listConsumerGroupOffsets(specs).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      committed
          .values()
          .forEach(m -> m.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest())));
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
          admin
              .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
              .all()
              .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> stable =
          admin
              .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
              .all()
              .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Map<LagTimeline.Key, Double> lags = new HashMap<>();
      committed.forEach(
          (group, offsets) ->
              offsets.forEach(
                  (tp, om) -> {
                    if (om != null && stable.containsKey(tp)) {
                      lags.put(
                          new LagTimeline.Key(group, tp.topic(), tp.partition()),
                          (double) Math.max(0, stable.get(tp).offset() - om.offset()));
                    }
                  }));
      Map<LagTimeline.Key, Double> unstable = new HashMap<>();
      ends.forEach(
          (tp, end) -> {
            if (stable.containsKey(tp)) {
              unstable.put(
                  new LagTimeline.Key(LagTimeline.LOG, tp.topic(), tp.partition()),
                  (double) Math.max(0, end.offset() - stable.get(tp).offset()));
            }
          });
      timeline.add(at, LagTimeline.View.COMMITTED, lags);
      timeline.add(at, LagTimeline.View.UNSTABLE, unstable);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopped = true;
    } catch (Exception e) {
      // The broker is down or busy: no round.
    }
  }

  @Override
  public void close() {
    stopped = true;
    for (Thread t : threads) {
      t.interrupt();
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    admin.close(java.time.Duration.ofSeconds(5));
  }
}
