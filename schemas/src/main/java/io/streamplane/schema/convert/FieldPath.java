package io.streamplane.schema.convert;

/**
 * An immutable field path, rendered the way Kubernetes renders {@code field.Path}: {@code
 * spec.containers[0].resources.limits[cpu]}. Built as a linked list so the common case (no error,
 * no unknown field) never concatenates a string.
 */
final class FieldPath {

  static final FieldPath ROOT = new FieldPath(null, "");

  private final FieldPath parent;
  private final String segment;

  private FieldPath(FieldPath parent, String segment) {
    this.parent = parent;
    this.segment = segment;
  }

  FieldPath field(String name) {
    return new FieldPath(this, this == ROOT ? name : "." + name);
  }

  FieldPath index(int index) {
    return new FieldPath(this, "[" + index + "]");
  }

  FieldPath key(String key) {
    return new FieldPath(this, "[" + key + "]");
  }

  @Override
  public String toString() {
    if (parent == null) {
      return segment;
    }
    StringBuilder out = new StringBuilder();
    render(out);
    return out.toString();
  }

  private void render(StringBuilder out) {
    if (parent != null) {
      parent.render(out);
    }
    out.append(segment);
  }
}
