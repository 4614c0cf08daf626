package io.streamplane.schema.objects;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
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

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final long maxBytes;
  private long bytes;
  private long hits;
  private long misses;
  private final LinkedHashMap<Encoding, SpecificRecord> kept =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Encoding, SpecificRecord> eldest) {
          if (bytes <= maxBytes) {
            return false;
          }
          bytes -= eldest.getKey().length();
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
    SpecificRecord object = kept.get(Encoding.of(encoded, false));
    if (object == null) {
      misses++;
    } else {
      hits++;
    }
    return object;
  }

  /** Keeps {@code object} as what {@code encoded} decodes to (under a copy of its bytes). */
  void put(ByteBuffer encoded, SpecificRecord object) {
    Encoding key = Encoding.of(encoded, true);
    bytes += key.length();
    kept.put(key, object);
  }

  /**
   * Bytes compared by content, hashed eight at a time: {@link ByteBuffer#hashCode} reads them one
   * by one, which took most of the time the kept objects saved.
   */
  private record Encoding(byte[] bytes, int from, int to, int hash) {

    /** The remaining bytes of {@code buffer}, in its array unless {@code copy} or it has none. */
    static Encoding of(ByteBuffer buffer, boolean copy) {
      byte[] bytes;
      int from;
      int to;
      if (!copy && buffer.hasArray()) {
        bytes = buffer.array();
        from = buffer.arrayOffset() + buffer.position();
        to = buffer.arrayOffset() + buffer.limit();
      } else {
        bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        from = 0;
        to = bytes.length;
      }
      return new Encoding(bytes, from, to, hash(bytes, from, to));
    }

    private static int hash(byte[] bytes, int from, int to) {
      long h = to - from;
      int i = from;
      for (; i + Long.BYTES <= to; i += Long.BYTES) {
        h = Long.rotateLeft(h ^ (long) LONGS.get(bytes, i), 29) * 0x9E3779B97F4A7C15L;
      }
      for (; i < to; i++) {
        h = (h ^ bytes[i]) * 0x100000001B3L;
      }
      return (int) (h ^ (h >>> 32));
    }

    int length() {
      return to - from;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Encoding that
          && hash == that.hash
          && Arrays.equals(bytes, from, to, that.bytes, that.from, that.to);
    }

    @Override
    public int hashCode() {
      return hash;
    }
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
