package io.streamplane.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SchedulingQueueTest {

  @Test
  void aProposalThatIsNotSeenBoundWaitsLongerEachTimeUpToTheMaximum() {
    assertThat(SchedulingQueue.bindWait(0)).isEqualTo(Duration.ofSeconds(10));
    assertThat(SchedulingQueue.bindWait(1)).isEqualTo(Duration.ofSeconds(20));
    assertThat(SchedulingQueue.bindWait(3)).isEqualTo(Duration.ofSeconds(80));
    assertThat(SchedulingQueue.bindWait(4)).isEqualTo(SchedulingQueue.MAX_BIND_WAIT);
    assertThat(SchedulingQueue.bindWait(40)).isEqualTo(SchedulingQueue.MAX_BIND_WAIT);
  }
}
