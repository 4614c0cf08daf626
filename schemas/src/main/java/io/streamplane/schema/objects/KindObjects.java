package io.streamplane.schema.objects;

import io.streamplane.log.CommandResult;
import io.streamplane.log.Log;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.history.ShippedSchemas;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.Encoder;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * The objects the log's envelopes carry ({@link ResourceCommand}, {@link ResourceEvent}, {@link
 * CommandResult}): each is held as {@code encodedObject}, the Avro single-object encoding of its
 * kind's own schema (marker {@code C3 01}, the CRC-64-AVRO fingerprint of the kind's schema, the
 * binary body). The envelopes therefore never name a kind: a new kind, or a new version of one,
 * adds the kind's schema to the history and leaves the envelopes as they are.
 *
 * <p>Decoding resolves the writer's kind schema by its fingerprint in {@link #SCHEMAS}: every kind
 * schema of this build, every version shipped in the jar's schema history, and every schema a
 * {@code SchemaCatalog} of this process has learned (from the {@code schemas} topic, so a kind
 * written by a newer build decodes as soon as its schema is there). The object is projected onto
 * this build's class of the same kind. A fingerprint nobody knows fails with an exception naming
 * it, never with a silent null.
 *
 * <p>Each thread remembers the last buffer it decoded, by identity: an envelope asked for its
 * object again (a filter, then a router, then a processor) gets the same instance back, as the
 * envelopes' own getters did when they held the object itself. A thread that reads the same objects
 * again and again keeps them by their encoding in a {@link DecodedObjects}. Decoded objects are
 * shared, never changed in place (build a new one).
 */
public final class KindObjects {

  private static final List<Schema> KINDS =
      Log.PROTOCOL.getTypes().stream()
          .filter(s -> s.getType() == Schema.Type.RECORD)
          .filter(
              s ->
                  s.getField("apiVersion") != null
                      && s.getField("kind") != null
                      && s.getField("metadata") != null)
          .toList();

  /**
   * Kind schemas by fingerprint. Content-addressed: learning a schema can never change what a
   * fingerprint decodes to, which is why one process-wide map is safe.
   */
  public static final KindSchemas SCHEMAS = new KindSchemas();

  private static final Map<Class<?>, BinaryMessageEncoder<SpecificRecord>> ENCODERS =
      new ConcurrentHashMap<>();
  private static final Map<Class<?>, BinaryMessageDecoder<SpecificRecord>> DECODERS =
      new ConcurrentHashMap<>();
  private static final int HEADER = 10;
  private static final ThreadLocal<LastDecoded> LAST = ThreadLocal.withInitial(LastDecoded::new);

  private KindObjects() {}

  /**
   * The stored kinds of this build: the records of the log protocol with apiVersion, kind,
   * metadata.
   */
  public static List<Schema> kinds() {
    return KINDS;
  }

  /** The object of a command, or null when it carries none (a delete, a bind). */
  public static SpecificRecord of(ResourceCommand command) {
    return decode(command.getEncodedObject());
  }

  /** The object of an event: after the change, or before it for DELETED. */
  public static SpecificRecord of(ResourceEvent event) {
    return decode(event.getEncodedObject());
  }

  /** The object a command's result carries, or null. */
  public static SpecificRecord of(CommandResult result) {
    return decode(result.getEncodedObject());
  }

