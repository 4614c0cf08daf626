package io.streamplane.topics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;

/**
 * Finds and aborts hanging transactions: a partition holding an open transaction that its
 * transaction coordinator no longer tracks, so no commit or abort marker will ever close it (what
 * Kafka's {@code kafka-transactions.sh find-hanging} and {@code abort} do by hand).
 *
 * <p>Such a transaction holds back every {@code read_committed} reader of the partition at its
 * first offset and, on {@code __consumer_offsets}, every stable committed-offset fetch of its group
 * — forever. A single-node broker killed together with its producers can leave one: after the
 * restart the coordinator's record of the killed producer's transaction lacks partitions it had
 * written to, so fencing the producer aborts the transaction everywhere but there.
 *
 * <p>A transaction is live while its coordinator lists the partition in an ongoing or preparing
 * transaction of the same producer; under transaction version 2 a partition joins the coordinator's
 * record before any record of the transaction is appended to it, so a live transaction is never
 * taken for a hanging one. Each candidate is checked against the coordinator a second time just
 * before its abort, which closes the window of a transaction completing between the two reads.
 */
public final class HangingTransactions {

  private static final long TIMEOUT_SECONDS = 30;

  private HangingTransactions() {}

  /** One open transaction on one partition, as the partition's leader reports it. */
  public record OpenTransaction(
      TopicPartition partition, long producerId, int producerEpoch, int coordinatorEpoch) {}

  /**
   * Aborts the hanging transactions on the partitions of {@code layout}'s cluster — its topics, its
   * Streams apps' internal topics (both named after the cluster) and {@code __consumer_offsets} —
   * and returns them.
   */
  public static List<OpenTransaction> abortAll(Admin admin, TopicLayout layout)
      throws ExecutionException, InterruptedException, TimeoutException {
    List<OpenTransaction> open = openTransactions(admin, layout.cluster());
    if (open.isEmpty()) {
      return List.of();
    }
    List<OpenTransaction> hanging = hanging(open, coordinatorView(admin, open));
    if (hanging.isEmpty()) {
      return List.of();
    }
    hanging = hanging(hanging, coordinatorView(admin, hanging));
    for (OpenTransaction t : hanging) {
      admin
          .abortTransaction(
              new AbortTransactionSpec(
                  t.partition(), t.producerId(), (short) t.producerEpoch(), t.coordinatorEpoch()))
          .all()
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    return hanging;
  }

  /**
   * The open transactions the coordinator does not track: {@code coordinator} maps each producer id
   * to the coordinator's description of its transactional id's current transaction (absent when the
   * coordinator knows no transactional id with that producer id).
   */
  static List<OpenTransaction> hanging(
      Collection<OpenTransaction> open, Map<Long, TransactionDescription> coordinator) {
    List<OpenTransaction> hanging = new ArrayList<>();
    for (OpenTransaction t : open) {
      TransactionDescription d = coordinator.get(t.producerId());
      boolean live =
          d != null && LIVE.contains(d.state()) && d.topicPartitions().contains(t.partition());
      if (!live) {
        hanging.add(t);
      }
    }
    return hanging;
  }

  private static final Set<TransactionState> LIVE =
      Set.of(
          TransactionState.ONGOING,
          TransactionState.PREPARE_COMMIT,
          TransactionState.PREPARE_ABORT);

  private static final String CONSUMER_OFFSETS = "__consumer_offsets";

  private static List<OpenTransaction> openTransactions(Admin admin, String cluster)
      throws ExecutionException, InterruptedException, TimeoutException {
    Set<String> topics =
        admin
            .listTopics(new ListTopicsOptions().listInternal(true))
            .names()
            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .stream()
            .filter(t -> t.startsWith(cluster) || t.equals(CONSUMER_OFFSETS))
            .collect(Collectors.toSet());
    List<TopicPartition> partitions = new ArrayList<>();
    admin
        .describeTopics(topics)
        .allTopicNames()
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .forEach(
            (topic, description) ->
                description
                    .partitions()
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition()))));
    List<OpenTransaction> open = new ArrayList<>();
    admin
        .describeProducers(partitions)
        .all()
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .forEach(
            (partition, state) -> {
              for (ProducerState producer : state.activeProducers()) {
                if (producer.currentTransactionStartOffset().isPresent()) {
                  open.add(
                      new OpenTransaction(
                          partition,
                          producer.producerId(),
                          producer.producerEpoch(),
                          producer.coordinatorEpoch().orElse(-1)));
                }
              }
            });
    return open;
  }

  private static Map<Long, TransactionDescription> coordinatorView(
      Admin admin, List<OpenTransaction> open)
      throws ExecutionException, InterruptedException, TimeoutException {
    Collection<TransactionListing> listings =
        admin
            .listTransactions(
                new ListTransactionsOptions()
                    .filterProducerIds(
                        open.stream().map(OpenTransaction::producerId).distinct().toList()))
            .all()
            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (listings.isEmpty()) {
      return Map.of();
    }
    Map<String, TransactionDescription> byId =
        admin
            .describeTransactions(
                listings.stream().map(TransactionListing::transactionalId).toList())
            .all()
            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    Map<Long, TransactionDescription> byProducer = new HashMap<>();
    byId.values().forEach(d -> byProducer.put(d.producerId(), d));
    return byProducer;
  }
}
