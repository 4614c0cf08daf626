package io.streamplane.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamsAppTest {

  @TempDir Path root;

  @Test
  void theTasksOfARunThatWasKilledAreDiscardedButItsProcessIdIsKept() throws Exception {
    Path app = root.resolve("sp-controllers");
    Files.createDirectories(app.resolve("0_3/rocksdb/queue"));
    Files.writeString(app.resolve("0_3/rocksdb/queue/000012.sst"), "data");
    Files.createDirectories(app.resolve("12_0"));
    Files.writeString(app.resolve("kafka-streams-process-metadata"), "{\"processId\":\"x\"}");

    StreamsApp.discardStateOfUncleanStop(app);

    assertThat(app.resolve("0_3")).doesNotExist();
    assertThat(app.resolve("12_0")).doesNotExist();
    assertThat(app.resolve("kafka-streams-process-metadata")).exists();
  }

  @Test
  void theTasksOfARunThatStoppedCleanlyAreKeptAndTheMarkIsTakenBack() throws Exception {
    Path app = root.resolve("sp-store");
    Files.createDirectories(app.resolve("0_1"));
    Files.writeString(app.resolve("0_1/.checkpoint"), "0\n1\nsp.commands 1 42\n");
    Files.writeString(app.resolve(StreamsApp.STOPPED_CLEANLY), "");

    StreamsApp.discardStateOfUncleanStop(app);

    assertThat(app.resolve("0_1/.checkpoint")).exists();
    assertThat(app.resolve(StreamsApp.STOPPED_CLEANLY)).doesNotExist();
  }

  @Test
  void aFirstStartFindsNothingToDiscard() {
    StreamsApp.discardStateOfUncleanStop(root.resolve("sp-binder"));

    assertThat(root.resolve("sp-binder")).doesNotExist();
  }
}
