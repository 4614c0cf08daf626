package io.streamplane.schema.convert;

import java.util.List;
import java.util.Objects;

/**
 * The result of converting a Kubernetes JSON document to Avro: the record and the JSON fields the
 * schema does not model (in document order), which were dropped.
 */
public record Decoded<T>(T record, List<UnknownField> unknownFields) {

  public Decoded {
    Objects.requireNonNull(record, "record");
    unknownFields = List.copyOf(unknownFields);
  }

  public boolean hasUnknownFields() {
    return !unknownFields.isEmpty();
  }
}
