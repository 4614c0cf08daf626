package io.streamplane.schema.objects;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * Objects decoded by {@link KindObjects#decode} kept by their encoding, least recently used
 * forgotten first, up to a number of encoded bytes: for a thread that reads the same objects again
 * and again, as a controller builds a ReplicaSet's view from its every pod for each reconcile,
 * where decoding them again was half of the controllers' time. An object is kept while its encoding
 * is; a changed object has a new encoding and is decoded once more. Kept objects are handed out
 * again, so they must never be changed in place, the rule for every decoded object ({@link
 * KindObjects}); with assertions on (the tests), each object handed out again is checked against a
 * fresh decode of its encoding.
 *
 * <p>Used by one thread at a time, on which {@link #use} makes it the one {@link
 * KindObjects#decode} consults.
 */
public final class DecodedObjects {

  private static final ThreadLocal<DecodedObjects> CURRENT = new ThreadLocal<>();

  private final long maxBytes;
  private long bytes;
  private long hits;
  private long misses;
  private final LinkedHashMap<ByteBuffer, SpecificRecord> kept =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteBuffer, SpecificRecord> eldest) {
          if (bytes <= maxBytes) {
            return false;
          }
          bytes -= eldest.getKey().capacity();
          return true;
        }
      };

  /** Keeps the objects of at most {@code maxBytes} of encodings. */
  public DecodedObjects(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * Makes this the store {@link KindObjects#decode} uses on this thread until the returned scope
   * closes, when the one used before is back.
   */
  public Scope use() {
    DecodedObjects before = CURRENT.get();
    CURRENT.set(this);
    return () -> CURRENT.set(before);
  }

  /** The store in use on this thread, or null. */
  static DecodedObjects current() {
    return CURRENT.get();
  }

  /** The object kept for {@code encoded}'s content, or null. */
  SpecificRecord get(ByteBuffer encoded) {
    SpecificRecord object = kept.get(encoded);
    if (object == null) {
      misses++;
    } else {
      hits++;
    }
    return object;
  }

  /** Keeps {@code object} as what {@code encoded} decodes to (under a copy of its bytes). */
  void put(ByteBuffer encoded, SpecificRecord object) {
    ByteBuffer key = ByteBuffer.allocate(encoded.remaining());
    key.put(encoded.duplicate()).flip();
    bytes += key.capacity();
    kept.put(key.asReadOnlyBuffer(), object);
  }

  /** How many decodes found their object kept, and how many did not. */
  public long hits() {
    return hits;
  }

  public long misses() {
    return misses;
  }

  /** Restores the store in use before {@link #use}. */
  @FunctionalInterface
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }
}
