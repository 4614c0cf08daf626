package io.streamplane.gateway.admission;

import java.util.ArrayList;
import java.util.List;

/**
 * The admission link of the request chain, as kube-apiserver's: every mutating plugin in order,
 * then every validating plugin in order; the first refusal ends the write. The plugins and their
 * order are the lists given here (see {@code GatewayServer} for the cluster's).
 */
public final class Admission {

  private final List<MutatingAdmission> mutating;
  private final List<ValidatingAdmission> validating;

  public Admission(List<MutatingAdmission> mutating, List<ValidatingAdmission> validating) {
    this.mutating = List.copyOf(mutating);
    this.validating = List.copyOf(validating);
  }

  public static Admission none() {
    return new Admission(List.of(), List.of());
  }

  /**
   * Runs the chain over {@code request}, whose object may be changed in place; returns the warnings
   * the admitted write is answered with.
   */
  public List<String> admit(AdmissionRequest request) {
    for (MutatingAdmission plugin : mutating) {
      plugin.admit(request);
    }
    for (ValidatingAdmission plugin : validating) {
      plugin.validate(request);
    }
    List<String> warnings = new ArrayList<>();
    for (ValidatingAdmission plugin : validating) {
      warnings.addAll(plugin.warnings(request));
    }
    return warnings;
  }
}
