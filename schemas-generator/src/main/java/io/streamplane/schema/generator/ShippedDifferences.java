package io.streamplane.schema.generator;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * Where the generated records differ from Kubernetes 1.32's definitions: fields Streamplane shipped
 * before its records were generated, which it still writes and must keep reading.
 *
 * <ul>
 *   <li>{@code ReplicaSetStatus.terminatingReplicas} (int): Kubernetes 1.33's count of a
 *       ReplicaSet's pods being deleted, which the ReplicaSet controller writes and the Deployment
 *       controller reads, as in 1.33.
 * </ul>
 *
 * <p>Every other shipped field has the type Kubernetes 1.32 gives it.
 */
final class ShippedDifferences {

  private ShippedDifferences() {}

  /** Fields a record keeps beyond the release's definition, appended after its own. */
  static Map<String, Schema> extraFields(String record) {
    Map<String, Schema> extra = new LinkedHashMap<>();
    if (record.equals("ReplicaSetStatus")) {
      extra.put("terminatingReplicas", Schema.create(Schema.Type.INT));
    }
    return extra;
  }
}
