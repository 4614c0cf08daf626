package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.streamplane.api.ConfigMapVolumeSource;
import io.streamplane.api.Container;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.Volume;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a pod's inputs fail to resolve decides how soon its start is tried again: an API that did not
 * answer or could not serve is {@link PodInputsResolver.Unavailable}, an object that does not exist
 * is {@link PodInputsResolver.MissingInput}.
 */
class PodInputsResolverTest {

  private final AtomicInteger status = new AtomicInteger();
  private HttpServer server;
  private GatewayClient api;

  private GatewayClient answering(int code) throws IOException {
    status.set(code);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"code\":" + status.get() + "}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status.get(), body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    api = new GatewayClient("http://127.0.0.1:" + server.getAddress().getPort(), 4);
    return api;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
    if (api != null) {
      api.close();
    }
  }

  private static Pod podWithConfigMap() {
    return Pod.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName("web").setNamespace("shop").build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(List.of(Container.newBuilder().setName("c").build()))
                .setVolumes(
                    List.of(
                        Volume.newBuilder()
                            .setName("settings")
                            .setConfigMap(
                                ConfigMapVolumeSource.newBuilder().setName("settings").build())
                            .build()))
                .build())
        .build();
  }

  private static Throwable failureOf(GatewayClient api) throws Exception {
    try {
      new PodInputsResolver(api, null)
          .resolve(podWithConfigMap(), "10.0.0.2")
          .get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      return cause;
    }
    throw new AssertionError("resolved");
  }

  @Test
  void anApiThatCannotServeIsUnavailable() throws Exception {
    assertThat(failureOf(answering(503))).isInstanceOf(PodInputsResolver.Unavailable.class);
  }

  @Test
  void anApiThatDoesNotAnswerIsUnavailable() throws Exception {
    answering(200);
    server.stop(0);
    server = null;

    assertThat(failureOf(api)).isInstanceOf(PodInputsResolver.Unavailable.class);
  }

  @Test
  void aConfigMapThatDoesNotExistIsMissing() throws Exception {
    assertThat(failureOf(answering(404)))
        .isInstanceOf(PodInputsResolver.MissingInput.class)
        .hasMessage("configmap \"settings\" not found");
  }
}
