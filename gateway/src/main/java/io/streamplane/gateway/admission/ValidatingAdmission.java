package io.streamplane.gateway.admission;

import java.util.List;

/**
 * A plugin that accepts or refuses a write as it will be stored, after every mutating plugin; it
 * refuses by throwing an {@link io.streamplane.gateway.api.ApiException} with the Status.
 */
public interface ValidatingAdmission {

  void validate(AdmissionRequest request);

  /**
   * What the write is admitted with but warned about, answered as {@code Warning} headers (a
   * PodSecurity level in {@code warn} mode); asked after every plugin has validated it.
   */
  default List<String> warnings(AdmissionRequest request) {
    return List.of();
  }
}
