package io.streamplane.node.streams;

import static org.awaitility.Awaitility.await;

import io.streamplane.api.Container;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.node.logs.NodeLogServer;
import io.streamplane.node.runtime.ContainerCommand;
import io.streamplane.node.runtime.PodInputs;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.process.ProcessRuntime;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exec stream on the node over a real WebSocket, against a pod of the process runtime: what
 * becomes of a command whose client leaves.
 */
class RemoteCommandSessionTest {

  @TempDir Path root;
  private ProcessRuntime runtime;
  private NodeLogServer server;
  private PodSandbox sandbox;

  @BeforeEach
  void start() throws Exception {
    runtime = new ProcessRuntime(root);
    server =
        NodeLogServer.start(
            "127.0.0.1", 0, runtime.logs().orElseThrow(), null, runtime, Clock.systemUTC());
    Container app = new Container();
    app.setName("app");
    app.setImage("busybox");
    app.setCommand(List.of("/bin/sh", "-c", "sleep 60"));
    PodSpec spec = new PodSpec();
    spec.setContainers(List.of(app));
    Pod pod = new Pod();
    pod.setMetadata(
        ObjectMeta.newBuilder()
            .setName("web")
            .setNamespace("default")
            .setUid(UUID.randomUUID().toString())
            .build());
    pod.setSpec(spec);
    sandbox = runtime.start(pod, "127.0.0.1", PodInputs.NONE).get(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    runtime.stop(sandbox, Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS);
    server.close();
    runtime.close();
  }

  /**
   * v4 has no close of stdin: a client that streams a file into {@code cat} ends its input by
   * closing the socket (fabric8's upload does). Its leaving ends the command's stdin, as kubelet's
   * stream does, and the command goes on to write all it was sent.
   */
  @Test
  void aClientThatLeavesEndsTheCommandsInputAndTheCommandFinishesItsWork() throws Exception {
    byte[] data = "a line of the uploaded file\n".repeat(400).getBytes(StandardCharsets.UTF_8);
    // Still asleep when the client leaves: it reads its input only after.
    String received = "/tmp/received-" + UUID.randomUUID();
    String script = "sleep 1; cat - > " + received;
    URI exec =
        URI.create(
            "ws://127.0.0.1:"
                + server.port()
                + "/exec/default/web/app?command=sh&command=-c&command="
                + URLEncoder.encode(script, StandardCharsets.UTF_8)
                + "&input=1&output=1&error=1");
    CompletableFuture<Void> closed = new CompletableFuture<>();
    WebSocket socket =
        HttpClient.newHttpClient()
            .newWebSocketBuilder()
            .subprotocols(ChannelProtocol.V4)
            .buildAsync(
                exec,
                new WebSocket.Listener() {
                  @Override
                  public CompletableFuture<?> onClose(WebSocket ws, int code, String reason) {
                    closed.complete(null);
                    return null;
                  }
                })
            .get(10, TimeUnit.SECONDS);
    ByteBuffer stdin = ByteBuffer.allocate(data.length + 1);
    stdin.put((byte) ChannelProtocol.STDIN).put(data).flip();
    socket.sendBinary(stdin, true).get(10, TimeUnit.SECONDS);
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
    closed.get(10, TimeUnit.SECONDS);

    await("the command to write all it was sent")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> bytesOf(received), count -> count.equals("" + data.length));
  }

  private String bytesOf(String file) throws Exception {
    ContainerCommand wc =
        runtime.execStream(
            "default", "web", "app", List.of("/bin/sh", "-c", "wc -c < " + file), false);
    wc.stdin().close();
    String out = new String(wc.stdout().readAllBytes(), StandardCharsets.UTF_8).trim();
    wc.waitFor();
    return out;
  }
}
