package io.streamplane.bench.recovery;

import io.streamplane.bench.measure.TimeSeries;
import java.util.List;

/**
 * What one run measured. Times are seconds: {@code restart} after the kill; {@code ready} after the
 * restart; the writes and the pods after {@code ready}. NaN: it did not happen within the run's
 * timeout.
 *
 * @param scenario what was killed ({@code up}, {@code store}, {@code broker}, ...)
 * @param pods the Deployment's replicas
 * @param run the run's number, from 1
 * @param killed the process killed ({@code up}'s process group, {@code store-0}, {@code kafka-1}),
 *     or {@code nothing}
 * @param runningAtKill pods Running when the kill came
 * @param acknowledgedBeforeKill ConfigMap creates acknowledged before the kill
 * @param restart seconds from the kill to the restart
 * @param ready seconds from the restart to ready
 * @param firstWrite seconds from ready to the first acknowledged write sent at or after ready
 * @param everyPartitionWritten seconds from ready until a write sent at or after ready was
 *     acknowledged in every partition of the log
 * @param allRunning seconds from ready until every pod of the Deployment was Running
 * @param verdict the correctness checks
 * @param lagging the partitions that lagged after the kill, per view, longest first
 * @param apps per view, each application's peak lag and when it last lagged (after the kill)
 * @param signatures the lines of the logs since the restart that explain where time went
 * @param running pods Running over the run, seconds after the kill
 * @param lagPerApp the reported lag of each application, seconds after the kill
 * @param committedPerApp each application's lag against its committed offsets, seconds after the
 *     kill
 * @param problems what went wrong in the run itself (a request that failed, a timeout)
 */
record RunResult(
    String scenario,
    int pods,
    int run,
    String killed,
    int runningAtKill,
    int acknowledgedBeforeKill,
    double restart,
    double ready,
    double firstWrite,
    double everyPartitionWritten,
    double allRunning,
    RecoveryChecks.Verdict verdict,
    List<LaggingView> lagging,
    List<AppsView> apps,
    List<StallSignatures.Count> signatures,
    TimeSeries running,
    List<TimeSeries> lagPerApp,
    List<TimeSeries> committedPerApp,
    List<String> problems) {

  /** The lagging partitions of one view. */
  record LaggingView(LagTimeline.View view, List<LagTimeline.Lagging> partitions) {}

  /** The applications of one view. */
  record AppsView(LagTimeline.View view, List<LagTimeline.AppLag> apps) {}

  /** Seconds from the kill until every pod was Running again (NaN if never). */
  double killToAllRunning() {
    return restart + ready + allRunning;
  }
}
