package io.streamplane.controller.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Deployment;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodDisruptionBudgetStatus;
import io.streamplane.api.ReplicaSet;
import io.streamplane.controller.Controller;
import io.streamplane.controller.Expectations;
import io.streamplane.schema.convert.KubeJson;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The disruption controller's status of one budget, as a function of its pods and the time. */
class DisruptionReconcilerTest {

  private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");
  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_SINGLE_QUOTES).build();
  private static final KubeJson KUBE_JSON = new KubeJson();

  private static <T extends SpecificRecord> T avro(String singleQuoted, Class<T> type) {
    try {
      return KUBE_JSON.toAvro((ObjectNode) MAPPER.readTree(singleQuoted), type).record();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static PodDisruptionBudget budget(String bound) {
    return avro(
        "{'metadata':{'name':'web','namespace':'default','generation':1,'resourceVersion':'5'},"
            + "'spec':{"
            + bound
            + ",'selector':{'matchLabels':{'app':'web'}}}}",
        PodDisruptionBudget.class);
  }

  private static Pod pod(String name, boolean ready, String extraMeta) {
    return avro(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'default','labels':{'app':'web'},"
            + "'ownerReferences':[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'web-1',"
            + "'uid':'rs-uid','controller':true}]"
            + extraMeta
            + "},'status':{'phase':'Running','conditions':[{'type':'Ready','status':'"
            + (ready ? "True" : "False")
            + "'}]}}",
        Pod.class);
  }

  private static List<Pod> readyPods(int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> pod("web-" + i, true, "")).toList();
  }

  private static ReplicaSet replicaSet(int replicas) {
    return avro(
        "{'metadata':{'name':'web-1','namespace':'default','uid':'rs-uid'},'spec':{'replicas':"
            + replicas
            + "}}",
        ReplicaSet.class);
  }

  private static PodDisruptionBudgetStatus status(
      PodDisruptionBudget budget, List<Pod> pods, List<ReplicaSet> rs) {
    return DisruptionReconciler.reconcile(budget, pods, rs, List.of(), NOW).updated().getStatus();
  }

  @Test
  void anIntegerMinAvailableCountsTheSelectedPodsAndAllowsTheSurplus() {
    PodDisruptionBudgetStatus status = status(budget("'minAvailable':2"), readyPods(3), List.of());

    assertThat(status.getExpectedPods()).isEqualTo(3);
    assertThat(status.getCurrentHealthy()).isEqualTo(3);
    assertThat(status.getDesiredHealthy()).isEqualTo(2);
    assertThat(status.getDisruptionsAllowed()).isEqualTo(1);
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
    assertThat(status.getConditions()).hasSize(1);
    assertThat(status.getConditions().get(0).getType()).isEqualTo("DisruptionAllowed");
    assertThat(status.getConditions().get(0).getStatus()).isEqualTo("True");
    assertThat(status.getConditions().get(0).getReason()).isEqualTo("SufficientPods");
  }

  @Test
  void tooFewHealthyPodsAllowNoDisruption() {
    List<Pod> pods = List.of(pod("web-0", true, ""), pod("web-1", false, ""));
    PodDisruptionBudgetStatus status = status(budget("'minAvailable':2"), pods, List.of());

    assertThat(status.getCurrentHealthy()).isEqualTo(1);
    assertThat(status.getDisruptionsAllowed()).isZero();
    assertThat(status.getConditions().get(0).getStatus()).isEqualTo("False");
    assertThat(status.getConditions().get(0).getReason()).isEqualTo("InsufficientPods");
  }

  @Test
  void maxUnavailableAndPercentagesAreTakenOfTheControllersScale() {
    // Two of three replicas left (one evicted and not yet replaced): the scale is still 3.
    List<Pod> pods = readyPods(2);
    PodDisruptionBudgetStatus max =
        status(budget("'maxUnavailable':1"), pods, List.of(replicaSet(3)));
    assertThat(max.getExpectedPods()).isEqualTo(3);
    assertThat(max.getDesiredHealthy()).isEqualTo(2);
    assertThat(max.getDisruptionsAllowed()).isZero();

    PodDisruptionBudgetStatus percent =
        status(budget("'minAvailable':'50%'"), readyPods(3), List.of(replicaSet(3)));
    assertThat(percent.getExpectedPods()).isEqualTo(3);
    assertThat(percent.getDesiredHealthy()).as("50% of 3 rounded up").isEqualTo(2);
    assertThat(percent.getDisruptionsAllowed()).isEqualTo(1);
  }

  @Test
  void theScaleOfADeploymentsPodsIsTheDeploymentsReplicas() {
    ReplicaSet owned =
        avro(
            "{'metadata':{'name':'web-1','namespace':'default','uid':'rs-uid',"
                + "'ownerReferences':[{'apiVersion':'apps/v1','kind':'Deployment','name':'web',"
                + "'uid':'deploy-uid','controller':true}]},'spec':{'replicas':2}}",
            ReplicaSet.class);
    Deployment deployment =
        avro(
            "{'metadata':{'name':'web','namespace':'default','uid':'deploy-uid'},"
                + "'spec':{'replicas':4}}",
            Deployment.class);

    PodDisruptionBudgetStatus status =
        DisruptionReconciler.reconcile(
                budget("'maxUnavailable':1"),
                readyPods(3),
                List.of(owned),
                List.of(deployment),
                NOW)
            .updated()
            .getStatus();
    assertThat(status.getExpectedPods()).isEqualTo(4);
    assertThat(status.getDesiredHealthy()).isEqualTo(3);
    assertThat(status.getDisruptionsAllowed()).isZero();
  }

  @Test
  void aRecentlyEvictedPodIsNotHealthyAndItsEntryExpiresAfterTwoMinutes() {
    PodDisruptionBudget budget = budget("'minAvailable':2");
    Instant evicted = NOW.minusSeconds(30);
    budget.setStatus(
        PodDisruptionBudgetStatus.newBuilder()
            .setDisruptedPods(Map.of("web-0", evicted, "gone", evicted))
            .build());

    DisruptionReconciler.Decision decision =
        DisruptionReconciler.reconcile(budget, readyPods(3), List.of(), List.of(), NOW);
    PodDisruptionBudgetStatus status = decision.updated().getStatus();
    assertThat(status.getDisruptedPods()).containsOnlyKeys("web-0");
    assertThat(status.getCurrentHealthy()).isEqualTo(2);
    assertThat(status.getDisruptionsAllowed()).isZero();
    assertThat(decision.recheckAt()).isEqualTo(evicted.plusSeconds(120));

    PodDisruptionBudgetStatus later =
        DisruptionReconciler.reconcile(
                budget, readyPods(3), List.of(), List.of(), NOW.plusSeconds(120))
            .updated()
            .getStatus();
    assertThat(later.getDisruptedPods()).isNull();
    assertThat(later.getCurrentHealthy()).isEqualTo(3);
  }

  @Test
  void aPodBeingDeletedIsNeitherHealthyNorKeptAsDisrupted() {
    List<Pod> pods =
        List.of(
            pod("web-0", true, ",'deletionTimestamp':'2026-11-26T09:59:00Z'"),
            pod("web-1", true, ""),
            pod("web-2", true, ""));
    PodDisruptionBudgetStatus status = status(budget("'minAvailable':2"), pods, List.of());

    assertThat(status.getCurrentHealthy()).isEqualTo(2);
    assertThat(status.getDisruptionsAllowed()).isZero();
  }

  @Test
  void aConvergedBudgetWritesNothing() {
    PodDisruptionBudget budget = budget("'minAvailable':2");
    budget.setStatus(status(budget, readyPods(3), List.of()));

    assertThat(
            DisruptionReconciler.reconcile(
                budget, readyPods(3), List.of(), List.of(), NOW.plusSeconds(60)))
        .isEqualTo(new DisruptionReconciler.Decision(null, null));
    Controller.Result result =
        new DisruptionController()
            .reconcile(
                "default",
                new DisruptionController.View(List.of(budget), readyPods(3), List.of(), List.of()),
                new Expectations(),
                NOW.plusSeconds(60));
    assertThat(result.decisions()).isEmpty();
    assertThat(result.requeueAt()).isNull();
  }

  @Test
  void theControllerWritesTheStatusAsTheDisruptionControllerWithTheBudgetsVersion() {
    Controller.Result result =
        new DisruptionController()
            .reconcile(
                "default",
                new DisruptionController.View(
                    List.of(budget("'minAvailable':2")), readyPods(3), List.of(), List.of()),
                new Expectations(),
                NOW);

    assertThat(result.decisions()).hasSize(1);
    Controller.Decision decision = result.decisions().get(0);
    assertThat(decision.actor().getUsername())
        .isEqualTo("system:serviceaccount:kube-system:disruption-controller");
    assertThat(decision.intent().verb()).isEqualTo(io.streamplane.log.CommandVerb.UPDATE_STATUS);
    assertThat(
            ((PodDisruptionBudget) decision.intent().object()).getMetadata().getResourceVersion())
        .isEqualTo("5");
  }
}
