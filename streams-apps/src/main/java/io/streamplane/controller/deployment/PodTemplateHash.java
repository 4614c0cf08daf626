package io.streamplane.controller.deployment;

import io.streamplane.api.PodTemplateSpec;
import io.streamplane.schema.objects.KubeObjects;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * The {@code pod-template-hash} of a Deployment's pod template, and the template equality that
 * tells which ReplicaSet runs the current template (Kubernetes' {@code controller.ComputeHash} and
 * {@code deploymentutil.EqualIgnoreHash}).
 *
 * <p>Both work on a canonical form of the template: the Avro binary encoding of a copy whose maps
 * are sorted by key and whose empty maps and arrays are null (Kubernetes' semantic equality treats
 * empty and nil alike). The hash is FNV-32a over that encoding, followed by the collision count as
 * four little-endian bytes when there is one, rendered as Kubernetes renders it: the decimal digits
 * of the hash, each mapped into the alphabet of {@code rand.SafeEncodeString}. It is deterministic
 * across processes and versions of this code as long as the Avro schema of the template does not
 * change; it is not byte-compatible with the hash Kubernetes computes (which hashes the Go struct).
 */
public final class PodTemplateHash {

  public static final String LABEL = "pod-template-hash";

  private static final String SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final int FNV_OFFSET = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;

  private PodTemplateHash() {}

  /** The hash of {@code template} (the Deployment's, without a pod-template-hash label). */
  public static String of(PodTemplateSpec template, Integer collisionCount) {
    int hash = FNV_OFFSET;
    for (byte b : canonicalBytes(template, false)) {
      hash = (hash ^ (b & 0xff)) * FNV_PRIME;
    }
    if (collisionCount != null) {
      int count = collisionCount;
      for (int i = 0; i < 4; i++) {
        hash = (hash ^ ((count >>> (8 * i)) & 0xff)) * FNV_PRIME;
      }
    }
    String digits = Long.toString(Integer.toUnsignedLong(hash));
    StringBuilder encoded = new StringBuilder(digits.length());
    for (char c : digits.toCharArray()) {
      encoded.append(SAFE_ALPHABET.charAt(c % SAFE_ALPHABET.length()));
    }
    return encoded.toString();
  }

  /** Whether two templates are equal once the pod-template-hash label is removed from both. */
  public static boolean equalIgnoringHash(PodTemplateSpec a, PodTemplateSpec b) {
    if (a == null || b == null) {
      return a == b;
    }
    return Arrays.equals(canonicalBytes(a, true), canonicalBytes(b, true));
  }

  private static byte[] canonicalBytes(PodTemplateSpec template, boolean withoutHashLabel) {
    PodTemplateSpec canonical =
        (PodTemplateSpec) canonical(PodTemplateSpec.getClassSchema(), template);
    if (withoutHashLabel
        && canonical.getMetadata() != null
        && canonical.getMetadata().getLabels() != null) {
      canonical.getMetadata().getLabels().remove(LABEL);
      if (canonical.getMetadata().getLabels().isEmpty()) {
        canonical.getMetadata().setLabels(null);
      }
    }
    var out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
    try {
      new SpecificDatumWriter<PodTemplateSpec>(canonical.getSchema(), KubeObjects.MODEL)
          .write(canonical, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** A fresh copy of {@code value}: maps sorted, empty maps and arrays under a nullable null. */
  private static Object canonical(Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    return switch (schema.getType()) {
      case UNION -> {
        Schema branch = schema.getTypes().get(KubeObjects.MODEL.resolveUnion(schema, value));
        Object copy = canonical(branch, value);
        boolean empty =
            (copy instanceof Map<?, ?> m && m.isEmpty())
                || (copy instanceof Collection<?> c && c.isEmpty());
        yield empty && schema.getTypes().stream().anyMatch(s -> s.getType() == Schema.Type.NULL)
            ? null
            : copy;
      }
      case RECORD -> {
        IndexedRecord source = (IndexedRecord) value;
        IndexedRecord copy = (IndexedRecord) KubeObjects.MODEL.newRecord(null, schema);
        for (Schema.Field field : schema.getFields()) {
          copy.put(field.pos(), canonical(field.schema(), source.get(field.pos())));
        }
        yield copy;
      }
      case MAP -> {
        Map<String, Object> sorted = new TreeMap<>();
        for (var entry : ((Map<?, ?>) value).entrySet()) {
          sorted.put(entry.getKey().toString(), canonical(schema.getValueType(), entry.getValue()));
        }
        yield sorted;
      }
      case ARRAY -> {
        List<Object> items = new ArrayList<>();
        for (Object item : (Collection<?>) value) {
          items.add(canonical(schema.getElementType(), item));
        }
        yield items;
      }
      default -> value;
    };
  }
}
