package io.streamplane.schema.history;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaIncompatibilityType;

/**
 * Decides whether a new schema can read every record an old one wrote, and says why not in terms of
 * fields: {@code ResourceCommand.preconditions.uid: ...} rather than Avro's JSON-pointer locations.
 */
public final class SchemaChangeCheck {

  private SchemaChangeCheck() {}

  /**
   * The problems a reader with schema {@code reader} has with data written with {@code writer};
   * empty when the change is compatible.
   */
  public static List<String> problems(Schema reader, Schema writer) {
    List<String> problems = new ArrayList<>();
    collect(reader, writer, reader.getName(), problems);
    return problems;
  }

  private static void collect(Schema reader, Schema writer, String prefix, List<String> problems) {
    for (Incompatibility incompatibility :
        SchemaCompatibility.checkReaderWriterCompatibility(reader, writer)
            .getResult()
            .getIncompatibilities()) {
      String path = fieldPath(prefix, reader, incompatibility.getLocation());
      // Avro stops at a union whose record branch changed; look inside the same-named branches so
      // the report names the field that changed, not just the optional record holding it.
      if (incompatibility.getType() == SchemaIncompatibilityType.MISSING_UNION_BRANCH) {
        List<String> inner = new ArrayList<>();
        for (Schema writerBranch : branches(incompatibility.getWriterFragment())) {
          for (Schema readerBranch : branches(incompatibility.getReaderFragment())) {
            if (writerBranch.getType() == Schema.Type.RECORD
                && readerBranch.getFullName().equals(writerBranch.getFullName())) {
              collect(readerBranch, writerBranch, path, inner);
            }
          }
        }
        if (!inner.isEmpty()) {
          problems.addAll(inner);
          continue;
        }
      }
      problems.add(path + ": " + describe(incompatibility));
    }
  }

  private static List<Schema> branches(Schema schema) {
    return schema.getType() == Schema.Type.UNION ? schema.getTypes() : List.of(schema);
  }

  private static String describe(Incompatibility incompatibility) {
    return switch (incompatibility.getType()) {
      case READER_FIELD_MISSING_DEFAULT_VALUE ->
          "field '"
              + incompatibility.getMessage()
              + "' was added without a default, so older records cannot be read";
      case TYPE_MISMATCH ->
          "type changed from "
              + incompatibility.getWriterFragment().getType().getName()
              + " to "
              + incompatibility.getReaderFragment().getType().getName()
              + " ("
              + incompatibility.getMessage()
              + ")";
      case MISSING_ENUM_SYMBOLS -> "enum symbols removed: " + incompatibility.getMessage();
      case MISSING_UNION_BRANCH -> "union branch removed: " + incompatibility.getMessage();
      default -> incompatibility.getType() + ": " + incompatibility.getMessage();
    };
  }

  /**
   * Turns a location such as {@code /fields/7/type/1/fields/0/type} into {@code
   * ResourceCommand.preconditions.uid}, walking the reader schema.
   */
  static String fieldPath(String prefix, Schema root, String location) {
    StringBuilder path = new StringBuilder(prefix);
    Schema schema = root;
    String[] steps = location.split("/");
    for (int i = 1; i < steps.length && schema != null; i++) {
      String step = steps[i];
      switch (step) {
        case "fields" -> {
          if (i + 1 < steps.length && schema.getType() == Schema.Type.RECORD) {
            int index = Integer.parseInt(steps[++i]);
            if (index < schema.getFields().size()) {
              Schema.Field field = schema.getFields().get(index);
              path.append('.').append(field.name());
              schema = field.schema();
            }
            // "fields/N/type" follows: the next step is consumed by the "type" case.
          }
        }
        case "type", "name", "symbols", "size" -> {}
        case "items" -> {
          path.append("[]");
          schema = schema.getElementType();
        }
        case "values" -> {
          path.append("{}");
          schema = schema.getValueType();
        }
        default -> {
          if (schema.getType() == Schema.Type.UNION && step.matches("\\d+")) {
            int branch = Integer.parseInt(step);
            schema = branch < schema.getTypes().size() ? schema.getTypes().get(branch) : null;
          }
        }
      }
    }
    return path.toString();
  }
}
