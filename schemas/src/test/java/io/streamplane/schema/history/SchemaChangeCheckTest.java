package io.streamplane.schema.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.log.ResourceCommand;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** Proves that the history guard catches incompatible changes and names the field. */
class SchemaChangeCheckTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Schema shipped = ResourceCommand.getClassSchema();

  @Test
  void addingAFieldWithADefaultIsCompatible() throws Exception {
    ObjectNode changed = schemaJson();
    fields(changed).addObject().put("name", "priority").put("type", "int").put("default", 0);

    assertThat(SchemaChangeCheck.problems(parse(changed), shipped)).isEmpty();
  }

  @Test
  void addingAFieldWithoutADefaultIsReportedByName() throws Exception {
    ObjectNode changed = schemaJson();
    fields(changed).addObject().put("name", "priority").put("type", "int");

    assertThat(SchemaChangeCheck.problems(parse(changed), shipped))
        .singleElement()
        .asString()
        .contains("ResourceCommand")
        .contains("'priority'")
        .contains("without a default");
  }

  @Test
  void retypingAFieldIsReportedWithItsPath() throws Exception {
    ObjectNode changed = schemaJson();
    for (var field : fields(changed)) {
      if (field.get("name").asText().equals("name")) {
        ((ObjectNode) field).put("type", "int");
      }
    }

    assertThat(SchemaChangeCheck.problems(parse(changed), shipped))
        .singleElement()
        .asString()
        .startsWith("ResourceCommand.name:")
        .contains("string")
        .contains("int");
  }

  @Test
  void retypingANestedFieldIsReportedWithItsFullPath() throws Exception {
    Schema changed =
        new Schema.Parser()
            .parse(
                shipped
                    .toString()
                    .replace(
                        "{\"name\":\"gracePeriodSeconds\",\"type\":[\"null\",\"long\"]",
                        "{\"name\":\"gracePeriodSeconds\",\"type\":[\"null\",\"boolean\"]"));

    assertThat(changed.toString()).isNotEqualTo(shipped.toString());
    assertThat(SchemaChangeCheck.problems(changed, shipped))
        .isNotEmpty()
        .allSatisfy(
            p -> assertThat(p).startsWith("ResourceCommand.deleteOptions.gracePeriodSeconds"));
  }

  private ObjectNode schemaJson() throws Exception {
    return (ObjectNode) JSON.readTree(shipped.toString());
  }

  private static ArrayNode fields(ObjectNode record) {
    return (ArrayNode) record.get("fields");
  }

  private static Schema parse(ObjectNode json) {
    return new Schema.Parser().parse(json.toString());
  }
}
