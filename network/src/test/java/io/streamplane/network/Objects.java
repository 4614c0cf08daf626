package io.streamplane.network;

import io.streamplane.api.EndpointSlice;
import io.streamplane.api.Endpoints;
import io.streamplane.api.Service;
import io.streamplane.schema.convert.KubeJson;
import org.apache.avro.specific.SpecificRecord;

/** Services and Endpoints for tests, from their Kubernetes JSON (single quotes allowed). */
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

  /** Puts a Service and its Endpoints into {@code table}: ready addresses, one subset. */
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
      table.putEndpoints(
          namespace,
          name,
          endpoints(
              "{'metadata':{'name':'"
                  + name
                  + "','namespace':'"
                  + namespace
                  + "'},'subsets':"
                  + subsets
                  + "}"));
    }
    table.changed();
  }
}
