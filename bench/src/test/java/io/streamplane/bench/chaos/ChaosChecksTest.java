package io.streamplane.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.bench.chaos.Ledger.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChaosChecksTest {

  private static final String NS = "chaos";
  private static final String KEY = "configmaps/chaos/register-0";

  private static LogHistory.Event event(String type, String version, long offset, String value) {
    return new LogHistory.Event(type, "configmaps", "register-0", version, 0, offset, value, 0);
  }

  private static Ledger.Op write(
      long id, String kind, String precondition, String written, String version, Outcome outcome) {
    return new Ledger.Op(
        id,
        0,
        "gw",
        kind,
        "configmaps",
        NS,
        "register-0",
        id * 10,
        id * 10 + 5,
        outcome,
        outcome == Outcome.OK ? 200 : 0,
        null,
        precondition,
        written,
        version,
        null);
  }

  private static LogHistory log() {
    LogHistory log = new LogHistory();
    log.add(KEY, event("ADDED", "11", 10, "a"));
    log.add(KEY, event("MODIFIED", "13", 12, "b"));
    log.add(KEY, event("DELETED", "15", 14, "b"));
    return log;
  }

  @Test
  void acknowledgedWritesFoundInTheLogAreNotLost() {
    List<Ledger.Op> ops =
        List.of(
            write(1, "configmap-create", null, "a", "11", Outcome.OK),
            write(2, "configmap-update", "11", "b", "13", Outcome.OK),
            write(3, "configmap-delete", "13", null, null, Outcome.OK));

    assertThat(ChaosChecks.lostWrites(ops, log())).isEmpty();
  }

  @Test
  void anAcknowledgedWriteMissingFromTheLogIsLost() {
    List<Ledger.Op> ops =
        List.of(
            write(1, "configmap-update", "13", "c", "17", Outcome.OK),
            write(2, "configmap-update", "11", "z", "13", Outcome.OK),
            write(3, "configmap-delete", "11", null, null, Outcome.OK));

    List<String> lost = ChaosChecks.lostWrites(ops, log());

    assertThat(lost).hasSize(3);
    assertThat(lost.get(0)).contains("no event with resourceVersion 17");
    assertThat(lost.get(1)).contains("holds b, not z");
    assertThat(lost.get(2)).contains("no DELETED event");
  }

  @Test
  void unacknowledgedWritesAreNeverCountedAsLost() {
    List<Ledger.Op> ops =
        List.of(
            write(1, "configmap-update", "13", "c", null, Outcome.UNKNOWN),
            write(2, "configmap-update", "11", "d", null, Outcome.FAILED));

    assertThat(ChaosChecks.lostWrites(ops, log())).isEmpty();
  }

  @Test
  void aWriteWithAnUnknownOutcomeFoundInTheLogIsCheckedAsApplied() {
    // The update's answer never came, but the log has its value at 13; the read at 13 is legal
    // only if the update is taken as applied.
    LogHistory log = new LogHistory();
    log.add(KEY, event("ADDED", "11", 10, "a"));
    log.add(KEY, event("MODIFIED", "13", 12, "b"));
    Ledger.Op read =
        new Ledger.Op(
            3,
            1,
            "gw",
            "configmap-read",
            "configmaps",
            NS,
            "register-0",
            40,
            45,
            Outcome.OK,
            200,
            null,
            null,
            null,
            "13",
            "b");
    List<Ledger.Op> ops =
        List.of(
            write(1, "configmap-create", null, "a", "11", Outcome.OK),
            write(2, "configmap-update", "11", "b", null, Outcome.UNKNOWN),
            read);

    ChaosChecks.Linearizability lin = ChaosChecks.linearizability(ops, log, 1);

    assertThat(lin.failed()).isZero();
    assertThat(lin.resolved()).isEqualTo(1);
  }

  @Test
  void aReadOfAVersionOverwrittenBeforeItWasSentIsNotLinearizable() {
    Ledger.Op staleRead =
        new Ledger.Op(
            3,
            1,
            "gw",
            "configmap-read",
            "configmaps",
            NS,
            "register-0",
            40,
            45,
            Outcome.OK,
            200,
            null,
            null,
            null,
            "11",
            "a");
    List<Ledger.Op> ops =
        List.of(
            write(1, "configmap-create", null, "a", "11", Outcome.OK),
            write(2, "configmap-update", "11", "b", "13", Outcome.OK),
            staleRead);

    assertThat(ChaosChecks.linearizability(ops, log(), 1).failed()).isEqualTo(1);
  }

  private static WatchRecorder.Received got(int segment, String type, String version) {
    return new WatchRecorder.Received(segment, type, "register-0", version);
  }

  private static WatchRecorder.Segment segment(int id, String from, boolean relisted) {
    return new WatchRecorder.Segment(id, "gw", from, relisted, Map.of());
  }

  @Test
  void aWatchThatSawEveryEventOnceInOrderHasNoAnomalies() {
    ChaosChecks.WatchFindings f =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false)),
            List.of(got(0, "ADDED", "11"), got(0, "MODIFIED", "13"), got(0, "DELETED", "15")),
            log(),
            NS);

    assertThat(f.anomalies()).isZero();
  }

  @Test
  void eventsSentAgainAfterAResumeFromAnOlderBookmarkAreNotDuplicates() {
    // Resumed from L12: the event at offset 12 may come again, as the client asked for it.
    ChaosChecks.WatchFindings f =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false), segment(1, "L12", false)),
            List.of(
                got(0, "ADDED", "11"),
                got(0, "MODIFIED", "13"),
                got(1, "MODIFIED", "13"),
                got(1, "DELETED", "15")),
            log(),
            NS);

    assertThat(f.anomalies()).isZero();
    assertThat(f.redelivered()).isEqualTo(1);
  }

  @Test
  void aMissedEventADuplicateAndAReorderingAreEachFound() {
    ChaosChecks.WatchFindings gap =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false)),
            List.of(got(0, "ADDED", "11"), got(0, "DELETED", "15")),
            log(),
            NS);
    ChaosChecks.WatchFindings duplicate =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false)),
            List.of(
                got(0, "ADDED", "11"),
                got(0, "MODIFIED", "13"),
                got(0, "MODIFIED", "13"),
                got(0, "DELETED", "15")),
            log(),
            NS);
    ChaosChecks.WatchFindings resumedTooEarly =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false), segment(1, "L14", false)),
            List.of(
                got(0, "ADDED", "11"),
                got(0, "MODIFIED", "13"),
                got(1, "MODIFIED", "13"),
                got(1, "DELETED", "15")),
            log(),
            NS);
    ChaosChecks.WatchFindings reordered =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false)),
            List.of(got(0, "ADDED", "11"), got(0, "DELETED", "15"), got(0, "MODIFIED", "13")),
            log(),
            NS);

    assertThat(gap.gaps()).containsExactly("MODIFIED register-0 rv 13");
    assertThat(duplicate.duplicates()).hasSize(1);
    assertThat(resumedTooEarly.duplicates()).hasSize(1);
    assertThat(reordered.reorders()).hasSize(1);
  }

  @Test
  void eventsBeforeARelistAreCoveredByTheList() {
    ChaosChecks.WatchFindings f =
        ChaosChecks.watch(
            List.of(segment(0, "L0", false), segment(1, "L14", true)),
            List.of(got(0, "ADDED", "11"), got(1, "DELETED", "15")),
            log(),
            NS);

    assertThat(f.anomalies()).isZero();
    assertThat(f.relists()).isEqualTo(1);
  }

  @Test
  void podsBeyondReplicasPlusMaxSurgeAreCountedAfterTheScaleDownWindow() {
    long s = 1_000_000_000L;
    Ledger.Op scaleDown = scaleToTwo(10 * s);
    List<PodSampler.Sample> samples =
        List.of(
            new PodSampler.Sample(5 * s, "web-0", 4, "{}"),
            new PodSampler.Sample(6 * s, "web-0", 5, "{}"),
            new PodSampler.Sample(20 * s, "web-0", 4, "{}"),
            new PodSampler.Sample(60 * s, "web-0", 4, "{}"));

    List<String> beyond = PodSampler.beyondSurge(samples, List.of(scaleDown), List.of(), 3, 1);

    assertThat(beyond).hasSize(2);
    assertThat(beyond.get(0)).startsWith("web-0: 5 live pods at 6.0 s");
    assertThat(beyond.get(1)).startsWith("web-0: 4 live pods at 60.0 s");
  }

  /** web-0 scaled to 2 at {@code invoked}, answered a second later. */
  private static Ledger.Op scaleToTwo(long invoked) {
    return new Ledger.Op(
        1,
        0,
        "gw",
        "deployment-scale",
        "deployments",
        NS,
        "web-0",
        invoked,
        invoked + 1_000_000_000L,
        Outcome.OK,
        200,
        null,
        null,
        "2",
        "7",
        null);
  }

  @Test
  void aControllerThatHasNotActedOnAScaleDownIsHeldToTheReplicasItLastActedOn() {
    long s = 1_000_000_000L;
    Ledger.Op scaleDown = scaleToTwo(10 * s);
    // Generation 1 asks for 3 and its controller acted on it; generation 2 asks for 2, and the
    // controller reports acting on it only at 90 s.
    List<PodSampler.Version> versions =
        List.of(
            new PodSampler.Version(1 * s, "web-0", 1, 3, 1),
            new PodSampler.Version(11 * s, "web-0", 2, 2, 1),
            new PodSampler.Version(90 * s, "web-0", 2, 2, 2));
    List<PodSampler.Sample> samples =
        List.of(
            new PodSampler.Sample(60 * s, "web-0", 4, "{}"),
            new PodSampler.Sample(70 * s, "web-0", 5, "{}"),
            new PodSampler.Sample(95 * s, "web-0", 4, "{}"));

    List<String> beyond = PodSampler.beyondSurge(samples, List.of(scaleDown), versions, 3, 1);

    assertThat(beyond).hasSize(2);
    assertThat(beyond.get(0)).startsWith("web-0: 5 live pods at 70.0 s (replicas 3 + maxSurge 1)");
    assertThat(beyond.get(1)).startsWith("web-0: 4 live pods at 95.0 s (replicas 2 + maxSurge 1)");
  }

  private static com.fasterxml.jackson.databind.JsonNode json(String singleQuoted) {
    try {
      return io.streamplane.bench.load.KubeClient.JSON.readTree(singleQuoted.replace('\'', '"'));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aJobCountingMorePodsThanWereSeenCountedOneTwiceAndOneCountingFewerLostOne() {
    var exact =
        json(
            "{'metadata':{'uid':'a','name':'job-0'},'status':{'succeeded':3,"
                + "'conditions':[{'type':'Complete','status':'True'}]}}");
    var twice =
        json(
            "{'metadata':{'uid':'b','name':'job-1'},'status':{'succeeded':3,'failed':1,"
                + "'conditions':[{'type':'Complete','status':'True'}]}}");
    var short_ =
        json(
            "{'metadata':{'uid':'c','name':'job-2'},'status':{'succeeded':2,"
                + "'conditions':[{'type':'Complete','status':'True'}]}}");

    ChaosChecks.JobCounts counts =
        ChaosChecks.jobCounts(
            List.of(exact, twice, short_),
            Map.of(
                "a", java.util.Set.of("1", "2", "3"),
                "b", java.util.Set.of("4", "5", "6"),
                "c", java.util.Set.of("7", "8", "9")),
            Map.of());

    assertThat(counts.countedTwice()).isEqualTo(1);
    assertThat(counts.lost()).isEqualTo(1);
    assertThat(counts.findings()).hasSize(2);
  }

  @Test
  void statefulSetOrdinalsHeldTwiceOrBeyondTheReplicasAreFound() {
    var pods =
        List.of(
            json("{'metadata':{'labels':{'app':'db','apps.kubernetes.io/pod-index':'0'}}}"),
            json("{'metadata':{'labels':{'app':'db','apps.kubernetes.io/pod-index':'1'}}}"),
            json("{'metadata':{'labels':{'app':'db','apps.kubernetes.io/pod-index':'1'}}}"),
            json("{'metadata':{'labels':{'app':'db','apps.kubernetes.io/pod-index':'2'}}}"),
            json(
                "{'metadata':{'deletionTimestamp':'x',"
                    + "'labels':{'app':'db','apps.kubernetes.io/pod-index':'0'}}}"));

    assertThat(ChaosChecks.statefulOrdinals(pods, "db", 2))
        .containsExactly(
            "db ordinal 1: 2 live pods (replicas 2)", "db ordinal 2: 1 live pods (replicas 2)");
  }

  @Test
  void aReadyNodeWithoutExactlyOneDaemonPodIsFound() {
    String ready = "'status':{'conditions':[{'type':'Ready','status':'True'}]}";
    var nodes =
        List.of(
            json("{'metadata':{'name':'n1'}," + ready + "}"),
            json("{'metadata':{'name':'n2'}," + ready + "}"),
            json("{'metadata':{'name':'n3'}," + ready + "}"),
            json("{'metadata':{'name':'down'},'status':{'conditions':[]}}"));
    var pods =
        List.of(
            json("{'metadata':{'labels':{'app':'agent'}},'spec':{'nodeName':'n1'}}"),
            json("{'metadata':{'labels':{'app':'agent'}},'spec':{'nodeName':'n2'}}"),
            json("{'metadata':{'labels':{'app':'agent'}},'spec':{'nodeName':'n2'}}"),
            json(
                "{'metadata':{'labels':{'app':'agent'}},'spec':{'nodeName':'n3'},"
                    + "'status':{'phase':'Failed'}}"));

    assertThat(ChaosChecks.daemonPodsPerNode(nodes, pods, "agent"))
        .containsExactly("n2: 2 pods of agent", "n3: 0 pods of agent");
  }
}
