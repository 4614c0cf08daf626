package io.streamplane.node.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The remote command protocol's messages, as kubelet writes them and kubectl reads them. */
class ChannelProtocolTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aMessageIsItsChannelByteFollowedByTheData() {
    byte[] data = "hello, more than we send".getBytes(StandardCharsets.UTF_8);

    ByteBuffer frame = ChannelProtocol.frame(ChannelProtocol.STDERR, data, 5);

    assertThat(frame.remaining()).isEqualTo(6);
    assertThat(ChannelProtocol.channel(frame)).isEqualTo(2);
    byte[] rest = new byte[frame.remaining()];
    frame.get(rest);
    assertThat(new String(rest, StandardCharsets.UTF_8)).isEqualTo("hello");
  }

  @Test
  void theCloseChannelReadsAs255NotAsANegativeByte() {
    ByteBuffer close = ByteBuffer.wrap(new byte[] {(byte) 255, 0});

    assertThat(ChannelProtocol.channel(close)).isEqualTo(ChannelProtocol.CLOSE);
    assertThat(close.get()).isEqualTo((byte) ChannelProtocol.STDIN);
  }

  @Test
  void aResizeMessageCarriesWidthAndHeightAsKubectlWritesThem() {
    ByteBuffer resize =
        ByteBuffer.wrap("{\"Width\":120,\"Height\":40}".getBytes(StandardCharsets.UTF_8));

    assertThat(ChannelProtocol.size(resize))
        .hasValueSatisfying(s -> assertThat(s).containsExactly(120, 40));
    assertThat(ChannelProtocol.size(ByteBuffer.wrap("not json".getBytes(StandardCharsets.UTF_8))))
        .isEmpty();
    assertThat(
            ChannelProtocol.size(ByteBuffer.wrap("{\"Width\":1}".getBytes(StandardCharsets.UTF_8))))
        .isEmpty();
  }

  @Test
  void exitCodeZeroIsASuccessStatus() throws Exception {
    JsonNode status =
        read(ChannelProtocol.errorFrame(ChannelProtocol.exitStatus(List.of("true"), 0)));

    assertThat(status.path("status").asText()).isEqualTo("Success");
    assertThat(status.has("reason")).isFalse();
  }

  @Test
  void aNonZeroExitCodeIsNonZeroExitCodeWithTheCodeAsItsExitCodeCause() throws Exception {
    JsonNode status =
        read(
            ChannelProtocol.errorFrame(
                ChannelProtocol.exitStatus(List.of("sh", "-c", "exit 3"), 3)));

    assertThat(status.path("status").asText()).isEqualTo("Failure");
    assertThat(status.path("reason").asText()).isEqualTo("NonZeroExitCode");
    assertThat(status.path("message").asText())
        .isEqualTo(
            "command terminated with non-zero exit code: error executing command [sh -c exit 3],"
                + " exit code 3");
    JsonNode cause = status.path("details").path("causes").get(0);
    assertThat(cause.path("reason").asText()).isEqualTo("ExitCode");
    assertThat(cause.path("message").asText()).isEqualTo("3");
  }

  private static JsonNode read(ByteBuffer frame) throws Exception {
    assertThat(ChannelProtocol.channel(frame)).isEqualTo(ChannelProtocol.ERROR);
    byte[] json = new byte[frame.remaining()];
    frame.get(json);
    return JSON.readTree(json);
  }
}
