package io.streamplane.node.probe;

import io.streamplane.api.Probe;
import java.time.Duration;
import java.time.Instant;

/**
 * The state of one probe of one container run, as the kubelet's probe worker keeps it: when it is
 * due next (initialDelaySeconds, then every periodSeconds), its current result, and the run of
 * equal outcomes that flips it (successThreshold, failureThreshold). Defaults are Kubernetes':
 * period 10 s, timeout 1 s, thresholds 1 and 3.
 *
 * <p>A readiness or startup probe starts failed (not ready, not started); a liveness probe starts
 * succeeded. Not thread-safe: one pod worker owns it.
 */
public final class ProbeWorker {

  private final Probe probe;
  private Instant due;
  private boolean result;
  private int successes;
  private int failures;
  private boolean inFlight;

  public ProbeWorker(Probe probe, boolean initialResult, Instant containerStarted) {
    this.probe = probe;
    this.result = initialResult;
    this.due = containerStarted.plusSeconds(orDefault(probe.getInitialDelaySeconds(), 0));
  }

  public Probe probe() {
    return probe;
  }

  /** The probe's current result. */
  public boolean result() {
    return result;
  }

  /** True after {@code failureThreshold} failures in a row, until the next success. */
  public boolean failedForGood() {
    return !result && failures >= orDefault(probe.getFailureThreshold(), 3);
  }

  /** Failures since the last success. */
  public int consecutiveFailures() {
    return failures;
  }

  public Duration timeout() {
    return Duration.ofSeconds(Math.max(1, orDefault(probe.getTimeoutSeconds(), 1)));
  }

  /** True when the probe should run now: due, and its last run has finished. */
  public boolean due(Instant now) {
    return !inFlight && !now.isBefore(due);
  }

  /** Marks the probe running; its outcome must be {@link #record}ed. */
  public void started(Instant now) {
    inFlight = true;
    due = now.plusSeconds(Math.max(1, orDefault(probe.getPeriodSeconds(), 10)));
  }

  /** Records one outcome; the result flips after enough equal outcomes in a row. */
  public void record(boolean success) {
    inFlight = false;
    if (success) {
      successes++;
      failures = 0;
      if (successes >= orDefault(probe.getSuccessThreshold(), 1)) {
        result = true;
      }
    } else {
      failures++;
      successes = 0;
      if (failures >= orDefault(probe.getFailureThreshold(), 3)) {
        result = false;
      }
    }
  }

  private static int orDefault(Integer value, int otherwise) {
    return value == null || value <= 0 ? otherwise : value;
  }
}
