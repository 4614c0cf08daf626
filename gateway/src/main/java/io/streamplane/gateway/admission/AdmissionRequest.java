package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.util.function.BiConsumer;

/**
 * A write as admission sees it, as Kubernetes' {@code admission.Attributes}: the operation, the
 * resource and subresource ({@code ""} for the main resource), namespace and name, the object as it
 * is to be written ({@code object}, which mutating plugins change in place; null on delete), the
 * object as it is now ({@code oldObject}; null on create), the user, and whether it is a dry run (a
 * plugin with side effects must not have them then), and where a plugin's audit annotations go
 * ({@code audit}: key and value, written on the request's audit events; nowhere for a write no
 * request audits, a controller's).
 */
public record AdmissionRequest(
    Operation operation,
    ResourceType type,
    String subresource,
    String namespace,
    String name,
    ObjectNode object,
    ObjectNode oldObject,
    UserInfo user,
    boolean dryRun,
    BiConsumer<String, String> audit) {

  /** A write whose audit annotations go nowhere. */
  public AdmissionRequest(
      Operation operation,
      ResourceType type,
      String subresource,
      String namespace,
      String name,
      ObjectNode object,
      ObjectNode oldObject,
      UserInfo user,
      boolean dryRun) {
    this(
        operation,
        type,
        subresource,
        namespace,
        name,
        object,
        oldObject,
        user,
        dryRun,
        (key, value) -> {});
  }

  public AdmissionRequest {
    if (audit == null) {
      audit = (key, value) -> {};
    }
  }
}
