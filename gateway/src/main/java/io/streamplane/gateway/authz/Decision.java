package io.streamplane.gateway.authz;

/**
 * An authorizer's answer, as Kubernetes' {@code authorizer.Decision}: allow, deny, or no opinion
 * (the next authorizer decides); {@code reason} says why, for SubjectAccessReview and the audit.
 */
public record Decision(Verdict verdict, String reason) {

  public enum Verdict {
    ALLOW,
    DENY,
    NO_OPINION
  }

  public static Decision allow(String reason) {
    return new Decision(Verdict.ALLOW, reason);
  }

  public static Decision deny(String reason) {
    return new Decision(Verdict.DENY, reason);
  }

  public static Decision noOpinion(String reason) {
    return new Decision(Verdict.NO_OPINION, reason);
  }

  public boolean allowed() {
    return verdict == Verdict.ALLOW;
  }
}
