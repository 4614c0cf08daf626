package io.streamplane.cli.roles;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.cli.Streamplane;
import io.streamplane.kafka.KafkaClientSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --kafka-config} on the commands that talk to Kafka: the file's settings become the
 * process's Kafka client settings when the command line is parsed, and a file setting what
 * Streamplane owns stops the command with exit code 2 before anything connects.
 */
class KafkaConfigOptionTest {

  @TempDir Path dir;

  @AfterEach
  void forgetTheProcessSettings() {
    KafkaClientSettings.use(KafkaClientSettings.NONE);
  }

  @Test
  void theFilesSettingsBecomeTheProcesssKafkaClientSettings() throws IOException {
    Path file = write("security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512");

    new CommandLine(new Streamplane())
        .parseArgs("store", "--bootstrap-server", "kafka:9093", "--kafka-config", file.toString());

    assertThat(KafkaClientSettings.current().settings())
        .isEqualTo(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512"));
  }

  @Test
  void everyRoleAndToolThatTalksToKafkaTakesTheOption() throws IOException {
    Path file = write("security.protocol=SSL");
    CommandLine streamplane = new CommandLine(new Streamplane());
    for (List<String> command :
        List.of(
            List.of("store"),
            List.of("controllers"),
            List.of("scheduler"),
            List.of("gateway"),
            List.of("node"),
            List.of("nodes"),
            List.of("topics"),
            List.of("audit"),
            List.of("history"),
            List.of("replay"),
            List.of("bench", "idle"),
            List.of("bench", "past-reads"),
            List.of("bench", "replay"))) {
      CommandLine sub = streamplane;
      for (String name : command) {
        sub = sub.getSubcommands().get(name);
        assertThat(sub).as(String.join(" ", command)).isNotNull();
      }
      assertThat(sub.getCommandSpec().findOption("--kafka-config"))
          .as(String.join(" ", command))
          .isNotNull();
    }
  }

  @Test
  void aFileSettingWhatStreamplaneOwnsIsAUsageError() throws IOException {
    Path file = write("security.protocol=SSL", "isolation.level=read_uncommitted");
    StringWriter err = new StringWriter();
    CommandLine streamplane = new CommandLine(new Streamplane()).setErr(new PrintWriter(err));

    int exit =
        streamplane.execute(
            "topics", "--bootstrap-server", "127.0.0.1:31099", "--kafka-config", file.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            file
                + " sets isolation.level: Streamplane sets this itself (the brokers with"
                + " --bootstrap-server); remove it from the Kafka client settings");
    assertThat(KafkaClientSettings.current()).isSameAs(KafkaClientSettings.NONE);
  }

  @Test
  void aMissingFileIsAUsageError() {
    StringWriter err = new StringWriter();
    CommandLine streamplane = new CommandLine(new Streamplane()).setErr(new PrintWriter(err));
    Path missing = dir.resolve("missing.properties");

    int exit = streamplane.execute("topics", "--kafka-config", missing.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("cannot read Kafka client settings from " + missing);
  }

  private Path write(String... lines) throws IOException {
    return Files.write(dir.resolve("kafka.properties"), List.of(lines));
  }
}
