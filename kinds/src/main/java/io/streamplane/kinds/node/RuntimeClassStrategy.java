package io.streamplane.kinds.node;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.quote;

import io.streamplane.api.RuntimeClass;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * node.k8s.io/v1 RuntimeClass: a handler that is a DNS label and never changes; printed with its
 * handler. Nothing reads it yet: pods' {@code runtimeClassName} is stored, not acted on.
 */
public final class RuntimeClassStrategy implements KindStrategy {

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    String handler = ((RuntimeClass) object).getHandler();
    List<StatusCause> causes = new ArrayList<>();
    StatusCause label = Names.label("handler", handler == null ? "" : handler);
    if (label != null) {
      causes.add(label);
    }
    return causes;
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    String handler = ((RuntimeClass) object).getHandler();
    if (!Objects.equals(handler, ((RuntimeClass) old).getHandler())) {
      causes.add(invalid("handler", quote(handler == null ? "" : handler), "field is immutable"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(name(), col("Handler", "string", "The name of the handler"), age()),
          (o, now) -> List.of(name(o), o.path("handler").asText(""), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
