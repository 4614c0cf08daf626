package io.streamplane.node;

import io.streamplane.api.Pod;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.topics.BindingKey;
import io.streamplane.topics.Topic;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the {@code bindings} topic for the nodes of this process and hands each record to its
 * node's agent: the desired pods of a node, rebuilt from the start of the compacted partition every
 * time the process starts.
 *
 * <p>Contract: only the partitions of the given nodes are assigned (no consumer group, no committed
 * offsets: the compacted topic itself is the node's memory), read from the beginning with {@code
 * read_committed}, so only bindings of committed store transactions are seen. Records are
 * dispatched on one thread in partition order; a key whose node prefix ({@code "<node>/"}) is not
 * one of ours is skipped. At start, nothing is handed over until the partitions have been read to
 * the end they had then: only the last record of each pod is, so that a node restarted after its
 * pods finished never starts one again from the pending pod its binding first carried (the kubelet,
 * likewise, acts on a listed state, not on the history behind it).
 *
 * <p>Limits: the set of nodes is fixed when the consumer starts.
 */
public final class BindingsConsumer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BindingsConsumer.class);

  private final KafkaConsumer<String, Pod> consumer;
  private final Map<String, NodeAgent> agents = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  private BindingsConsumer(
      String bootstrapServers, Topic<String, Pod> bindings, Collection<NodeAgent> nodes) {
    for (NodeAgent agent : nodes) {
      agents.put(agent.name(), agent);
    }
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "streamplane-node-bindings");
    this.consumer =
        new KafkaConsumer<>(
            props, bindings.keySerde().deserializer(), bindings.valueSerde().deserializer());
    List<TopicPartition> partitions =
        partitionsOf(agents.keySet(), bindings.spec().partitions()).stream()
            .map(p -> new TopicPartition(bindings.name(), p))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    this.thread = new Thread(this::run, "node-bindings");
    this.thread.setDaemon(true);
  }

  /** Starts reading the bindings of {@code nodes}. */
  public static BindingsConsumer start(
      String bootstrapServers, Topic<String, Pod> bindings, Collection<NodeAgent> nodes) {
    BindingsConsumer consumer = new BindingsConsumer(bootstrapServers, bindings, nodes);
    consumer.thread.start();
    return consumer;
  }

  /** The partition of a node's bindings, as the store partitions the topic. */
  public static int partition(String node, int partitions) {
    return BindingKey.partition(node, partitions);
  }

  static Set<Integer> partitionsOf(Collection<String> nodes, int partitions) {
    Set<Integer> result = new TreeSet<>();
    for (String node : nodes) {
      result.add(partition(node, partitions));
    }
    return result;
  }

  private void run() {
    Function<String, NodeAgent> agentOf =
        key -> {
          String node = BindingKey.node(key);
          return node == null ? null : agents.get(node);
        };
    try {
      Map<TopicPartition, Long> initialEnd = consumer.endOffsets(consumer.assignment());
      Map<String, Pod> initial = new LinkedHashMap<>();
      boolean listed = false;
      while (running) {
        for (ConsumerRecord<String, Pod> record : consumer.poll(Duration.ofMillis(500))) {
          if (agentOf.apply(record.key()) == null) {
            continue;
          }
          if (listed) {
            dispatch(agentOf, record.key(), record.value());
          } else {
            initial.remove(record.key());
            initial.put(record.key(), record.value());
          }
        }
        if (!listed && readTo(initialEnd)) {
          listed = true;
          initial.forEach((key, pod) -> dispatch(agentOf, key, pod));
          initial.clear();
        }
      }
    } catch (WakeupException e) {
      // close() asked us to stop
    } catch (RuntimeException e) {
      LOG.error("bindings consumer stopped", e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private static void dispatch(Function<String, NodeAgent> agentOf, String key, Pod pod) {
    agentOf.apply(key).onBinding(BindingKey.podKey(key), pod);
  }

  /** Whether every assigned partition has been read up to {@code end}. */
  private boolean readTo(Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
