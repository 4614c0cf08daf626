package io.streamplane.schema.serde;

import io.streamplane.schema.objects.KindObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.avro.Schema;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serde for one generated Avro class, in Avro's single-object encoding: the two-byte marker
 * {@code C3 01}, the writer schema's CRC-64-AVRO fingerprint, then the binary body.
 *
 * <p>Writing registers the current schema with the {@link SchemaCatalog} once; reading resolves the
 * writer's schema through the catalog and projects the record onto the current class, so records
 * written by any earlier, compatible version decode. A {@code null} value is a tombstone both ways.
 */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T> {

  private static final int HEADER = 10;

  private final Schema schema;
  private final SchemaCatalog catalog;
  private final BinaryMessageEncoder<T> encoder;
  private final BinaryMessageDecoder<T> decoder;
  private final SpecificData model;

  /** For an envelope (a type with {@code encodedObject}): reads the versions from before it. */
  private final LegacyEnvelopes legacy;

  private volatile boolean registered;

  public AvroSerde(Class<T> type, SchemaCatalog catalog) {
    this.model = SpecificData.getForClass(type);
    this.schema = model.getSchema(type);
    this.catalog = catalog;
    this.encoder = new BinaryMessageEncoder<>(model, schema);
    this.decoder = new BinaryMessageDecoder<>(model, schema, catalog);
    this.legacy =
        schema.getField(LegacyEnvelopes.ENCODED_FIELD) != null ? new LegacyEnvelopes() : null;
  }

  public Schema schema() {
    return schema;
  }

  public byte[] encode(T value) {
    if (value == null) {
      return null;
    }
    if (!registered) {
      catalog.register(schema);
      if (legacy != null) {
        // The objects inside are encoded in their kinds' schemas: readers resolve those too.
        KindObjects.kinds().forEach(catalog::register);
      }
      registered = true;
    }
    try {
      ByteBuffer buffer = encoder.encode(value);
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public T decode(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      if (legacy != null && bytes.length > HEADER) {
        long fingerprint = ByteBuffer.wrap(bytes, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        Schema writer = catalog.findByFingerprint(fingerprint);
        if (writer != null && LegacyEnvelopes.applies(schema, writer)) {
          return legacy.decode(
              ByteBuffer.wrap(bytes, HEADER, bytes.length - HEADER),
              fingerprint,
              writer,
              schema,
              model);
        }
      }
      return decoder.decode(bytes);
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          "cannot decode a " + schema.getName() + " record: " + e.getMessage(), e);
    }
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> encode(value);
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> decode(bytes);
  }
}
