package io.streamplane.schema.serde;

import org.apache.avro.Schema;
import org.apache.avro.message.SchemaStore;

/**
 * Where Avro writer schemas are found by their CRC-64-AVRO fingerprint, the lookup behind Avro's
 * single-object encoding.
 *
 * <p>A writer calls {@link #register} before its first record with a schema, so any reader can
 * later resolve the fingerprint; a reader calls {@link #findByFingerprint} for a fingerprint its
 * decoder has not seen. Implementations are thread-safe.
 */
public interface SchemaCatalog extends SchemaStore {

  /** Makes {@code schema} resolvable by its fingerprint for every reader of this catalog. */
  void register(Schema schema);
}
