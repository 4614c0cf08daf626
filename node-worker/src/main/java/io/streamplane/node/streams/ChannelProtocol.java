package io.streamplane.node.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * Kubernetes' remote command protocol over WebSocket ({@code v4.channel.k8s.io}, {@code
 * v5.channel.k8s.io}), as kubelet speaks it to kubectl: every binary message is one byte naming its
 * channel and the channel's data. Channels: 0 stdin, 1 stdout, 2 stderr, 3 error (one {@code
 * Status} as JSON, then the server closes), 4 resize (JSON {@code {"Width":w,"Height":h}}); v5 adds
 * 255, close: its one data byte names a channel the client has no more data for (stdin).
 *
 * <p>The error channel's Status is kubelet's: {@code Success}; or for a command that exited with a
 * code other than 0, {@code Failure} with reason {@code NonZeroExitCode} and a cause of type {@code
 * ExitCode} whose message is the code, which kubectl turns into its own exit code.
 */
final class ChannelProtocol {

  static final String V5 = "v5.channel.k8s.io";
  static final String V4 = "v4.channel.k8s.io";

  /** The protocols served, most preferred first. */
  static final List<String> PROTOCOLS = List.of(V5, V4);

  static final int STDIN = 0;
  static final int STDOUT = 1;
  static final int STDERR = 2;
  static final int ERROR = 3;
  static final int RESIZE = 4;
  static final int CLOSE = 255;

  private static final ObjectMapper JSON = new ObjectMapper();

  private ChannelProtocol() {}

  /** A message of {@code channel} carrying {@code length} bytes of {@code data}. */
  static ByteBuffer frame(int channel, byte[] data, int length) {
    ByteBuffer frame = ByteBuffer.allocate(length + 1);
    frame.put((byte) channel).put(data, 0, length).flip();
    return frame;
  }

  /** The channel a message is for; the buffer is left at its data. */
  static int channel(ByteBuffer message) {
    return message.get() & 0xff;
  }

  /** A terminal size of a resize message, if it holds one. */
  static Optional<int[]> size(ByteBuffer data) {
    byte[] bytes = new byte[data.remaining()];
    data.get(bytes);
    try {
      JsonNode size = JSON.readTree(bytes);
      if (size == null || !size.has("Width") || !size.has("Height")) {
        return Optional.empty();
      }
      return Optional.of(new int[] {size.path("Width").asInt(), size.path("Height").asInt()});
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The Status kubelet writes for a command that ended with {@code exitCode}. */
  static ObjectNode exitStatus(List<String> command, int exitCode) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.putObject("metadata");
    if (exitCode == 0) {
      status.put("status", "Success");
      return status;
    }
    status.put("status", "Failure");
    status.put(
        "message",
        "command terminated with non-zero exit code: error executing command ["
            + String.join(" ", command)
            + "], exit code "
            + exitCode);
    status.put("reason", "NonZeroExitCode");
    status
        .putObject("details")
        .putArray("causes")
        .addObject()
        .put("reason", "ExitCode")
        .put("message", Integer.toString(exitCode));
    return status;
  }

  /** A failure Status: kubelet's for a stream it cannot serve. */
  static ObjectNode failure(int code, String reason, String message) {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.putObject("metadata");
    status.put("status", "Failure").put("message", message).put("reason", reason);
    status.put("code", code);
    return status;
  }

  /** The error channel's message for {@code status}. */
  static ByteBuffer errorFrame(ObjectNode status) {
    try {
      byte[] json = JSON.writeValueAsBytes(status);
      return frame(ERROR, json, json.length);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Sends one binary message and waits until it is written, so nothing piles up in memory. */
  static void sendAndWait(Session session, ByteBuffer message) throws IOException {
    CompletableFuture<Void> sent = new CompletableFuture<>();
    session.sendBinary(
        message, Callback.from(() -> sent.complete(null), sent::completeExceptionally));
    try {
      sent.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IOException(e.getCause());
    }
  }
}
