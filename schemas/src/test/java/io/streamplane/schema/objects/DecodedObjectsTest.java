package io.streamplane.schema.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.ObjectMeta;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DecodedObjectsTest {

  private static ByteBuffer encoded(String name) {
    return KindObjects.encode(
        ConfigMap.newBuilder()
            .setApiVersion("v1")
            .setKind("ConfigMap")
            .setMetadata(ObjectMeta.newBuilder().setName(name).build())
            .setData(Map.of("k", "v"))
            .build());
  }

  /** Another buffer with the same bytes, as a store hands out for each read. */
  private static ByteBuffer reread(ByteBuffer encoded) {
    ByteBuffer copy = ByteBuffer.allocate(encoded.remaining());
    copy.put(encoded.duplicate()).flip();
    return copy;
  }

  @Test
  void anEncodingReadAgainInUseDecodesToTheKeptObjectAndOutsideItToAFreshOne() {
    DecodedObjects decoded = new DecodedObjects(1 << 20);
    ByteBuffer a = encoded("a");
    Object first;
    Object again;
    try (DecodedObjects.Scope scope = decoded.use()) {
      first = KindObjects.decode(reread(a));
      again = KindObjects.decode(reread(a));
    }

    assertThat(again).isSameAs(first);
    assertThat(decoded.hits()).isEqualTo(1);
    assertThat(decoded.misses()).isEqualTo(1);
    assertThat(KindObjects.decode(reread(a))).isNotSameAs(first).isEqualTo(first);
  }

  @Test
  void theLeastRecentlyUsedAreForgottenBeyondTheBytesKept() {
    ByteBuffer a = encoded("a");
    ByteBuffer b = encoded("b");
    ByteBuffer c = encoded("c");
    DecodedObjects decoded = new DecodedObjects(2L * a.remaining());
    try (DecodedObjects.Scope scope = decoded.use()) {
      Object keptA = KindObjects.decode(reread(a));
      KindObjects.decode(reread(b));
      assertThat(KindObjects.decode(reread(a))).isSameAs(keptA); // a is now the most recent
      KindObjects.decode(reread(c)); // b goes

      assertThat(KindObjects.decode(reread(a))).isSameAs(keptA);
      long misses = decoded.misses();
      KindObjects.decode(reread(b));
      assertThat(decoded.misses()).isEqualTo(misses + 1);
    }
  }

  @Test
  void aKeptObjectChangedInPlaceFailsItsNextReadWhenAssertionsAreOn() {
    DecodedObjects decoded = new DecodedObjects(1 << 20);
    ByteBuffer a = encoded("a");
    try (DecodedObjects.Scope scope = decoded.use()) {
      ConfigMap kept = (ConfigMap) KindObjects.decode(reread(a));
      kept.setData(Map.of("k", "changed"));

      assertThatThrownBy(() -> KindObjects.decode(reread(a)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("ConfigMap was changed in place");
    }
  }
}
