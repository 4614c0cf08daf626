package io.streamplane.csi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.streamplane.csi.registration.RegistrationServer;
import io.streamplane.csi.registration.v1.InfoRequest;
import io.streamplane.csi.registration.v1.RegistrationGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gRPC over Unix sockets, also at paths longer than a socket address holds. */
class UnixSocketsTest {

  @TempDir Path dir;

  @Test
  void aSocketDeepInADirectoryIsServedAndReached() throws Exception {
    Path deep = dir;
    while (deep.toString().length() < 120) {
      deep = deep.resolve("a-rather-long-directory-name");
    }
    Path socket = deep.resolve("driver-reg.sock");
    assertThat(socket.toString().length()).isGreaterThan(UnixSockets.MAX_PATH);
    Server server =
        UnixSockets.serve(socket, new RegistrationServer("x.csi.example.com", dir.resolve("c")));
    ManagedChannel channel = UnixSockets.connect(socket);
    try {
      assertThat(Files.exists(socket)).isTrue(); // the socket file is where it was asked
      assertThat(
              RegistrationGrpc.newBlockingStub(channel)
                  .withDeadlineAfter(10, TimeUnit.SECONDS)
                  .getInfo(InfoRequest.getDefaultInstance())
                  .getName())
          .isEqualTo("x.csi.example.com");
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }
}
