package io.streamplane.schema.convert;

/**
 * A JSON field the schema does not model, found while converting to Avro. The field was dropped.
 *
 * <p>{@code path} is written the way Kubernetes writes field paths: dots between fields, {@code
 * [i]} for list items and {@code [key]} for map entries, e.g. {@code
 * spec.template.spec.containers[0].imagePullPolcy}. The converter only reports these; whether they
 * are ignored, warned about or rejected is the caller's choice (kubectl's {@code
 * --validate=Ignore|Warn|Strict}).
 */
public record UnknownField(String path) {

  /** The text kube-apiserver puts in its {@code Warning} header for this field. */
  public String warning() {
    return "unknown field \"" + path + "\"";
  }

  @Override
  public String toString() {
    return warning();
  }
}
