package io.streamplane.gateway.storage;

import io.streamplane.log.UserInfo;
import java.util.function.BiConsumer;

/**
 * How one write is to be done: who asks, whether it is a dry run, how unknown fields are treated
 * ({@code Strict}, {@code Warn} or {@code Ignore}, Kubernetes' fieldValidation), the audit id of
 * the request, and what managedFields records of it: the {@code fieldManager} query parameter (null
 * when not given), the client's User-Agent, and {@code force} (null when not given; apply only);
 * {@code auditAnnotations}: where admission's audit annotations go (the request's audit; null for
 * writes no request audits).
 */
public record WriteOptions(
    UserInfo actor,
    boolean dryRun,
    String fieldValidation,
    String auditId,
    String fieldManager,
    String userAgent,
    Boolean force,
    BiConsumer<String, String> auditAnnotations) {

  public WriteOptions(UserInfo actor, boolean dryRun, String fieldValidation, String auditId) {
    this(actor, dryRun, fieldValidation, auditId, null, null, null);
  }

  public WriteOptions(
      UserInfo actor,
      boolean dryRun,
      String fieldValidation,
      String auditId,
      String fieldManager,
      String userAgent,
      Boolean force) {
    this(actor, dryRun, fieldValidation, auditId, fieldManager, userAgent, force, null);
  }

  public boolean strict() {
    return "Strict".equalsIgnoreCase(fieldValidation);
  }

  public boolean warn() {
    return fieldValidation == null || "Warn".equalsIgnoreCase(fieldValidation);
  }

  /**
   * The manager an update is recorded under: the fieldManager, else the User-Agent up to its first
   * {@code /} (kube-apiserver's managerOrUserAgent).
   */
  public String manager() {
    if (fieldManager != null && !fieldManager.isEmpty()) {
      return fieldManager;
    }
    return userAgent == null ? "" : userAgent.split("/", -1)[0];
  }

  public WriteOptions withDryRun() {
    return new WriteOptions(
        actor, true, fieldValidation, auditId, fieldManager, userAgent, force, auditAnnotations);
  }
}
