package io.streamplane.gateway.podautoscaler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.gateway.podautoscaler.ScalingBehavior.Decision;
import io.streamplane.gateway.podautoscaler.ScalingBehavior.Recommendation;
import io.streamplane.gateway.podautoscaler.ScalingBehavior.ScaleEvent;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalingBehaviorTest {

  private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

  /** The defaults kube-apiserver gives a behavior, with a scale-down window of {@code down} s. */
  private static JsonNode behavior(int down) throws Exception {
    return new ObjectMapper()
        .readTree(
            ("{'scaleUp':{'stabilizationWindowSeconds':0,'selectPolicy':'Max','policies':["
                    + "{'type':'Pods','value':4,'periodSeconds':15},"
                    + "{'type':'Percent','value':100,'periodSeconds':15}]},"
                    + "'scaleDown':{'stabilizationWindowSeconds':"
                    + down
                    + ",'selectPolicy':'Max','policies':["
                    + "{'type':'Percent','value':100,'periodSeconds':15}]}}")
                .replace('\'', '"'));
  }

  @Test
  void aScaleDownWaitsForTheHighestRecommendationOfItsWindow() throws Exception {
    List<Recommendation> recent =
        List.of(
            new Recommendation(5, NOW.minusSeconds(20)),
            new Recommendation(4, NOW.minusSeconds(5)));
    Decision held = ScalingBehavior.normalize(behavior(30), 1, 10, 5, 2, recent, List.of(), NOW);
    assertThat(held.replicas()).isEqualTo(5);
    assertThat(held.ableReason()).isEqualTo("ScaleDownStabilized");
    // 40 s later the window holds only lower recommendations.
    Decision later =
        ScalingBehavior.normalize(
            behavior(30), 1, 10, 5, 2, held.recommendations(), List.of(), NOW.plusSeconds(40));
    assertThat(later.replicas()).isEqualTo(2);
    assertThat(later.ableReason()).isEqualTo("ReadyForNewScale");
    assertThat(later.limitReason()).isEqualTo("DesiredWithinRange");
  }

  @Test
  void theDefaultScaleDownWindowIsFiveMinutes() throws Exception {
    JsonNode noWindow = behavior(0);
    ((com.fasterxml.jackson.databind.node.ObjectNode) noWindow.get("scaleDown"))
        .remove("stabilizationWindowSeconds");
    List<Recommendation> recent = List.of(new Recommendation(5, NOW.minusSeconds(299)));
    assertThat(ScalingBehavior.normalize(noWindow, 1, 10, 5, 2, recent, List.of(), NOW).replicas())
        .isEqualTo(5);
  }

  @Test
  void aScaleUpIsLimitedByTheLargestPolicyOverItsPeriod() throws Exception {
    // From 2: Pods allows 6, Percent 4; Max selects 6.
    Decision up = ScalingBehavior.normalize(behavior(0), 1, 20, 2, 15, List.of(), List.of(), NOW);
    assertThat(up.replicas()).isEqualTo(6);
    assertThat(up.limited()).isTrue();
    assertThat(up.limitReason()).isEqualTo("ScaleUpLimit");
    // 3 added 10 s ago: the period started at 3 replicas; Pods allows 7, Percent 6.
    Decision again =
        ScalingBehavior.normalize(
            behavior(0),
            1,
            20,
            6,
            15,
            List.of(),
            List.of(new ScaleEvent(3, NOW.minusSeconds(10))),
            NOW);
    assertThat(again.replicas()).isEqualTo(7);
    // maxReplicas below the policy: TooManyReplicas.
    Decision capped =
        ScalingBehavior.normalize(behavior(0), 1, 5, 2, 15, List.of(), List.of(), NOW);
    assertThat(capped.replicas()).isEqualTo(5);
    assertThat(capped.limitReason()).isEqualTo("TooManyReplicas");
  }

  @Test
  void minReplicasBoundsAScaleDown() throws Exception {
    Decision down = ScalingBehavior.normalize(behavior(0), 2, 10, 5, 1, List.of(), List.of(), NOW);
    assertThat(down.replicas()).isEqualTo(2);
    assertThat(down.limitReason()).isEqualTo("TooFewReplicas");
  }

  @Test
  void withoutBehaviorAScaleUpAtMostDoublesOrReachesFour() {
    Decision up = ScalingBehavior.normalize(null, 1, 20, 1, 10, List.of(), List.of(), NOW);
    assertThat(up.replicas()).isEqualTo(4);
    assertThat(up.limitReason()).isEqualTo("ScaleUpLimit");
    Decision down =
        ScalingBehavior.normalize(
            null,
            1,
            20,
            4,
            1,
            List.of(new Recommendation(4, NOW.minusSeconds(100))),
            List.of(),
            NOW);
    assertThat(down.replicas()).isEqualTo(4);
  }
}
