package io.streamplane.bench.scenario;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.bench.load.KubeClient;

/** The objects scenarios create: Deployments of a tiny pod template, small ConfigMaps. */
public final class Workloads {

  private Workloads() {}

  /**
   * A Deployment of {@code replicas} pods of one container running {@code image}, labelled with the
   * run; {@code cpuRequest} (a quantity such as {@code 10m}) or none when null.
   */
  public static ObjectNode deployment(
      String name, int replicas, BenchNamespace ns, String image, String cpuRequest) {
    ObjectNode d = KubeClient.JSON.createObjectNode();
    d.put("apiVersion", "apps/v1").put("kind", "Deployment");
    ObjectNode meta = d.putObject("metadata");
    meta.put("name", name);
    meta.putObject("labels").put(BenchNamespace.RUN_LABEL, ns.runId());
    ObjectNode spec = d.putObject("spec");
    spec.put("replicas", replicas);
    spec.putObject("selector").putObject("matchLabels").put("app", name);
    ObjectNode template = spec.putObject("template");
    template
        .putObject("metadata")
        .putObject("labels")
        .put("app", name)
        .put(BenchNamespace.RUN_LABEL, ns.runId());
    ObjectNode container =
        template.putObject("spec").putArray("containers").addObject().put("name", "app");
    container.put("image", image);
    if (cpuRequest != null) {
      container.putObject("resources").putObject("requests").put("cpu", cpuRequest);
    }
    return d;
  }

  /** A ConfigMap of one small entry, labelled with the run. */
  public static ObjectNode configMap(String name, BenchNamespace ns, String value) {
    ObjectNode c = KubeClient.JSON.createObjectNode();
    c.put("apiVersion", "v1").put("kind", "ConfigMap");
    ObjectNode meta = c.putObject("metadata");
    meta.put("name", name);
    meta.putObject("labels").put(BenchNamespace.RUN_LABEL, ns.runId());
    c.putObject("data").put("value", value);
    return c;
  }

  /** A Secret of one small entry (base64 in {@code data}), labelled with the run. */
  public static ObjectNode secret(String name, BenchNamespace ns, String value) {
    ObjectNode c = KubeClient.JSON.createObjectNode();
    c.put("apiVersion", "v1").put("kind", "Secret");
    ObjectNode meta = c.putObject("metadata");
    meta.put("name", name);
    meta.putObject("labels").put(BenchNamespace.RUN_LABEL, ns.runId());
    c.putObject("stringData").put("value", value);
    return c;
  }
}
