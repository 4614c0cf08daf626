package io.streamplane.schema.serde;

import io.streamplane.schema.history.ShippedSchemas;
import io.streamplane.schema.objects.KindObjects;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * A schema catalog held in memory: every schema version shipped in the jar plus what this process
 * registered. Enough for a single process (tests with TopologyTestDriver, tools reading their own
 * output); processes that share a log use {@link KafkaSchemaCatalog}, which builds on this one.
 */
public class InMemorySchemaCatalog implements SchemaCatalog {

  private final Map<Long, Schema> byFingerprint = new ConcurrentHashMap<>();

  public InMemorySchemaCatalog() {
    ShippedSchemas.all().forEach(this::remember);
  }

  @Override
  public void register(Schema schema) {
    remember(schema);
  }

  @Override
  public Schema findByFingerprint(long fingerprint) {
    return byFingerprint.get(fingerprint);
  }

  /** Adds the schema to the in-memory index; true if it was not known before. */
  protected final boolean remember(Schema schema) {
    KindObjects.SCHEMAS.learn(schema);
    return byFingerprint.putIfAbsent(fingerprint(schema), schema) == null;
  }

  protected final boolean knows(Schema schema) {
    return byFingerprint.containsKey(fingerprint(schema));
  }

  /** The fingerprint Avro's single-object encoding writes: CRC-64-AVRO of the canonical form. */
  public static long fingerprint(Schema schema) {
    return SchemaNormalization.parsingFingerprint64(schema);
  }
}
