package io.streamplane.gateway.audit;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.AuditEvent;
import io.streamplane.topics.Topic;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends audit events to the {@code audit} topic, keyed by audit id so that the stages of one
 * request stay in order in one partition. The producer is idempotent with {@code acks=all} and
 * batches ({@code linger.ms}), so a request only hands its event over and never waits for the
 * broker; a failed send is logged and counted, never thrown at the request. {@link #close} flushes:
 * every event handed over before the gateway stops is sent.
 *
 * <p>Limit: while the broker is unreachable events queue in the producer's buffer (32 MiB); when it
 * is full, a request waits up to {@code max.block.ms} (1 s) and the event is dropped and counted.
 */
public final class KafkaAuditSink implements AuditSink {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaAuditSink.class);

  private final KafkaProducer<String, AuditEvent> producer;
  private final String topic;
  private final AtomicLong failed = new AtomicLong();

  public KafkaAuditSink(String bootstrapServers, Topic<String, AuditEvent> topic) {
    this.topic = topic.name();
    Map<String, Object> config = KafkaClientSettings.clientConfig(bootstrapServers);
    config.putAll(
        Map.of(
            ProducerConfig.CLIENT_ID_CONFIG,
            "streamplane-gateway-audit",
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.LINGER_MS_CONFIG,
            20,
            ProducerConfig.BATCH_SIZE_CONFIG,
            256 * 1024,
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            1_000));
    this.producer =
        new KafkaProducer<>(config, new StringSerializer(), topic.valueSerde().serializer());
    try {
      // Fetches the topic's metadata now, so the first request does not wait for it.
      producer.partitionsFor(this.topic);
    } catch (RuntimeException e) {
      LOG.warn("audit topic {} not reachable yet: {}", this.topic, e.toString());
    }
  }

  @Override
  public void write(AuditEvent event) {
    try {
      producer.send(
          new ProducerRecord<>(
              topic, null, event.getStageTimestamp().toEpochMilli(), event.getAuditID(), event),
          (metadata, e) -> {
            if (e != null) {
              failed(event, e);
            }
          });
    } catch (TimeoutException | IllegalStateException e) {
      failed(event, e);
    }
  }

  private void failed(AuditEvent event, Exception e) {
    long n = failed.incrementAndGet();
    // The first failure and then every thousandth: a broker outage must not flood the log.
    if (n == 1 || n % 1000 == 0) {
      LOG.warn(
          "audit event {} {} not written ({} so far): {}",
          event.getAuditID(),
          event.getStage(),
          n,
          e.toString());
    }
  }

  /** Events that could not be written. */
  public long failed() {
    return failed.get();
  }

  @Override
  public void close() {
    producer.flush();
    producer.close(Duration.ofSeconds(10));
  }
}
