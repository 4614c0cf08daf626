package io.streamplane.schema.convert;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Creates empty records for a schema: the generated specific class when one exists for exactly that
 * schema, a {@link GenericData.Record} otherwise. Thread-safe.
 *
 * <p>The specific class is used only when its own schema equals the one asked for, because its
 * {@code put(int, Object)} follows its own field order: a reader holding an older or newer version
 * of a record must get a generic record, not a specific one filled by the wrong positions.
 */
final class RecordFactory {

  // Keyed by identity: equal schemas from different parses are compared once each, and lookups
  // while walking a schema tree cost a hash of an identity, not a deep schema comparison.
  private final Map<Identity, Boolean> specific = new ConcurrentHashMap<>();

  GenericRecord newRecord(Schema schema) {
    if (specific.computeIfAbsent(new Identity(schema), id -> hasSpecificClass(schema))) {
      return (GenericRecord) SpecificData.get().newRecord(null, schema);
    }
    return new GenericData.Record(schema);
  }

  /**
   * The data model whose conversions the record's fields use: a specific record holds {@code
   * Instant} for timestamps, a generic one holds {@code Long}.
   */
  static GenericData modelOf(IndexedRecord record) {
    return record instanceof SpecificRecordBase specific
        ? specific.getSpecificData()
        : GenericData.get();
  }

  private static boolean hasSpecificClass(Schema schema) {
    Class<?> type = SpecificData.get().getClass(schema);
    return type != null
        && GenericRecord.class.isAssignableFrom(type)
        && schema.equals(SpecificData.get().getSchema(type));
  }

  private record Identity(Schema schema) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Identity identity && identity.schema == schema;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(schema);
    }
  }
}
