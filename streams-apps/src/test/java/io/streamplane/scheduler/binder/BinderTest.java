package io.streamplane.scheduler.binder;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.log.NodeLedger;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BinderTest {

  @Test
  void aLedgerSumsRequestsAndNonZeroRequestsAndReadsEntriesWrittenBeforeTheNonZeroKeys() {
    PodRequests bestEffort =
        new PodRequests(new Resources(0, 0, 0, 1), new Resources(100, 200L << 20, 0, 1));
    Resources old = new Resources(500, 1L << 30, 0, 1); // a ledger entry from before the change
    NodeLedger ledger =
        NodeLedger.newBuilder()
            .setPods(
                Map.of(
                    "pods//default/a", bestEffort.toMap(),
                    "pods//default/b", bestEffort.toMap(),
                    "pods//default/c", old.toMap()))
            .build();

    PodRequests allocated = Binder.allocated(ledger);

    assertThat(allocated.requests()).isEqualTo(new Resources(500, 1L << 30, 0, 3));
    assertThat(allocated.nonZeroRequests())
        .isEqualTo(new Resources(700, (400L << 20) + (1L << 30), 0, 3));
  }
}
