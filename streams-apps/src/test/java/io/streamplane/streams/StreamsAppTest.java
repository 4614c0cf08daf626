package io.streamplane.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
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

  @Test
  void aThreadKilledByATransactionTheBrokerEndedIsReplacedAndOneKilledByARecordStopsTheApp() {
    StreamsException commitFailed =
        new StreamsException(
            "Error encountered trying to commit a transaction",
            new InvalidTxnStateException(
                "The producer attempted a transactional operation in an invalid state."));
    StreamsException unreadable =
        new StreamsException(
            "Deserialization exception handler is set to fail upon a" + " deserialization error",
            new SerializationException("unknown magic byte"));

    assertThat(StreamsApp.onThreadDeath(commitFailed))
        .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    assertThat(StreamsApp.onThreadDeath(new StreamsException(new TimeoutException("metadata"))))
        .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    assertThat(StreamsApp.onThreadDeath(unreadable))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    assertThat(StreamsApp.onThreadDeath(new IllegalStateException("a bug")))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
  }
}
