package io.streamplane.kinds.validation;

import io.streamplane.kinds.KindStrategy;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * What the store checks before it writes an object, for every kind: its metadata under the kind's
 * name rule ({@code ValidateObjectMeta}), then the kind's own validation — of a create, or of an
 * update against the object it replaces ({@code ValidateUpdate}).
 */
public final class ObjectValidation {

  private ObjectValidation() {}

  /**
   * Everything wrong with {@code object} of a kind with {@code strategy}; {@code old} is the stored
   * object an update replaces, null for a create. Empty when valid.
   */
  public static List<StatusCause> validate(
      KindStrategy strategy, SpecificRecord object, SpecificRecord old, boolean namespaced) {
    List<StatusCause> causes =
        new ArrayList<>(
            Names.validateMeta(KubeObjects.meta(object), namespaced, strategy.nameRule()));
    causes.addAll(old == null ? strategy.validate(object) : strategy.validateUpdate(object, old));
    return causes;
  }
}
