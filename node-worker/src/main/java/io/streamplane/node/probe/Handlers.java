package io.streamplane.node.probe;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerPort;
import io.streamplane.api.ExecAction;
import io.streamplane.api.HTTPGetAction;
import io.streamplane.api.HTTPHeader;
import io.streamplane.api.TCPSocketAction;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.runtime.PodSandbox;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Runs the handlers probes and lifecycle hooks name — {@code exec}, {@code httpGet}, {@code
 * tcpSocket} — against a container, as the kubelet's prober does: exec succeeds on exit code 0,
 * httpGet on a status from 200 to 399 (redirects not followed), tcpSocket when a connection opens,
 * each within {@code timeout}. Addresses default to the pod IP; a named port is looked up in the
 * container's ports.
 *
 * <p>{@link #alwaysSucceeds()} is what simulated nodes use: nothing runs there to be reached.
 */
public interface Handlers {

  /** True when the handler succeeded; false when it failed or could not run. */
  CompletableFuture<Boolean> run(
      PodSandbox sandbox,
      Container container,
      ExecAction exec,
      HTTPGetAction httpGet,
      TCPSocketAction tcpSocket,
      Duration timeout);

  static Handlers alwaysSucceeds() {
    return (sandbox, container, exec, httpGet, tcpSocket, timeout) ->
        CompletableFuture.completedFuture(true);
  }

  /**
   * Handlers reaching real processes: exec through {@code runtime}, the others over the network.
   */
  static Handlers onHost(PodRuntime runtime, HttpClient http, Executor blocking) {
    return (sandbox, container, exec, httpGet, tcpSocket, timeout) -> {
      if (exec != null) {
        List<String> command = exec.getCommand() == null ? List.of() : exec.getCommand();
        return runtime
            .exec(sandbox, container.getName(), command, timeout)
            .handle((code, failure) -> failure == null && code == 0);
      }
      if (httpGet != null) {
        String host = httpGet.getHost() == null ? sandbox.podIP() : httpGet.getHost();
        String scheme = httpGet.getScheme() == null ? "http" : httpGet.getScheme().toLowerCase();
        String path = httpGet.getPath() == null ? "/" : httpGet.getPath();
        URI uri;
        try {
          uri =
              URI.create(
                  scheme
                      + "://"
                      + host
                      + ":"
                      + port(container, httpGet.getPort())
                      + (path.startsWith("/") ? path : "/" + path));
        } catch (IllegalArgumentException e) {
          return CompletableFuture.completedFuture(false);
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
        request.header("User-Agent", "kube-probe/1.32");
        if (httpGet.getHttpHeaders() != null) {
          for (HTTPHeader header : httpGet.getHttpHeaders()) {
            request.setHeader(header.getName(), header.getValue());
          }
        }
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding())
            .handle(
                (response, failure) ->
                    failure == null && response.statusCode() >= 200 && response.statusCode() < 400);
      }
      if (tcpSocket != null) {
        String host = tcpSocket.getHost() == null ? sandbox.podIP() : tcpSocket.getHost();
        return CompletableFuture.supplyAsync(
            () -> {
              try (Socket socket = new Socket()) {
                socket.connect(
                    new InetSocketAddress(host, port(container, tcpSocket.getPort())),
                    (int) Math.max(1, timeout.toMillis()));
                return true;
              } catch (IOException | IllegalArgumentException e) {
                return false;
              }
            },
            blocking);
      }
      return CompletableFuture.completedFuture(false); // a handler with no action never succeeds
    };
  }

  /** An int-or-string port: a number, or the name of one of the container's ports. */
  static int port(Container container, Object port) {
    if (port instanceof Integer number) {
      return number;
    }
    String text = port == null ? "" : port.toString();
    if (text.chars().allMatch(Character::isDigit) && !text.isEmpty()) {
      return Integer.parseInt(text);
    }
    if (container.getPorts() != null) {
      for (ContainerPort candidate : container.getPorts()) {
        if (text.equals(candidate.getName()) && candidate.getContainerPort() != null) {
          return candidate.getContainerPort();
        }
      }
    }
    throw new IllegalArgumentException("no port named \"" + text + "\" in " + container.getName());
  }
}
