package io.streamplane.gateway.eviction;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvictionDecisionTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  private static ObjectNode json(String singleQuoted) {
    try {
      return (ObjectNode) JSON.readTree(singleQuoted.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode pod(String phase, boolean ready) {
    return json(
        "{'metadata':{'name':'web-1','namespace':'default','uid':'u1','resourceVersion':'7',"
            + "'labels':{'app':'web'}},'status':{'phase':'"
            + phase
            + "','conditions':[{'type':'Ready','status':'"
            + (ready ? "True" : "False")
            + "'}]}}");
  }

  private static ObjectNode budget(String name, int allowed, int current, int desired) {
    return json(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'default','generation':1,'resourceVersion':'9'},"
            + "'spec':{'minAvailable':2,'selector':{'matchLabels':{'app':'web'}}},"
            + "'status':{'observedGeneration':1,'disruptionsAllowed':"
            + allowed
            + ",'currentHealthy':"
            + current
            + ",'desiredHealthy':"
            + desired
            + ",'expectedPods':3}}");
  }

  @Test
  void aBudgetWithDisruptionsLeftIsSpentAndRecordsThePod() {
    var outcome =
        EvictionDecision.decide(pod("Running", true), List.of(budget("web", 1, 3, 2)), NOW);

    assertThat(outcome).isInstanceOf(EvictionDecision.SpendBudget.class);
    ObjectNode spent = ((EvictionDecision.SpendBudget) outcome).budget();
    assertThat(spent.at("/status/disruptionsAllowed").asInt()).isZero();
    assertThat(spent.at("/status/disruptedPods/web-1").asText()).isEqualTo("2026-01-02T03:04:05Z");
    assertThat(spent.at("/status/conditions/0/reason").asText()).isEqualTo("InsufficientPods");
    assertThat(spent.at("/metadata/resourceVersion").asText())
        .as("the status write is conditioned on the version read")
        .isEqualTo("9");
  }

  @Test
  void aBudgetAllowingNoDisruptionIsA429WithADisruptionBudgetCause() {
    var outcome =
        EvictionDecision.decide(pod("Running", true), List.of(budget("web", 0, 2, 2)), NOW);

    ObjectNode status = ((EvictionDecision.Refuse) outcome).status();
    assertThat(status.path("code").asInt()).isEqualTo(429);
    assertThat(status.path("reason").asText()).isEqualTo("TooManyRequests");
    assertThat(status.path("message").asText())
        .isEqualTo("Cannot evict pod as it would violate the pod's disruption budget.");
    assertThat(status.at("/details/causes/0/reason").asText()).isEqualTo("DisruptionBudget");
    assertThat(status.at("/details/causes/0/message").asText())
        .isEqualTo("The disruption budget web needs 2 healthy pods and has 2 currently");
  }

  @Test
  void aBudgetWhoseStatusLagsItsGenerationIsA429() {
    ObjectNode budget = budget("web", 1, 3, 2);
    budget.with("metadata").put("generation", 2);

    ObjectNode status =
        ((EvictionDecision.Refuse)
                EvictionDecision.decide(pod("Running", true), List.of(budget), NOW))
            .status();
    assertThat(status.path("code").asInt()).isEqualTo(429);
    assertThat(status.at("/details/retryAfterSeconds").asInt()).isEqualTo(10);
  }

  @Test
  void aPodNoBudgetSelectsIsDeleted() {
    ObjectNode other = budget("db", 0, 1, 1);
    other.with("spec").with("selector").with("matchLabels").put("app", "db");

    assertThat(EvictionDecision.decide(pod("Running", true), List.of(other), NOW))
        .isEqualTo(new EvictionDecision.Delete(false));
  }

  @Test
  void aBudgetWithAnEmptySelectorSelectsNothing() {
    ObjectNode empty = budget("all", 0, 1, 1);
    empty.with("spec").putObject("selector");

    assertThat(EvictionDecision.decide(pod("Running", true), List.of(empty), NOW))
        .isEqualTo(new EvictionDecision.Delete(false));
  }

  @Test
  void aPodNotYetRunningOrAlreadyFinishedIsDeletedWhateverTheBudget() {
    for (String phase : List.of("Pending", "Succeeded", "Failed")) {
      assertThat(EvictionDecision.decide(pod(phase, false), List.of(budget("web", 0, 2, 2)), NOW))
          .as(phase)
          .isEqualTo(new EvictionDecision.Delete(true));
    }
  }

  @Test
  void aTerminatingPodIsLeftToItsDeletion() {
    ObjectNode pod = pod("Running", true);
    pod.with("metadata").put("deletionTimestamp", "2026-01-02T03:00:00Z");

    assertThat(EvictionDecision.decide(pod, List.of(budget("web", 0, 2, 2)), NOW))
        .isInstanceOf(EvictionDecision.AlreadyTerminating.class);
  }

  @Test
  void anUnreadyPodOfAHealthyEnoughBudgetIsDeletedWithoutSpendingIt() {
    assertThat(EvictionDecision.decide(pod("Running", false), List.of(budget("web", 0, 2, 2)), NOW))
        .isEqualTo(new EvictionDecision.Delete(true));
  }

  @Test
  void twoBudgetsSelectingThePodIsAnInternalError() {
    ObjectNode status =
        ((EvictionDecision.Refuse)
                EvictionDecision.decide(
                    pod("Running", true), List.of(budget("a", 1, 3, 2), budget("b", 1, 3, 2)), NOW))
            .status();
    assertThat(status.path("code").asInt()).isEqualTo(500);
    assertThat(status.path("message").asText())
        .contains("This pod has more than one PodDisruptionBudget");
  }
}
