package io.streamplane.gateway.storage;

import io.streamplane.log.UserInfo;

/**
 * How one write is to be done: who asks, whether it is a dry run, how unknown fields are treated
 * ({@code Strict}, {@code Warn} or {@code Ignore}, Kubernetes' fieldValidation), and the audit id
 * of the request.
 */
public record WriteOptions(UserInfo actor, boolean dryRun, String fieldValidation, String auditId) {

  public boolean strict() {
    return "Strict".equalsIgnoreCase(fieldValidation);
  }

  public boolean warn() {
    return fieldValidation == null || "Warn".equalsIgnoreCase(fieldValidation);
  }
}
