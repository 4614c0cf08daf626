package io.streamplane.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryChecksTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anAcknowledgedCreateMissingFromTheListIsLost() throws Exception {
    JsonNode list = json("{'items':[{'metadata':{'name':'a'}},{'metadata':{'name':'c'}}]}");

    assertThat(RecoveryChecks.lost(List.of("a", "b", "c", "d"), list)).containsExactly("b", "d");
  }

  @Test
  void podsBeingDeletedOrFinishedAreNotLiveAndOnlyLiveRunningPodsCount() throws Exception {
    JsonNode pods =
        json(
            "{'items':["
                + "{'metadata':{'name':'a'},'status':{'phase':'Running'}},"
                + "{'metadata':{'name':'b'},'status':{'phase':'Pending'}},"
                + "{'metadata':{'name':'c','deletionTimestamp':'2026-01-01T00:00:00Z'},"
                + "'status':{'phase':'Running'}},"
                + "{'metadata':{'name':'d'},'status':{'phase':'Succeeded'}}]}");

    assertThat(RecoveryChecks.livePods(pods)).isEqualTo(2);
    assertThat(RecoveryChecks.runningPods(pods)).isEqualTo(1);
  }

  @Test
  void onlyReplicaSetsTheDeploymentControlsCount() throws Exception {
    JsonNode sets =
        json(
            "{'items':["
                + "{'metadata':{'ownerReferences':[{'kind':'Deployment','name':'web','controller':true}]}},"
                + "{'metadata':{'ownerReferences':[{'kind':'Deployment','name':'web','controller':false}]}},"
                + "{'metadata':{'ownerReferences':[{'kind':'Deployment','name':'other','controller':true}]}},"
                + "{'metadata':{}}]}");

    assertThat(RecoveryChecks.replicaSetsOf(sets, "web")).isEqualTo(1);
  }

  @Test
  void aNodeWhoseLivePodsRequestMoreThanItsAllocatableIsOverCommitted() throws Exception {
    JsonNode nodes =
        json(
            "{'items':["
                + "{'metadata':{'name':'n1'},'status':{'allocatable':{'cpu':'1','memory':'1Gi','pods':'10'}}},"
                + "{'metadata':{'name':'n2'},'status':{'allocatable':{'cpu':'1','memory':'1Gi','pods':'10'}}}]}");
    JsonNode pods =
        json(
            "{'items':["
                + pod("n1", "600m", null, false)
                + ","
                + pod("n1", "600m", null, false)
                + ","
                + pod("n2", "600m", null, false)
                + ","
                + pod("n2", "600m", null, true)
                + "]}");

    List<String> over = RecoveryChecks.overCommitted(nodes, pods);

    assertThat(over).hasSize(1);
    assertThat(over.get(0)).startsWith("node n1 over-committed: 1200m CPU of 1000m");
  }

  @Test
  void aPodRequestsItsContainersSumOrItsLargestInitContainerPlusOverhead() throws Exception {
    JsonNode spec =
        json(
            "{'containers':[{'resources':{'requests':{'cpu':'100m','memory':'64Mi'}}},"
                + "{'resources':{'requests':{'cpu':'200m'}}}],"
                + "'initContainers':[{'resources':{'requests':{'cpu':'500m','memory':'32Mi'}}}],"
                + "'overhead':{'cpu':'10m'}}");

    assertThat(RecoveryChecks.requests(spec)).containsExactly(510, 64L * 1024 * 1024);
  }

  @Test
  void aVerdictSaysEachCheckThatFailed() {
    RecoveryChecks.Verdict ok = new RecoveryChecks.Verdict(40, List.of(), 200, 200, 1, List.of());
    RecoveryChecks.Verdict bad =
        new RecoveryChecks.Verdict(40, List.of("burst-0-3"), 201, 200, 2, List.of("node n1 ..."));

    assertThat(ok.ok()).isTrue();
    assertThat(bad.problems())
        .containsExactly(
            "1 of 40 acknowledged ConfigMap creates missing: burst-0-3",
            "201 live pods, not 200",
            "2 ReplicaSets of the Deployment, not 1",
            "node n1 ...");
  }

  private static String pod(String node, String cpu, String memory, boolean deleted) {
    return "{'metadata':{"
        + (deleted ? "'deletionTimestamp':'2026-01-01T00:00:00Z'" : "")
        + "},'spec':{'nodeName':'"
        + node
        + "','containers':[{'resources':{'requests':{'cpu':'"
        + cpu
        + "'"
        + (memory == null ? "" : ",'memory':'" + memory + "'")
        + "}}}]},'status':{'phase':'Running'}}";
  }

  private static JsonNode json(String singleQuoted) throws Exception {
    return JSON.readTree(singleQuoted.replace('\'', '"'));
  }
}
