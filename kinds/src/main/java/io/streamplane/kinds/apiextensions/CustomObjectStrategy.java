package io.streamplane.kinds.apiextensions;

import io.streamplane.kinds.KindStrategy;
import io.streamplane.log.CustomObject;
import org.apache.avro.specific.SpecificRecord;

/**
 * What the store applies to every custom object, whatever its definition (which the store does not
 * hold): metadata validation, and {@code metadata.generation}, raised by every change of the
 * object's fields but metadata and status, as apiextensions-apiserver's strategy raises it. The
 * definition's schema is applied by the gateway ({@link CustomResourceStrategy}).
 */
public final class CustomObjectStrategy implements KindStrategy {

  /** The store's strategy of custom objects. */
  public static final CustomObjectStrategy STORED = new CustomObjectStrategy();

  private CustomObjectStrategy() {}

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public Object spec(SpecificRecord object) {
    return object instanceof CustomObject custom ? custom.getContent() : null;
  }
}
