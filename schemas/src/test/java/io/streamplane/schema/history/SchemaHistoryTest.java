package io.streamplane.schema.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

/**
 * The build-time guard of the log contract: the current schema of every top-level type must read
 * every version ever shipped, and must itself be recorded in the history.
 *
 * <p>After a compatible change, record the new version with {@code mvn -pl schemas -am test
 * -Dtest=SchemaHistoryTest -Dstreamplane.schema.record=true
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -am}: the generator of this checkout, not the
 * one last installed) and commit the new {@code .avsc}.
 */
class SchemaHistoryTest {

  private static final Path HISTORY = Path.of("src/main/resources", ShippedSchemas.ROOT);

  @Test
  void currentSchemasReadEveryShippedVersion() {
    Map<String, List<Schema>> shipped = ShippedSchemas.byName();
    List<String> problems = new ArrayList<>();
    for (Schema current : ShippedSchemas.versioned()) {
      List<Schema> versions = shipped.getOrDefault(current.getFullName(), List.of());
      for (int v = 0; v < versions.size(); v++) {
        for (String problem : SchemaChangeCheck.problems(current, versions.get(v))) {
          problems.add(
              "incompatible with shipped " + current.getName() + " v" + (v + 1) + ": " + problem);
        }
      }
    }
    assertThat(problems).as("schema changes that would make old records unreadable").isEmpty();
  }

  @Test
  void currentSchemasAreRecordedInTheHistory() throws IOException {
    boolean record = Boolean.getBoolean("streamplane.schema.record");
    Map<String, List<Schema>> shipped = ShippedSchemas.byName();
    List<String> unrecorded = new ArrayList<>();
    for (Schema current : ShippedSchemas.versioned()) {
      List<Schema> versions = shipped.getOrDefault(current.getFullName(), List.of());
      long fingerprint = SchemaNormalization.parsingFingerprint64(current);
      boolean recorded =
          versions.stream()
              .anyMatch(s -> SchemaNormalization.parsingFingerprint64(s) == fingerprint);
      if (recorded) {
        continue;
      }
      if (record) {
        recordVersion(current.getName(), versions.size() + 1, current);
      } else {
        unrecorded.add(current.getName());
      }
    }
    assertThat(unrecorded)
        .as(
            "schemas changed but not recorded; run: mvn -pl schemas -am test"
                + " -Dtest=SchemaHistoryTest -Dstreamplane.schema.record=true"
                + " -Dsurefire.failIfNoSpecifiedTests=false, then commit the new files under "
                + HISTORY)
        .isEmpty();
  }

  private static void recordVersion(String name, int version, Schema schema) throws IOException {
    String relative = name + "/v" + version + ".avsc";
    Path file = HISTORY.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, schema.toString(true) + "\n", StandardCharsets.UTF_8);
    Files.writeString(
        HISTORY.resolve("index"),
        relative + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
