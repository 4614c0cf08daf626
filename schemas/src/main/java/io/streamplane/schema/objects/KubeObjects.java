package io.streamplane.schema.objects;

import io.streamplane.api.ObjectMeta;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Generic access to the parts every Kubernetes kind shares ({@code metadata}, {@code spec}, {@code
 * status}), over any generated kind class. Never changes its argument: every {@code with...}
 * returns a deep copy with one field replaced, so objects read from a state store stay intact.
 */
public final class KubeObjects {

  public static final String METADATA = "metadata";
  public static final String SPEC = "spec";
  public static final String STATUS = "status";

  /** The data model of the generated classes: Avro's specific data with their time conversions. */
  public static final Model MODEL = new Model();

  private KubeObjects() {}

  /** Avro's specific data with the time conversions, and equality that can compare maps. */
  public static final class Model extends SpecificData {
    private Model() {
      addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
      addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    }

    boolean equal(Object a, Object b, Schema schema) {
      return compare(a, b, schema, true) == 0;
    }
  }

  /** The object's metadata, or an empty one if it has none (never null). */
  public static ObjectMeta meta(SpecificRecord object) {
    Object meta = get(object, METADATA);
    return meta == null ? new ObjectMeta() : (ObjectMeta) meta;
  }

  public static <T extends SpecificRecord> T withMeta(T object, ObjectMeta meta) {
    return with(object, METADATA, meta);
  }

  public static boolean has(SpecificRecord object, String field) {
    return object.getSchema().getField(field) != null;
  }

  /** The value of a top-level field, or null if the kind has no such field. */
  public static Object get(SpecificRecord object, String field) {
    Schema.Field f = object.getSchema().getField(field);
    return f == null ? null : object.get(f.pos());
  }

  /** A deep copy of {@code object} with one top-level field replaced (a no-op copy if absent). */
  public static <T extends SpecificRecord> T with(T object, String field, Object value) {
    T copy = copy(object);
    Schema.Field f = copy.getSchema().getField(field);
    if (f != null) {
      copy.put(f.pos(), value == null ? null : copyValue(f.schema(), value));
    }
    return copy;
  }

  public static <T extends SpecificRecord> T copy(T object) {
    return MODEL.deepCopy(object.getSchema(), object);
  }

  private static Object copyValue(Schema schema, Object value) {
    return MODEL.deepCopy(schema, value);
  }

  /**
   * Whether two records of one schema hold the same values, compared through {@link #MODEL} so that
   * time fields (held as {@code Instant}) compare as the times they are; null equals null.
   */
  public static boolean same(SpecificRecord a, SpecificRecord b) {
    if (a == null || b == null) {
      return a == b;
    }
    return a.getSchema().equals(b.getSchema()) && MODEL.equal(a, b, a.getSchema());
  }

  /** The record's kind: the simple name of its schema, which is the Kubernetes kind. */
  public static String kind(SpecificRecord object) {
    return object.getSchema().getName();
  }
}
