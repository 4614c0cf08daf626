package io.streamplane.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.topics.HangingTransactions.OpenTransaction;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class HangingTransactionsTest {

  private static final TopicPartition EVENTS = new TopicPartition("sp.events", 2);
  private static final TopicPartition OFFSETS = new TopicPartition("__consumer_offsets", 4);

  private static TransactionDescription coordinator(
      TransactionState state, int epoch, TopicPartition... partitions) {
    return new TransactionDescription(
        1, state, 3L, epoch, 10_000, OptionalLong.empty(), Set.of(partitions));
  }

  @Test
  void aTransactionTheCoordinatorListsAsOngoingOnThePartitionIsLive() {
    List<OpenTransaction> open = List.of(new OpenTransaction(EVENTS, 3L, 200, 0));

    for (TransactionState state :
        List.of(
            TransactionState.ONGOING,
            TransactionState.PREPARE_COMMIT,
            TransactionState.PREPARE_ABORT)) {
      assertThat(HangingTransactions.hanging(open, Map.of(3L, coordinator(state, 200, EVENTS))))
          .as(state.toString())
          .isEmpty();
    }
  }

  @Test
  void aPartitionMissingFromTheCoordinatorsRecordOfTheTransactionHangs() {
    List<OpenTransaction> open =
        List.of(new OpenTransaction(EVENTS, 3L, 200, 0), new OpenTransaction(OFFSETS, 3L, 200, 0));

    assertThat(
            HangingTransactions.hanging(
                open, Map.of(3L, coordinator(TransactionState.ONGOING, 200, EVENTS))))
        .containsExactly(new OpenTransaction(OFFSETS, 3L, 200, 0));
  }

  @Test
  void anOpenTransactionOfAProducerWhoseTransactionEndedOrIsUnknownHangs() {
    OpenTransaction open = new OpenTransaction(OFFSETS, 3L, 200, 0);

    assertThat(
            HangingTransactions.hanging(
                List.of(open), Map.of(3L, coordinator(TransactionState.EMPTY, 202))))
        .containsExactly(open);
    assertThat(
            HangingTransactions.hanging(
                List.of(open),
                Map.of(3L, coordinator(TransactionState.COMPLETE_ABORT, 201, OFFSETS))))
        .containsExactly(open);
    assertThat(HangingTransactions.hanging(List.of(open), Map.of())).containsExactly(open);
  }
}
