package io.streamplane.kinds.autoscaling;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.HorizontalPodAutoscaler;
import io.streamplane.kinds.KindFixtures;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class HorizontalPodAutoscalerStrategyTest {

  private final HorizontalPodAutoscalerStrategy strategy = new HorizontalPodAutoscalerStrategy();

  private static final String REF =
      "'scaleTargetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':'web'}";

  private static String hpa(String spec) {
    return "{'metadata':{'name':'web','namespace':'default'},'spec':{" + spec + "}}";
  }

  private HorizontalPodAutoscaler created(String spec) {
    return KindFixtures.created(strategy, hpa(spec), HorizontalPodAutoscaler.class);
  }

  @Test
  void defaultsAreOneReplicaAnEightyPercentCpuTargetAndTheBehaviorsMissingRules() {
    ObjectNode hpa =
        json(
            hpa(
                REF
                    + ",'maxReplicas':5,'behavior':{'scaleDown':{'stabilizationWindowSeconds':30}}"));
    strategy.applyDefaults(hpa, true);
    assertThat(hpa.at("/spec/minReplicas").asInt()).isEqualTo(1);
    assertThat(hpa.at("/spec/metrics").toString())
        .isEqualTo(
            "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"target\":"
                + "{\"type\":\"Utilization\",\"averageUtilization\":80}}}]");
    assertThat(hpa.at("/spec/behavior/scaleUp").toString())
        .isEqualTo(
            "{\"stabilizationWindowSeconds\":0,\"selectPolicy\":\"Max\",\"policies\":["
                + "{\"type\":\"Pods\",\"value\":4,\"periodSeconds\":15},"
                + "{\"type\":\"Percent\",\"value\":100,\"periodSeconds\":15}]}");
    assertThat(hpa.at("/spec/behavior/scaleDown").toString())
        .isEqualTo(
            "{\"stabilizationWindowSeconds\":30,\"selectPolicy\":\"Max\",\"policies\":["
                + "{\"type\":\"Percent\",\"value\":100,\"periodSeconds\":15}]}");
    ObjectNode none = json(hpa(REF + ",'maxReplicas':5"));
    strategy.applyDefaults(none, true);
    assertThat(none.at("/spec/behavior").isMissingNode()).isTrue();
  }

  @Test
  void replicaBoundsTargetAndMetricsAreValidated() {
    assertThat(strategy.validate(created(REF + ",'minReplicas':1,'maxReplicas':5"))).isEmpty();
    assertThat(messages(strategy.validate(created(REF + ",'minReplicas':3,'maxReplicas':2"))))
        .containsExactly(
            "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`");
    assertThat(messages(strategy.validate(created("'minReplicas':0,'maxReplicas':0"))))
        .containsExactly(
            "spec.scaleTargetRef.kind: Required value",
            "spec.scaleTargetRef.name: Required value",
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
            "spec.maxReplicas: Invalid value: 0: must be greater than 0");
    assertThat(
            messages(
                strategy.validate(
                    created(
                        REF
                            + ",'maxReplicas':2,'metrics':[{'type':'Resource'},"
                            + "{'type':'Resource','resource':{'name':'cpu','target':"
                            + "{'type':'Utilization','averageUtilization':0}}}]"))))
        .containsExactly(
            "spec.metrics[0].resource: Required value: must populate information for the given"
                + " metric source",
            "spec.metrics[1].resource.target.averageUtilization: Invalid value: 0: must be"
                + " greater than 0");
  }

  @Test
  void behaviorRulesAreValidated() {
    assertThat(
            messages(
                strategy.validate(
                    created(
                        REF
                            + ",'maxReplicas':2,'behavior':{'scaleDown':{"
                            + "'stabilizationWindowSeconds':3601,'selectPolicy':'Most',"
                            + "'policies':[{'type':'Pods','value':0,'periodSeconds':1801}]}}"))))
        .containsExactly(
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be"
                + " less than or equal to 3600",
            "spec.behavior.scaleDown.selectPolicy: Unsupported value: \"Most\": supported values:"
                + " \"Disabled\", \"Max\", \"Min\"",
            "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than"
                + " zero",
            "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less"
                + " than or equal to 1800");
  }

  @Test
  void printsAsKubeApiserverDoesWithEachTargetNamed() {
    assertThat(columns(strategy))
        .containsExactly("Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age");
    String metrics =
        "'metrics':[{'type':'Resource','resource':{'name':'cpu','target':{'type':'Utilization',"
            + "'averageUtilization':50}}},{'type':'Resource','resource':{'name':'memory',"
            + "'target':{'type':'AverageValue','averageValue':'64Mi'}}}]";
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web','creationTimestamp':'"
                    + KindFixtures.CREATED
                    + "'},'spec':{"
                    + REF
                    + ",'minReplicas':1,'maxReplicas':5,"
                    + metrics
                    + "},'status':{'currentReplicas':2,'currentMetrics':[{'type':'Resource',"
                    + "'resource':{'name':'cpu','current':{'averageUtilization':25}}}]}}"))
        .containsExactly(
            "web", "Deployment/web", "cpu: 25%/50%, memory: <unknown>/64Mi", "1", 5L, 2L, "60m");
  }

  @Test
  void isServedInV2AndV1AsHpaWithStatus() {
    ResourceRegistry registry = ResourceRegistry.kubernetes();
    ResourceType v2 =
        registry.served("autoscaling", "v2", "horizontalpodautoscalers").orElseThrow();
    assertThat(v2.shortNames()).containsExactly("hpa");
    assertThat(v2.categories()).containsExactly("all");
    assertThat(v2.subresource("status")).isPresent();
    assertThat(registry.versions("autoscaling")).containsExactly("v2", "v1");
    assertThat(
            registry
                .byApiVersionKind("autoscaling/v1", "HorizontalPodAutoscaler")
                .orElseThrow()
                .isView())
        .isTrue();
  }
}
