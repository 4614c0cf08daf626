package io.streamplane.network.proxy;

import static io.streamplane.network.Objects.serve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamplane.network.ServiceTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The proxy on real sockets: cluster IPs and node ports on loopback, endpoints that answer. */
class ServiceProxyTest {

  private final ServiceTable table = new ServiceTable();
  private final ServiceProxy proxy = new ServiceProxy(table, "127.0.0.1");
  private final List<AutoCloseable> backends = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    proxy.close();
    for (AutoCloseable backend : backends) {
      backend.close();
    }
  }

  @Test
  void connectionsToAClusterIPAreSpreadOverTheReadyEndpoints() throws Exception {
    tcpBackend("127.77.0.1", 18080, "a");
    tcpBackend("127.77.0.2", 18080, "b");
    tcpBackend("127.77.0.3", 18080, "c");
    serve(
        table,
        "default",
        "web",
        "{'clusterIP':'127.96.77.1','ports':[{'name':'http','port':10080,'targetPort':18080}]}",
        "[{'addresses':[{'ip':'127.77.0.1'},{'ip':'127.77.0.2'},{'ip':'127.77.0.3'}],"
            + "'notReadyAddresses':[{'ip':'127.77.0.4'}],"
            + "'ports':[{'name':'http','port':18080}]}]");
    awaitListening("TCP 127.96.77.1:10080");
    Map<String, Integer> answers = new HashMap<>();
    for (int i = 0; i < 9; i++) {
      answers.merge(ask("127.96.77.1", 10080), 1, Integer::sum);
    }
    assertEquals(Map.of("a", 3, "b", 3, "c", 3), answers);
  }

  @Test
  void clientIPAffinityKeepsAClientOnOneEndpointAndANodePortAnswersToo() throws Exception {
    tcpBackend("127.77.1.1", 18080, "a");
    tcpBackend("127.77.1.2", 18080, "b");
    serve(
        table,
        "default",
        "sticky",
        "{'clusterIP':'127.96.77.2','type':'NodePort','sessionAffinity':'ClientIP',"
            + "'ports':[{'port':10080,'targetPort':18080,'nodePort':31777}]}",
        "[{'addresses':[{'ip':'127.77.1.1'},{'ip':'127.77.1.2'}],'ports':[{'port':18080}]}]");
    awaitListening("TCP 127.0.0.1:31777");
    String first = ask("127.96.77.2", 10080);
    for (int i = 0; i < 4; i++) {
      assertEquals(first, ask("127.96.77.2", 10080));
    }
    assertTrue(List.of("a", "b").contains(ask("127.0.0.1", 31777)));
  }

  @Test
  void anEndpointChangeIsInEffectForTheNextConnectionAndNoEndpointResets() throws Exception {
    tcpBackend("127.77.2.1", 18080, "a");
    tcpBackend("127.77.2.2", 18080, "b");
    serve(
        table,
        "default",
        "web",
        "{'clusterIP':'127.96.77.3','ports':[{'port':10080,'targetPort':18080}]}",
        "[{'addresses':[{'ip':'127.77.2.1'},{'ip':'127.77.2.2'}],'ports':[{'port':18080}]}]");
    awaitListening("TCP 127.96.77.3:10080");
    serve(
        table,
        "default",
        "web",
        "{'clusterIP':'127.96.77.3','ports':[{'port':10080,'targetPort':18080}]}",
        "[{'addresses':[{'ip':'127.77.2.2'}],'notReadyAddresses':[{'ip':'127.77.2.1'}],"
            + "'ports':[{'port':18080}]}]");
    for (int i = 0; i < 4; i++) {
      assertEquals("b", ask("127.96.77.3", 10080));
    }
    serve(
        table,
        "default",
        "web",
        "{'clusterIP':'127.96.77.3','ports':[{'port':10080,'targetPort':18080}]}",
        "[]");
    assertThrows(IOException.class, () -> ask("127.96.77.3", 10080));

    table.putService("default", "web", null);
    table.changed();
    awaitNotListening("TCP 127.96.77.3:10080");
  }

  @Test
  void udpDatagramsReachAnEndpointAndItsAnswersComeBackFromTheClusterIP() throws Exception {
    udpBackend("127.77.3.1", 18053);
    serve(
        table,
        "kube-system",
        "dns",
        "{'clusterIP':'127.96.77.4','ports':[{'name':'dns','port':10053,'protocol':'UDP',"
            + "'targetPort':18053}]}",
        "[{'addresses':[{'ip':'127.77.3.1'}],'ports':[{'name':'dns','port':18053,"
            + "'protocol':'UDP'}]}]");
    awaitListening("UDP 127.96.77.4:10053");
    try (DatagramSocket client = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
      client.setSoTimeout(5_000);
      for (String word : List.of("ping", "pong")) {
        byte[] out = word.getBytes(StandardCharsets.UTF_8);
        client.send(
            new DatagramPacket(out, out.length, InetAddress.getByName("127.96.77.4"), 10053));
        DatagramPacket in = new DatagramPacket(new byte[100], 100);
        client.receive(in);
        assertEquals(
            "127.77.3.1 heard " + word,
            new String(in.getData(), 0, in.getLength(), StandardCharsets.UTF_8));
        assertEquals("127.96.77.4", in.getAddress().getHostAddress());
        assertEquals(10053, in.getPort());
      }
    }
  }

  private void awaitListening(String frontend) throws InterruptedException {
    for (int i = 0; i < 100 && !proxy.listening().containsKey(frontend); i++) {
      Thread.sleep(50);
    }
    assertTrue(
        proxy.listening().containsKey(frontend), () -> frontend + " in " + proxy.listening());
  }

  private void awaitNotListening(String frontend) throws InterruptedException {
    for (int i = 0; i < 100 && proxy.listening().containsKey(frontend); i++) {
      Thread.sleep(50);
    }
    assertTrue(
        !proxy.listening().containsKey(frontend), () -> frontend + " in " + proxy.listening());
  }

  /** Connects, reads the endpoint's one-line answer. */
  private static String ask(String ip, int port) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(ip, port), 5_000);
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write("hello\n".getBytes(StandardCharsets.UTF_8));
      InputStream in = socket.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      if (answer.isEmpty()) {
        throw new IOException("closed without an answer");
      }
      return answer;
    }
  }

  /** A TCP endpoint that reads a line and answers its name. */
  private void tcpBackend(String ip, int port, String name) throws IOException {
    ServerSocket server = new ServerSocket();
    server.bind(new InetSocketAddress(ip, port));
    backends.add(server);
    Thread thread =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                  socket.getInputStream().read(new byte[6]);
                  socket.getOutputStream().write((name + "\n").getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                  // closed
                }
              }
            });
    thread.setDaemon(true);
    thread.start();
  }

  /** A UDP endpoint that answers each datagram with its address and what it heard. */
  private void udpBackend(String ip, int port) throws IOException {
    DatagramSocket socket = new DatagramSocket(new InetSocketAddress(ip, port));
    backends.add(socket);
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[100];
              while (!socket.isClosed()) {
                try {
                  DatagramPacket in = new DatagramPacket(buffer, buffer.length);
                  socket.receive(in);
                  byte[] out =
                      (ip
                              + " heard "
                              + new String(in.getData(), 0, in.getLength(), StandardCharsets.UTF_8))
                          .getBytes(StandardCharsets.UTF_8);
                  socket.send(new DatagramPacket(out, out.length, in.getSocketAddress()));
                } catch (IOException e) {
                  // closed
                }
              }
            });
    thread.setDaemon(true);
    thread.start();
  }
}
