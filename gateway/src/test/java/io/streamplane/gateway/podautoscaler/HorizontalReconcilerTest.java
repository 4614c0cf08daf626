package io.streamplane.gateway.podautoscaler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.ContainerMetrics;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.Memory;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.Outcome;
import io.streamplane.gateway.podautoscaler.HorizontalReconciler.Target;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HorizontalReconcilerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
  private static final String LONG_AGO = "2026-01-01T11:00:00Z";

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  private static ObjectNode hpa() throws Exception {
    return (ObjectNode)
        json(
            "{'metadata':{'name':'web','namespace':'default','generation':1},'spec':{"
                + "'scaleTargetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':'web'},"
                + "'minReplicas':1,'maxReplicas':5,'metrics':[{'type':'Resource','resource':"
                + "{'name':'cpu','target':{'type':'Utilization','averageUtilization':50}}}],"
                + "'behavior':{'scaleUp':{'stabilizationWindowSeconds':0,'selectPolicy':'Max',"
                + "'policies':[{'type':'Pods','value':4,'periodSeconds':15}]},'scaleDown':{"
                + "'stabilizationWindowSeconds':10,'selectPolicy':'Max','policies':[{'type':"
                + "'Percent','value':100,'periodSeconds':15}]}}},'status':{'desiredReplicas':0}}");
  }

  private static Target scale(int replicas) throws Exception {
    return new Target(
        json(
            "{'spec':{'replicas':"
                + replicas
                + "},'status':{'replicas':"
                + replicas
                + ",'selector':'app=web'}}"),
        null);
  }

  private static List<JsonNode> pods(int n) throws Exception {
    List<JsonNode> pods = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      pods.add(
          json(
              "{'metadata':{'name':'web-"
                  + i
                  + "'},'spec':{'containers':[{'name':'main','resources':{'requests':{'cpu':'100m'}}}]},"
                  + "'status':{'phase':'Running','startTime':'"
                  + LONG_AGO
                  + "','conditions':[{'type':'Ready','status':'True','lastTransitionTime':'"
                  + LONG_AGO
                  + "'}]}}"));
    }
    return pods;
  }

  private static Map<String, ContainerMetrics> using(int n, long milli) {
    Map<String, ContainerMetrics> metrics = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      metrics.put(
          "web-" + i,
          new ContainerMetrics(
              Map.of("main", milli), Map.of("main", 0L), NOW, Duration.ofSeconds(15)));
    }
    return metrics;
  }

  @Test
  void aBusyTargetIsScaledUpAndTheStatusSaysWhy() throws Exception {
    Outcome outcome =
        HorizontalReconciler.reconcile(hpa(), scale(1), pods(1), using(1, 100), Memory.EMPTY, NOW);
    assertThat(outcome.scaleTo()).isEqualTo(2);
    assertThat(outcome.rescaleReason())
        .as("the SuccessfulRescale Event's reason")
        .isEqualTo("cpu resource utilization (percentage of request) above target");
    JsonNode status = outcome.status();
    assertThat(status.path("currentReplicas").asInt()).isEqualTo(1);
    assertThat(status.path("desiredReplicas").asInt()).isEqualTo(2);
    assertThat(status.path("lastScaleTime").asText()).isEqualTo("2026-01-01T12:00:00Z");
    assertThat(status.at("/currentMetrics/0/resource/current/averageUtilization").asInt())
        .isEqualTo(100);
    assertThat(status.at("/currentMetrics/0/resource/current/averageValue").asText())
        .isEqualTo("100m");
    assertThat(status.at("/conditions/0/reason").asText()).isEqualTo("SucceededRescale");
    assertThat(status.at("/conditions/1/reason").asText()).isEqualTo("ValidMetricFound");
    assertThat(status.at("/conditions/1/message").asText())
        .isEqualTo(
            "the HPA was able to successfully calculate a replica count from cpu resource"
                + " utilization (percentage of request)");
    assertThat(status.at("/conditions/2/reason").asText()).isEqualTo("DesiredWithinRange");
  }

  @Test
  void aConvergedAutoscalerDecidesNothingAndKeepsItsStatus() throws Exception {
    ObjectNode hpa = hpa();
    Outcome first =
        HorizontalReconciler.reconcile(hpa, scale(2), pods(2), using(2, 50), Memory.EMPTY, NOW);
    assertThat(first.scaleTo()).isNull();
    hpa.set("status", first.status());
    Outcome second =
        HorizontalReconciler.reconcile(
            hpa, scale(2), pods(2), using(2, 50), first.memory(), NOW.plusSeconds(15));
    assertThat(second.scaleTo()).isNull();
    assertThat(second.status()).isEqualTo(hpa.get("status"));
  }

  @Test
  void anIdleTargetIsScaledDownOnceItsWindowHoldsNothingHigher() throws Exception {
    ObjectNode hpa = hpa();
    Outcome busy =
        HorizontalReconciler.reconcile(hpa, scale(4), pods(4), using(4, 50), Memory.EMPTY, NOW);
    assertThat(busy.scaleTo()).isNull();
    hpa.set("status", busy.status());
    Outcome idle =
        HorizontalReconciler.reconcile(
            hpa, scale(4), pods(4), using(4, 0), busy.memory(), NOW.plusSeconds(5));
    assertThat(idle.scaleTo()).isNull(); // the recommendation of 4, 5 s ago, holds it
    assertThat(idle.status().at("/conditions/0/reason").asText()).isEqualTo("ScaleDownStabilized");
    Outcome later =
        HorizontalReconciler.reconcile(
            hpa, scale(4), pods(4), using(4, 0), idle.memory(), NOW.plusSeconds(20));
    assertThat(later.scaleTo()).isEqualTo(1);
    assertThat(later.rescaleReason()).isEqualTo("All metrics below target");
  }

  @Test
  void withoutFiguresTheAutoscalerIsNotActiveAndScalesNothing() throws Exception {
    Outcome outcome =
        HorizontalReconciler.reconcile(hpa(), scale(2), pods(2), Map.of(), Memory.EMPTY, NOW);
    assertThat(outcome.scaleTo()).isNull();
    assertThat(outcome.status().at("/conditions/1/type").asText()).isEqualTo("ScalingActive");
    assertThat(outcome.status().at("/conditions/1/status").asText()).isEqualTo("False");
    assertThat(outcome.status().at("/conditions/1/reason").asText())
        .isEqualTo("FailedGetResourceMetric");
    assertThat(outcome.status().at("/conditions/1/message").asText())
        .isEqualTo(
            "the HPA was unable to compute the replica count: failed to get cpu utilization:"
                + " unable to get metrics for resource cpu: no metrics returned from resource"
                + " metrics API");
  }

  @Test
  void aTargetScaledToZeroDisablesScaling() throws Exception {
    Outcome outcome =
        HorizontalReconciler.reconcile(hpa(), scale(0), pods(0), Map.of(), Memory.EMPTY, NOW);
    assertThat(outcome.scaleTo()).isNull();
    assertThat(outcome.status().at("/conditions/1/reason").asText()).isEqualTo("ScalingDisabled");
  }

  private static Target scale(int spec, int status, String selector) throws Exception {
    ObjectNode scale =
        (ObjectNode)
            json("{'spec':{'replicas':" + spec + "},'status':{'replicas':" + status + "}}");
    if (selector != null) {
      ((ObjectNode) scale.get("status")).put("selector", selector);
    }
    return new Target(scale, null);
  }

  @Test
  void theTargetsReplicasAreItsScalesSpecNotWhatItsControllerObservedYet() throws Exception {
    // A custom resource scaled to 3 whose operator has not yet written status.replicas.
    Outcome outcome =
        HorizontalReconciler.reconcile(
            hpa(), scale(3, 0, "app=web"), pods(3), using(3, 50), Memory.EMPTY, NOW);
    assertThat(outcome.scaleTo()).as("not below minReplicas: 3 were asked for").isNull();
    assertThat(outcome.status().path("currentReplicas").asInt()).isEqualTo(3);
    assertThat(outcome.status().path("desiredReplicas").asInt()).isEqualTo(3);
    assertThat(outcome.status().at("/conditions/1/reason").asText()).isEqualTo("ValidMetricFound");
  }

  @Test
  void aScaleWithoutASelectorLeavesTheAutoscalerAbleToScaleButNotActive() throws Exception {
    Outcome outcome =
        HorizontalReconciler.reconcile(
            hpa(), scale(2, 2, null), List.of(), Map.of(), Memory.EMPTY, NOW);
    assertThat(outcome.scaleTo()).isNull();
    JsonNode status = outcome.status();
    assertThat(status.at("/conditions/0/type").asText()).isEqualTo("AbleToScale");
    assertThat(status.at("/conditions/0/status").asText()).isEqualTo("True");
    assertThat(status.at("/conditions/0/reason").asText()).isEqualTo("SucceededGetScale");
    assertThat(status.at("/conditions/1/type").asText()).isEqualTo("ScalingActive");
    assertThat(status.at("/conditions/1/status").asText()).isEqualTo("False");
    assertThat(status.at("/conditions/1/reason").asText()).isEqualTo("InvalidSelector");
    assertThat(status.at("/conditions/1/message").asText())
        .isEqualTo("the HPA target's scale is missing a selector");
    assertThat(status.path("currentReplicas").asInt()).isEqualTo(2);

    Outcome unparsable =
        HorizontalReconciler.reconcile(
            hpa(), scale(2, 2, "app in (web"), List.of(), Map.of(), Memory.EMPTY, NOW);
    assertThat(unparsable.scaleTo()).isNull();
    assertThat(unparsable.status().at("/conditions/1/reason").asText())
        .isEqualTo("InvalidSelector");
    assertThat(unparsable.status().at("/conditions/1/message").asText())
        .startsWith("couldn't convert selector into a corresponding internal selector object: ");

    // Bringing the target within minReplicas and maxReplicas needs no pods.
    Outcome belowMin =
        HorizontalReconciler.reconcile(
            hpa(), scale(0, 0, null), List.of(), Map.of(), Memory.EMPTY, NOW);
    assertThat(belowMin.scaleTo()).isNull(); // 0 replicas: scaling is disabled
    Outcome aboveMax =
        HorizontalReconciler.reconcile(
            hpa(), scale(7, 7, null), List.of(), Map.of(), Memory.EMPTY, NOW);
    assertThat(aboveMax.scaleTo()).isEqualTo(5);
    assertThat(aboveMax.rescaleReason())
        .isEqualTo("Current number of replicas above Spec.MaxReplicas");
  }
}
