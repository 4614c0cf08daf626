package io.streamplane.gateway.admission;

/**
 * A plugin that accepts or refuses a write as it will be stored, after every mutating plugin; it
 * refuses by throwing an {@link io.streamplane.gateway.api.ApiException} with the Status.
 */
public interface ValidatingAdmission {

  void validate(AdmissionRequest request);
}
