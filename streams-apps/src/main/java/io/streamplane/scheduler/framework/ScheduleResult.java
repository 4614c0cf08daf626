package io.streamplane.scheduler.framework;

/**
 * The outcome of one scheduling decision: the chosen node, or Kubernetes' FailedScheduling message.
 * {@code requests} are the pod's requests, real and non-zero (what a binder adds to the node's
 * ledger, and what the scheduler assumes on the node until its view shows the binding), present in
 * both cases.
 */
public record ScheduleResult(String nodeName, PodRequests requests, String failureMessage) {

  public ScheduleResult {
    if ((nodeName == null) == (failureMessage == null)) {
      throw new IllegalArgumentException("exactly one of nodeName and failureMessage is set");
    }
  }

  public static ScheduleResult placed(String nodeName, PodRequests requests) {
    return new ScheduleResult(nodeName, requests, null);
  }

  public static ScheduleResult failed(PodRequests requests, String message) {
    return new ScheduleResult(null, requests, message);
  }

  public boolean scheduled() {
    return nodeName != null;
  }
}
