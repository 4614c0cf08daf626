package io.streamplane.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.scheduler.framework.NodeInfo;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssumedPodsTest {

  /** What a best-effort pod asks: nothing, but 100m and 200Mi for LeastAllocated. */
  private static final PodRequests BEST_EFFORT =
      new PodRequests(new Resources(0, 0, 0, 1), new Resources(100, 200L << 20, 0, 1));

  private static final long BIND_WAIT = SchedulingQueue.BIND_WAIT.toMillis();
  private static final long REFRESH = SchedulingQueue.VIEW_REFRESH.toMillis();

  private static NodeInfo node(String name) {
    Map<String, String> size = Map.of("cpu", "4", "memory", "8Gi", "pods", "110");
    return NodeInfo.of(
        Node.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName(name).build())
            .setStatus(NodeStatus.newBuilder().setAllocatable(size).build())
            .build());
  }

  private static final List<NodeInfo> VIEW = List.of(node("a"), node("b"));

  private static List<Long> pods(List<NodeInfo> view) {
    return view.stream().map(n -> n.requested().pods()).toList();
  }

  @Test
  void anAssumedPodCountsWithItsNonZeroRequestsOnItsNode() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "b", BEST_EFFORT, 1_000 + BIND_WAIT);
    assumed.assume("pods//default/y", "b", BEST_EFFORT, 1_000 + BIND_WAIT);

    List<NodeInfo> view = assumed.applyTo(VIEW, 900, 1_010);

    assertThat(view.get(0)).isEqualTo(VIEW.get(0));
    assertThat(view.get(1).requested()).isEqualTo(new Resources(0, 0, 0, 2));
    assertThat(view.get(1).nonZeroRequested()).isEqualTo(new Resources(200, 400L << 20, 0, 2));
    assertThat(pods(VIEW)).as("the view given is not modified").containsExactly(0L, 0L);
    assertThat(assumed.proposed("pods//default/x")).isTrue();
  }

  @Test
  void aBoundPodCountsOnlyInViewsBuiltBeforeItsBoundEventArrived() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "a", BEST_EFFORT, 1_000 + BIND_WAIT);
    assumed.bound("pods//default/x", 1_100);

    assertThat(pods(assumed.applyTo(VIEW, 1_050, 1_120))).containsExactly(1L, 0L);
    assertThat(pods(assumed.applyTo(VIEW, 1_100, 1_120))).containsExactly(1L, 0L);
    assertThat(pods(assumed.applyTo(VIEW, 1_101, 1_120))).containsExactly(0L, 0L);
    assertThat(assumed.proposed("pods//default/x")).as("answered").isFalse();
  }

  @Test
  void aDeletedPodIsForgotten() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "a", BEST_EFFORT, 1_000 + BIND_WAIT);

    assumed.forget("pods//default/x");

    assertThat(pods(assumed.applyTo(VIEW, 900, 1_010))).containsExactly(0L, 0L);
    assertThat(assumed.proposed("pods//default/x")).isFalse();
  }

  @Test
  void aRejectionForgetsTheProposalItAnswersOnly() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "b", BEST_EFFORT, 1_000 + BIND_WAIT);

    assumed.rejected("pods//default/x", "a"); // an answer to an older proposal
    assertThat(pods(assumed.applyTo(VIEW, 900, 1_010))).containsExactly(0L, 1L);

    assumed.rejected("pods//default/x", "b");
    assertThat(pods(assumed.applyTo(VIEW, 900, 1_010))).containsExactly(0L, 0L);
    assertThat(assumed.proposed("pods//default/x")).isFalse();
  }

  @Test
  void anUnansweredProposalLastsUntilTheQueueWouldProposeAgain() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "a", BEST_EFFORT, 1_000 + BIND_WAIT);

    assertThat(pods(assumed.applyTo(VIEW, 900, 1_000 + BIND_WAIT))).containsExactly(1L, 0L);
    assertThat(pods(assumed.applyTo(VIEW, 900, 1_001 + BIND_WAIT))).containsExactly(0L, 0L);
    assertThat(assumed.proposed("pods//default/x")).isFalse();
  }

  @Test
  void aBoundPodIsDroppedOnceNoViewInUseCanBeOlderThanItsBinding() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "a", BEST_EFFORT, 1_000 + BIND_WAIT);
    assumed.bound("pods//default/x", 1_100);

    // A view built before the binding still counts it while such a view can be in use ...
    assertThat(pods(assumed.applyTo(VIEW, 1_050, 1_100 + 2 * REFRESH))).containsExactly(1L, 0L);
    // ... and no longer once it is gone for good.
    assertThat(pods(assumed.applyTo(VIEW, 1_050, 1_101 + 2 * REFRESH))).containsExactly(0L, 0L);
  }

  @Test
  void aNewProposalReplacesTheEarlierOne() {
    AssumedPods assumed = new AssumedPods();
    assumed.assume("pods//default/x", "a", BEST_EFFORT, 1_000 + BIND_WAIT);
    assumed.assume("pods//default/x", "b", BEST_EFFORT, 2_000 + BIND_WAIT);

    assertThat(pods(assumed.applyTo(VIEW, 900, 2_010))).containsExactly(0L, 1L);
  }
}
