package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.ClusterObjects;
import io.streamplane.gateway.admission.NamespaceLifecycle;
import io.streamplane.gateway.api.Discovery;
import io.streamplane.gateway.api.OpenApiV3;
import io.streamplane.gateway.api.table.TableConverter;
import io.streamplane.gateway.audit.Auditor;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.http.spi.JettyHttpServer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The gateway's Jetty server ({@link GatewayServer#httpServer}: the {@link HandlerChain} in front
 * of {@link ApiHandler}) on a free local port with no broker behind it: for what it answers before
 * storage is reached. Every request is the admin's; nothing is audited.
 */
final class BrokerlessHandler implements AutoCloseable {

  /** A cluster with no objects at all, for the plugins of a handler without a cache. */
  private static final class NoObjects implements ClusterObjects {
    @Override
    public Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
      return Optional.empty();
    }

    @Override
    public Optional<ObjectNode> getFresh(
        String group, String resource, String namespace, String name) {
      return Optional.empty();
    }

    @Override
    public void catchUp() {}

    @Override
    public List<ObjectNode> list(String group, String resource, String namespace) {
      return List.of();
    }
  }

  private final HttpClient client = HttpClient.newHttpClient();
  private final Server server;
  private final ServerConnector connector;

  BrokerlessHandler() throws IOException {
    this(
        new ResourceService(
            null,
            null,
            null,
            new KubeJson(),
            Duration.ofSeconds(1),
            // NamespaceLifecycle refuses deleting an immortal namespace before storage is reached.
            new Admission(List.of(new NamespaceLifecycle(new NoObjects())), List.of())));
  }

  /** The handler over {@code service}, which must not reach its cache or command client. */
  BrokerlessHandler(ResourceService service) throws IOException {
    ResourceRegistry registry = ResourceRegistry.kubernetes();
    RequestChain chain =
        RequestChain.unauthenticated(
            UserInfo.newBuilder()
                .setUsername("kubernetes-admin")
                .setGroups(List.of("system:masters"))
                .build());
    ApiHandler handler =
        new ApiHandler(
            chain,
            registry,
            service,
            null,
            new Discovery(registry, "test", Instant.parse("2026-11-22T00:00:00Z")),
            new OpenApiV3(registry),
            new TableConverter(Clock.systemUTC()),
            new AuthenticationApi(
                registry, service, Optional.empty(), chain.authentication(), Clock.systemUTC()));
    server = GatewayServer.httpServer(handler, registry, service, chain, Auditor.none());
    HttpConfiguration configuration = new HttpConfiguration();
    connector = new ServerConnector(server, new HttpConnectionFactory(configuration));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    new JettyHttpServer(server, true, configuration).createContext("/", handler);
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  HttpResponse<String> send(String method, String path) throws Exception {
    return send(method, path, "*/*");
  }

  /** A request with this {@code Accept} header. */
  HttpResponse<String> send(String method, String path, String accept) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + connector.getLocalPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .header("Accept", accept)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A request carrying a JSON body. */
  HttpResponse<String> sendJson(String method, String path, String body) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + connector.getLocalPort() + path))
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  int port() {
    return connector.getLocalPort();
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