  /** The object encoded in its kind's schema; null for null. */
  public static ByteBuffer encode(SpecificRecord object) {
    if (object == null) {
      return null;
    }
    try {
      return ENCODERS
          .computeIfAbsent(object.getClass(), KindObjects::encoder)
          .encode(object)
          .asReadOnlyBuffer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The object encoded by {@link #encode}, as this build's class of its kind; null for null. */
  public static SpecificRecord decode(ByteBuffer encoded) {
    if (encoded == null) {
      return null;
    }
    LastDecoded last = LAST.get();
    if (last.encoded == encoded) {
      return last.object;
    }
    DecodedObjects decoded = DecodedObjects.current();
    SpecificRecord object = decoded == null ? null : decoded.get(encoded);
    if (object == null) {
      object = decodeAnew(encoded);
      if (decoded != null) {
        decoded.put(encoded, object);
      }
    } else {
      assert encode(object).equals(encode(decodeAnew(encoded)))
          : "a decoded " + object.getSchema().getName() + " was changed in place";
    }
    last.encoded = encoded;
    last.object = object;
    return object;
  }

  private static SpecificRecord decodeAnew(ByteBuffer encoded) {
    ByteBuffer bytes = encoded.duplicate();
    Schema writer = SCHEMAS.findByFingerprint(fingerprint(bytes));
    if (writer == null) {
      throw new IllegalStateException(
          "an object whose kind schema is unknown (fingerprint "
              + Long.toHexString(fingerprint(bytes))
              + "): written by a newer Streamplane whose schemas this process has not read");
    }
    Class<?> type = SpecificData.get().getClass(writer);
    if (type == null || !SpecificRecord.class.isAssignableFrom(type)) {
      throw new IllegalStateException(
          "an object of kind " + writer.getFullName() + ", which this build does not know");
    }
    try {
      return DECODERS.computeIfAbsent(type, KindObjects::decoder).decode(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot decode an object of kind " + writer.getFullName() + ": " + e.getMessage(), e);
    }
  }

  /** The kind schema's fingerprint in an encoded object's header. */
  static long fingerprint(ByteBuffer bytes) {
    if (bytes.remaining() < HEADER
        || bytes.get(bytes.position()) != (byte) 0xC3
        || bytes.get(bytes.position() + 1) != (byte) 0x01) {
      throw new IllegalStateException("an encoded object without Avro's single-object header");
    }
    return bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(bytes.position() + 2);
  }

  private static BinaryMessageEncoder<SpecificRecord> encoder(Class<?> type) {
    return new BinaryMessageEncoder<>(SORTED_MAPS, SpecificData.getForClass(type).getSchema(type));
  }

  /**
   * The generated classes' data model, writing every map in the order of its keys. Avro writes a
   * map in its iteration order, which for a HashMap depends on how it was built; sorted, an
   * object's encoding depends on its content alone, so the same object read through any path (a
   * replay, an upcast of an old envelope) encodes to the same bytes.
   */
  private static final SpecificData SORTED_MAPS =
      new SpecificData() {
        {
          addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
          addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
          // The generated classes' own encoders would write their maps in iteration order.
          setCustomCoders(false);
        }

        @Override
        public DatumWriter createDatumWriter(Schema schema) {
          return new SpecificDatumWriter<Object>(schema, this) {
            @Override
            protected void writeMap(Schema schema, Object datum, Encoder out) throws IOException {
              Map<?, ?> map = (Map<?, ?>) datum;
              if (map.size() > 1) {
                TreeMap<String, Object> sorted = new TreeMap<>();
                map.forEach((k, v) -> sorted.put(k.toString(), v));
                datum = sorted;
              }
              super.writeMap(schema, datum, out);
            }
          };
        }
      };

  private static BinaryMessageDecoder<SpecificRecord> decoder(Class<?> type) {
    SpecificData model = SpecificData.getForClass(type);
    return new BinaryMessageDecoder<>(model, model.getSchema(type), SCHEMAS);
  }

  private static final class LastDecoded {
    private ByteBuffer encoded;
    private SpecificRecord object;
  }

  /** Kind schemas by fingerprint: this build's, the shipped history's and what catalogs learned. */
  public static final class KindSchemas implements SchemaStore {

    private final Map<Long, Schema> byFingerprint = new ConcurrentHashMap<>();

    private KindSchemas() {
      KINDS.forEach(this::learn);
      ShippedSchemas.all().forEach(this::learn);
    }

    /** Makes a schema resolvable by its fingerprint (any schema; only kinds are ever asked for). */
    public void learn(Schema schema) {
      byFingerprint.putIfAbsent(SchemaNormalization.parsingFingerprint64(schema), schema);
    }

    @Override
    public Schema findByFingerprint(long fingerprint) {
      return byFingerprint.get(fingerprint);
    }
  }
}
