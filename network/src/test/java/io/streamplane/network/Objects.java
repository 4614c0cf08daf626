package io.streamplane.network;

import io.streamplane.api.DiscoveryV1EndpointPort;
import io.streamplane.api.Endpoint;
import io.streamplane.api.EndpointAddress;
import io.streamplane.api.EndpointConditions;
import io.streamplane.api.EndpointPort;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.EndpointSubset;
import io.streamplane.api.Endpoints;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Service;
import io.streamplane.schema.convert.KubeJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * Services, Endpoints and EndpointSlices for tests, from their Kubernetes JSON (single quotes
 * allowed).
 */
public final class Objects {

  private static final KubeJson JSON = new KubeJson();

  private Objects() {}

  public static Service service(String json) {
    return parse(json, Service.class);
  }

  public static EndpointSlice slice(String json) {
    return parse(json, EndpointSlice.class);
  }

  public static Endpoints endpoints(String json) {
    return parse(json, Endpoints.class);
  }

  private static <T extends SpecificRecord> T parse(String json, Class<T> type) {
    return JSON.toAvro(KubeJson.parseJson(json.replace('\'', '"')), type).record();
  }

  /**
   * Puts a Service into {@code table} and, unless {@code subsets} is null, one EndpointSlice of the
   * addresses of its Endpoints' one subset, as the controllers mirror them ({@code addresses}
   * ready, {@code notReadyAddresses} not): the slice replaces the one put before for the Service.
   */
  public static void serve(
      ServiceTable table, String namespace, String name, String serviceSpec, String subsets) {
    table.putService(
        namespace,
        name,
        service(
            "{'metadata':{'name':'"
                + name
                + "','namespace':'"
                + namespace
                + "'},'spec':"
                + serviceSpec
                + "}"));
    if (subsets != null) {
      Endpoints endpoints =
          endpoints(
              "{'metadata':{'name':'"
                  + name
                  + "','namespace':'"
                  + namespace
                  + "'},'subsets':"
                  + subsets
                  + "}");
      table.putSlice(namespace, name + "-mirrored", mirrored(endpoints));
    }
    table.changed();
  }

  private static EndpointSlice mirrored(Endpoints endpoints) {
    List<EndpointSubset> subsets =
        endpoints.getSubsets() == null ? List.of() : endpoints.getSubsets();
    if (subsets.size() > 1) {
      throw new IllegalArgumentException("one subset at most: " + subsets);
    }
    List<DiscoveryV1EndpointPort> ports = new ArrayList<>();
    List<Endpoint> slice = new ArrayList<>();
    for (EndpointSubset subset : subsets) {
      for (EndpointPort port : list(subset.getPorts())) {
        ports.add(
            DiscoveryV1EndpointPort.newBuilder()
                .setName(port.getName())
                .setPort(port.getPort())
                .setProtocol(port.getProtocol())
                .build());
      }
      for (boolean ready : new boolean[] {true, false}) {
        for (EndpointAddress address :
            list(ready ? subset.getAddresses() : subset.getNotReadyAddresses())) {
          slice.add(
              Endpoint.newBuilder()
                  .setAddresses(List.of(address.getIp()))
                  .setHostname(address.getHostname())
                  .setConditions(EndpointConditions.newBuilder().setReady(ready).build())
                  .build());
        }
      }
    }
    return EndpointSlice.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(endpoints.getMetadata().getName() + "-mirrored")
                .setNamespace(endpoints.getMetadata().getNamespace())
                .setLabels(Map.of(ServiceTable.SERVICE_NAME, endpoints.getMetadata().getName()))
                .build())
        .setAddressType("IPv4")
        .setPorts(ports)
        .setEndpoints(slice)
        .build();
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
