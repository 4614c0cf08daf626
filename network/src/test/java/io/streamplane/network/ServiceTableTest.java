package io.streamplane.network;

import static io.streamplane.network.Objects.serve;
import static io.streamplane.network.Objects.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamplane.api.ServicePort;
import io.streamplane.network.ServiceTable.Backend;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServiceTableTest {

  private final ServiceTable table = new ServiceTable();
  private final ServicePort http = ServicePort.newBuilder().setName("http").setPort(80).build();

  @BeforeEach
  void service() {
    serve(
        table,
        "default",
        "web",
        "{'clusterIP':'127.96.1.1','selector':{'app':'web'},'ports':[{'name':'http','port':80}]}",
        null);
  }

  @Test
  void aServiceWithoutSlicesHasNoBackend() {
    assertEquals(List.of(), table.backends("default", "web", http));
  }

  @Test
  void itsSlicesAddUp() {
    table.putSlice("default", "web-a", webSlice("web-a", "[{'addresses':['127.1.0.2']}]"));
    table.putSlice(
        "default",
        "web-b",
        webSlice("web-b", "[{'addresses':['127.1.0.3'],'conditions':{'ready':true}}]"));
    table.putSlice(
        "default",
        "other",
        slice(
            "{'metadata':{'name':'other','labels':{'kubernetes.io/service-name':'other'}},"
                + "'addressType':'IPv4','endpoints':[{'addresses':['127.9.9.9']}]}"));
    assertEquals(
        List.of(new Backend("127.1.0.2", 8080), new Backend("127.1.0.3", 8080)),
        table.backends("default", "web", http));

    table.putSlice("default", "web-a", null);
    assertEquals(List.of(new Backend("127.1.0.3", 8080)), table.backends("default", "web", http));
    // An empty slice (the placeholder of a Service without pods) means no endpoints.
    table.putSlice("default", "web-b", webSlice("web-b", "[]"));
    assertEquals(List.of(), table.backends("default", "web", http));
  }

  @Test
  void terminatingEndpointsStillServingTakeConnectionsOnlyWhenNoneIsReady() {
    table.putSlice(
        "default",
        "web-a",
        webSlice(
            "web-a",
            "[{'addresses':['127.1.0.4'],'conditions':{'ready':false,'serving':true,"
                + "'terminating':true}},"
                + "{'addresses':['127.1.0.5'],'conditions':{'ready':false,'serving':false}}]"));
    assertEquals(List.of(new Backend("127.1.0.4", 8080)), table.backends("default", "web", http));
    table.putSlice(
        "default",
        "web-b",
        webSlice("web-b", "[{'addresses':['127.1.0.6'],'conditions':{'ready':true}}]"));
    assertEquals(List.of(new Backend("127.1.0.6", 8080)), table.backends("default", "web", http));
  }

  private static io.streamplane.api.EndpointSlice webSlice(String name, String endpoints) {
    return slice(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'default','labels':{'kubernetes.io/service-name':'web'}},"
            + "'addressType':'IPv4','ports':[{'name':'http','port':8080,'protocol':'TCP'}],"
            + "'endpoints':"
            + endpoints
            + "}");
  }
}
