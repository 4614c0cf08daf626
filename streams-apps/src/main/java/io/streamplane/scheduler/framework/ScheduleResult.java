package io.streamplane.scheduler.framework;

/**
 * The outcome of one scheduling decision: the chosen node, or Kubernetes' FailedScheduling message.
 * {@code requests} are the pod's requests (what a binder adds to the node's ledger), present in
 * both cases.
 */
public record ScheduleResult(String nodeName, Resources requests, String failureMessage) {

  public ScheduleResult {
    if ((nodeName == null) == (failureMessage == null)) {
      throw new IllegalArgumentException("exactly one of nodeName and failureMessage is set");
    }
  }

  public static ScheduleResult placed(String nodeName, Resources requests) {
    return new ScheduleResult(nodeName, requests, null);
  }

  public static ScheduleResult failed(Resources requests, String message) {
    return new ScheduleResult(null, requests, message);
  }

  public boolean scheduled() {
    return nodeName != null;
  }
}
