package io.streamplane.scheduler.framework;

/**
 * The outcome of one scheduling decision: the chosen node, or Kubernetes' FailedScheduling message
 * and, when evicting pods of lower priority makes room, the node to nominate and those pods ({@code
 * preemption}). {@code requests} are the pod's requests, real and non-zero (what a binder adds to
 * the node's ledger, and what the scheduler assumes on the node until its view shows the binding),
 * present in every case.
 */
public record ScheduleResult(
    String nodeName, PodRequests requests, String failureMessage, Preemption.Candidate preemption) {

  public ScheduleResult {
    if ((nodeName == null) == (failureMessage == null)) {
      throw new IllegalArgumentException("exactly one of nodeName and failureMessage is set");
    }
    if (nodeName != null && preemption != null) {
      throw new IllegalArgumentException("a placed pod preempts nothing");
    }
  }

  public static ScheduleResult placed(String nodeName, PodRequests requests) {
    return new ScheduleResult(nodeName, requests, null, null);
  }

  public static ScheduleResult failed(PodRequests requests, String message) {
    return new ScheduleResult(null, requests, message, null);
  }

  public static ScheduleResult preempting(
      PodRequests requests, String message, Preemption.Candidate preemption) {
    return new ScheduleResult(null, requests, message, preemption);
  }

  public boolean scheduled() {
    return nodeName != null;
  }
}
