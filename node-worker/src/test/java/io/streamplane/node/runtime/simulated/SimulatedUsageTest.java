package io.streamplane.node.runtime.simulated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.Pod;
import io.streamplane.node.runtime.PodRuntime.ContainerUsage;
import io.streamplane.schema.convert.KubeJson;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedUsageTest {

  private static final String TWO_CONTAINERS =
      "{'containers':[{'name':'web','image':'nginx','resources':{'requests':{'cpu':'100m',"
          + "'memory':'32Mi'}}},{'name':'log','image':'busybox'}]}";

  @Test
  void aContainerUsesWhatItRequestsWithoutTheAnnotation() {
    Pod pod = pod(null, TWO_CONTAINERS);
    assertEquals(new SimulatedUsage.Rate(100_000_000L, 32 << 20), SimulatedUsage.rate(pod, "web"));
    assertEquals(new SimulatedUsage.Rate(0, 0), SimulatedUsage.rate(pod, "log"));
  }

  @Test
  void theAnnotationSetsEveryContainerAndAContainersOwnEntryWins() {
    Pod pod = pod("cpu=250m,memory=64Mi,log.cpu=1,bogus=3,web.memory=x", TWO_CONTAINERS);
    assertEquals(new SimulatedUsage.Rate(250_000_000L, 64 << 20), SimulatedUsage.rate(pod, "web"));
    assertEquals(
        new SimulatedUsage.Rate(1_000_000_000L, 64 << 20), SimulatedUsage.rate(pod, "log"));
  }

  @Test
  void cpuAccumulatesAtTheRateInForceSinceTheLastReading() {
    SimulatedUsage usage = new SimulatedUsage();
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    List<String> web = List.of("web");
    assertEquals(
        new ContainerUsage(0, 32 << 20, t0),
        usage.read("s", pod(null, TWO_CONTAINERS), web, t0).get("web"));
    // 10 s at 100m: one core-second.
    Pod busier = pod("cpu=500m", TWO_CONTAINERS);
    assertEquals(
        1_000_000_000L, usage.read("s", busier, web, t0.plusSeconds(10)).get("web").cpuNanos());
    // then 2 s at 500m.
    assertEquals(
        2_000_000_000L, usage.read("s", busier, web, t0.plusSeconds(12)).get("web").cpuNanos());
    usage.forget("s");
    assertEquals(0, usage.read("s", busier, web, t0.plusSeconds(20)).get("web").cpuNanos());
  }

  private static Pod pod(String annotation, String spec) {
    String metadata =
        annotation == null
            ? "{'name':'web','namespace':'team-a'}"
            : "{'name':'web','namespace':'team-a','annotations':{'streamplane.io/simulated-usage':'"
                + annotation
                + "'}}";
    JsonNode json =
        KubeJson.parseJson(
            ("{'metadata':" + metadata + ",'spec':" + spec + "}").replace('\'', '"'));
    return new KubeJson().toAvro(json, Pod.class).record();
  }
}
