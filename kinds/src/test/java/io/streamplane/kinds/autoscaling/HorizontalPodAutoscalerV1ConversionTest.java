package io.streamplane.kinds.autoscaling;

import static io.streamplane.kinds.KindFixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class HorizontalPodAutoscalerV1ConversionTest {

  private final HorizontalPodAutoscalerV1Conversion conversion =
      new HorizontalPodAutoscalerV1Conversion();

  @Test
  void theV1CpuTargetIsTheV2CpuUtilizationMetricAndBack() {
    ObjectNode v1 =
        json(
            "{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','metadata':{'name':"
                + "'web'},'spec':{'scaleTargetRef':{'kind':'Deployment','name':'web'},"
                + "'maxReplicas':5,'targetCPUUtilizationPercentage':50}}");
    ObjectNode v2 = conversion.toStorage(v1);
    assertThat(v2.path("apiVersion").asText()).isEqualTo("autoscaling/v2");
    assertThat(v2.at("/spec/metrics").toString())
        .isEqualTo(
            "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"target\":"
                + "{\"type\":\"Utilization\",\"averageUtilization\":50}}}]");
    assertThat(v2.at("/spec/targetCPUUtilizationPercentage").isMissingNode()).isTrue();
    v2.putObject("status")
        .put("currentReplicas", 2)
        .put("desiredReplicas", 2)
        .putArray("currentMetrics")
        .add(
            json(
                "{'type':'Resource','resource':{'name':'cpu','current':{'averageUtilization':25,"
                    + "'averageValue':'25m'}}}"));
    ((ObjectNode) v2.get("status"))
        .putArray("conditions")
        .add(json("{'type':'AbleToScale','status':'True','reason':'ReadyForNewScale'}"));
    ObjectNode back = conversion.fromStorage(v2);
    assertThat(back.at("/spec/targetCPUUtilizationPercentage").asInt()).isEqualTo(50);
    assertThat(back.at("/spec/metrics").isMissingNode()).isTrue();
    assertThat(back.at("/status/currentCPUUtilizationPercentage").asInt()).isEqualTo(25);
    assertThat(
            back.at("/metadata/annotations")
                .path(HorizontalPodAutoscalerV1Conversion.CONDITIONS)
                .asText())
        .isEqualTo(
            "[{\"type\":\"AbleToScale\",\"status\":\"True\",\"reason\":\"ReadyForNewScale\"}]");
    // A v1 read-modify-write keeps the conditions and consumes the annotation.
    ObjectNode again = conversion.toStorage(back);
    assertThat(again.at("/status/conditions/0/reason").asText()).isEqualTo("ReadyForNewScale");
    assertThat(again.at("/metadata/annotations").isMissingNode()).isTrue();
  }
}
