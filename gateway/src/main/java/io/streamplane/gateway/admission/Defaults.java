package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ResourceType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;

/**
 * Kubernetes' defaulting of the kinds Streamplane serves (the {@code SetDefaults_*} functions of
 * k8s.io/kubernetes/pkg/apis/{core,apps}/v1 and the registry strategies' PrepareForCreate), applied
 * to the decoded JSON before it is stored, so that {@code kubectl get -o yaml} shows what a real
 * cluster shows: restartPolicy, dnsPolicy, schedulerName, terminationGracePeriodSeconds, image pull
 * policy, port protocols, a volume with no source as {@code emptyDir: {}}, the {@code apiVersion}
 * of an env var's {@code fieldRef}, Deployment strategy and limits, Namespace finalizers and phase,
 * Secret type and stringData.
 *
 * <p>Changes the given node in place: it is the request's own copy.
 */
public final class Defaults {

  private Defaults() {}

  public static void apply(ResourceType type, ObjectNode object, boolean create) {
    object.put("apiVersion", type.groupVersion());
    object.put("kind", type.kind());
    switch (type.kind()) {
      case "Pod" -> {
        podSpec(object.with("spec"));
        if (create) {
          ObjectNode status = object.with("status");
          if (!status.has("phase")) {
            status.put("phase", "Pending");
          }
          status.put("qosClass", qosClass(object.path("spec")));
        }
      }
      case "Deployment" -> {
        ObjectNode spec = object.with("spec");
        putIfAbsent(spec, "replicas", 1);
        ObjectNode strategy = spec.with("strategy");
        if (!strategy.has("type")) {
          strategy.put("type", "RollingUpdate");
        }
        if (strategy.path("type").asText().equals("RollingUpdate")) {
          ObjectNode rolling = strategy.with("rollingUpdate");
          if (!rolling.has("maxUnavailable")) {
            rolling.put("maxUnavailable", "25%");
          }
          if (!rolling.has("maxSurge")) {
            rolling.put("maxSurge", "25%");
          }
        }
        putIfAbsent(spec, "revisionHistoryLimit", 10);
        putIfAbsent(spec, "progressDeadlineSeconds", 600);
        template(spec);
      }
      case "ReplicaSet" -> {
        ObjectNode spec = object.with("spec");
        putIfAbsent(spec, "replicas", 1);
        template(spec);
      }
      case "Namespace" -> {
        if (create) {
          ObjectNode spec = object.with("spec");
          if (!spec.has("finalizers")) {
            spec.putArray("finalizers").add("kubernetes");
          }
          object.with("status").put("phase", "Active");
        }
      }
      case "Secret" -> {
        if (!object.has("type")) {
          object.put("type", "Opaque");
        }
        JsonNode stringData = object.remove("stringData");
        if (stringData instanceof ObjectNode strings) {
          ObjectNode data = object.with("data");
          for (Iterator<Map.Entry<String, JsonNode>> it = strings.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            data.put(
                entry.getKey(),
                Base64.getEncoder()
                    .encodeToString(entry.getValue().asText().getBytes(StandardCharsets.UTF_8)));
          }
        }
      }
      default -> {}
    }
  }

  private static void template(ObjectNode spec) {
    if (spec.path("template").isObject()) {
      podSpec(spec.with("template").with("spec"));
    }
  }

  private static void podSpec(ObjectNode spec) {
    putIfAbsent(spec, "restartPolicy", "Always");
    putIfAbsent(spec, "terminationGracePeriodSeconds", 30);
    putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
    putIfAbsent(spec, "schedulerName", "default-scheduler");
    containers(spec.path("initContainers"));
    containers(spec.path("containers"));
    volumes(spec.path("volumes"));
  }

  /**
   * SetDefaults_Volume: a volume that names no source at all is an {@code emptyDir}. A source
   * Streamplane does not model still counts as one here (it is reported as an unknown field when
   * decoded), so no volume is silently turned into an emptyDir that asked for something else.
   */
  private static void volumes(JsonNode volumes) {
    if (!(volumes instanceof ArrayNode list)) {
      return;
    }
    for (JsonNode node : list) {
      if (node instanceof ObjectNode volume) {
        boolean hasSource = false;
        for (Iterator<String> names = volume.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          hasSource |= !name.equals("name") && !volume.get(name).isNull();
        }
        if (!hasSource) {
          volume.putObject("emptyDir");
        }
      }
    }
  }

  private static void containers(JsonNode containers) {
    if (!(containers instanceof ArrayNode list)) {
      return;
    }
    for (JsonNode node : list) {
      if (!(node instanceof ObjectNode container)) {
        continue;
      }
      putIfAbsent(container, "terminationMessagePath", "/dev/termination-log");
      putIfAbsent(container, "terminationMessagePolicy", "File");
      if (!container.has("imagePullPolicy")) {
        container.put("imagePullPolicy", pullPolicy(container.path("image").asText("")));
      }
      if (!container.has("resources")) {
        container.putObject("resources");
      }
      for (JsonNode env : container.path("env")) {
        // SetDefaults_ObjectFieldSelector: a fieldRef's apiVersion is "v1" unless given.
        if (env.path("valueFrom").path("fieldRef") instanceof ObjectNode fieldRef
            && fieldRef.path("apiVersion").asText("").isEmpty()) {
          fieldRef.put("apiVersion", "v1");
        }
      }
      if (container.path("ports") instanceof ArrayNode ports) {
        for (JsonNode port : ports) {
          if (port instanceof ObjectNode p && !p.has("protocol")) {
            p.put("protocol", "TCP");
          }
        }
      }
    }
  }

  /**
   * Always for the tag "latest" or an image with neither tag nor digest, IfNotPresent otherwise, as
   * Kubernetes defaults ({@code nginx:latest@sha256:...} is Always: its tag is "latest").
   */
  static String pullPolicy(String image) {
    int at = image.indexOf('@');
    String name = at < 0 ? image : image.substring(0, at);
    int slash = name.lastIndexOf('/');
    int colon = name.lastIndexOf(':');
    String tag = colon > slash ? name.substring(colon + 1) : (at < 0 ? "latest" : "");
    return tag.equals("latest") ? "Always" : "IfNotPresent";
  }

  /** The pod's QoS class from its containers' requests and limits (cpu and memory). */
  static String qosClass(JsonNode spec) {
    boolean any = false;
    boolean guaranteed = true;
    for (String list : new String[] {"initContainers", "containers"}) {
      for (JsonNode container : spec.path(list)) {
        JsonNode requests = container.path("resources").path("requests");
        JsonNode limits = container.path("resources").path("limits");
        for (String resource : new String[] {"cpu", "memory"}) {
          boolean limited = limits.has(resource);
          boolean requested = requests.has(resource);
          any |= limited || requested;
          if (!limited
              || (requested
                  && !requests.path(resource).asText().equals(limits.path(resource).asText()))) {
            guaranteed = false;
          }
        }
      }
    }
    if (!any) {
      return "BestEffort";
    }
    return guaranteed ? "Guaranteed" : "Burstable";
  }

  private static void putIfAbsent(ObjectNode node, String field, String value) {
    if (!node.has(field) || node.get(field).isNull()) {
      node.put(field, value);
    }
  }

  private static void putIfAbsent(ObjectNode node, String field, int value) {
    if (!node.has(field) || node.get(field).isNull()) {
      node.put(field, value);
    }
  }
}
