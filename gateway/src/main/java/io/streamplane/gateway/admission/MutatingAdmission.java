package io.streamplane.gateway.admission;

/**
 * A plugin that may change the object of a write before it is validated and stored; refusing the
 * write is throwing an {@link io.streamplane.gateway.api.ApiException} with the Status.
 */
public interface MutatingAdmission {

  void admit(AdmissionRequest request);
}
