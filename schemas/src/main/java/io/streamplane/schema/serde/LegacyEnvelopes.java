package io.streamplane.schema.serde;

import io.streamplane.schema.objects.KindObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;

/**
 * Reads envelopes written before the envelopes carried their object encoded in its kind's own
 * schema: those versions of ResourceCommand, ResourceEvent and CommandResult held the object in a
 * field {@code object}, a union of every kind of their day. The event log keeps them forever, so
 * every reader upcasts them as it decodes: the envelope's other fields are resolved as usual (Avro
 * skips the writer's {@code object}), and the object, read with the writer's own schema, is
 * projected onto this build's class of its kind and set as {@code encodedObject}.
 *
 * <p>The result is exactly the envelope the current build would have written for the same change,
 * which is what keeps {@code replay --verify} exact on a log that spans the change of format.
 */
final class LegacyEnvelopes {

  static final String LEGACY_FIELD = "object";
  static final String ENCODED_FIELD = "encodedObject";

  private final Map<Long, SpecificDatumReader<?>> envelopeReaders = new ConcurrentHashMap<>();
  private final Map<Long, GenericDatumReader<GenericRecord>> wholeReaders =
      new ConcurrentHashMap<>();

  /** Whether records of {@code writer} must be upcast to be read as {@code reader}. */
  static boolean applies(Schema reader, Schema writer) {
    return reader.getField(ENCODED_FIELD) != null
        && reader.getField(LEGACY_FIELD) == null
        && writer.getField(LEGACY_FIELD) != null;
  }

  /** Decodes the body (after the single-object header) of a record written with {@code writer}. */
  <T extends SpecificRecord> T decode(
      ByteBuffer body, long fingerprint, Schema writer, Schema reader, SpecificData model) {
    try {
      @SuppressWarnings("unchecked")
      SpecificDatumReader<T> envelopeReader =
          (SpecificDatumReader<T>)
              envelopeReaders.computeIfAbsent(
                  fingerprint, f -> new SpecificDatumReader<>(writer, reader, model));
      T envelope = envelopeReader.read(null, decoder(body));
      GenericRecord whole =
          wholeReaders
              .computeIfAbsent(fingerprint, f -> new GenericDatumReader<>(writer))
              .read(null, decoder(body));
      Object legacy = whole.get(LEGACY_FIELD);
      if (legacy instanceof GenericRecord object) {
        envelope.put(reader.getField(ENCODED_FIELD).pos(), KindObjects.encode(current(object)));
      }
      return envelope;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The object as this build's class of its kind, resolved from the schema it was written with. */
  private static SpecificRecord current(GenericRecord object) throws IOException {
    Schema written = object.getSchema();
    Class<?> type = SpecificData.get().getClass(written);
    if (type == null) {
      throw new IllegalStateException(
          "a stored object of kind " + written.getFullName() + ", which this build does not know");
    }
    SpecificData model = SpecificData.getForClass(type);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(written).write(object, encoder);
    encoder.flush();
    SpecificDatumReader<SpecificRecord> reader =
        new SpecificDatumReader<>(written, model.getSchema(type), model);
    return reader.read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
  }

  private static BinaryDecoder decoder(ByteBuffer body) {
    ByteBuffer bytes = body.duplicate();
    return DecoderFactory.get()
        .binaryDecoder(
            bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining(), null);
  }
}
