package io.streamplane.kinds.defaults;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.defaults.JsonDefaults.putIfPositiveAbsent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;

/**
 * Kubernetes' defaulting of pod specs, in pods and in the templates of workloads ({@code
 * SetDefaults_PodSpec}, {@code _Container}, {@code _Volume}, {@code _Probe} and their kin of
 * k8s.io/kubernetes/pkg/apis/core/v1), over Kubernetes JSON: restartPolicy, dnsPolicy,
 * schedulerName, terminationGracePeriodSeconds, an empty securityContext; containers' image pull
 * policy, termination message path and policy, port protocols, probe timings, an HTTP probe's path
 * and scheme, an env var's {@code fieldRef.apiVersion}; volumes: a volume with no source as {@code
 * emptyDir: {}}, the file modes of secret, configMap, downwardAPI and projected volumes, a
 * projected token's expiry, a hostPath's type. And what only a Pod gets ({@link #podOnly}), and its
 * QoS class.
 *
 * <p>Changes the given node in place; idempotent.
 */
public final class PodSpecDefaults {

  private PodSpecDefaults() {}

  /** The defaulting Kubernetes applies to a Pod but not to a pod template (SetDefaults_Pod). */
  public static void podOnly(ObjectNode spec) {
    for (String list : new String[] {"initContainers", "containers"}) {
      for (JsonNode container : spec.path(list)) {
        JsonNode limits = container.path("resources").path("limits");
        if (container instanceof ObjectNode c && limits.isObject() && !limits.isEmpty()) {
          ObjectNode requests = c.with("resources").with("requests");
          limits.fields().forEachRemaining(e -> requests.putIfAbsent(e.getKey(), e.getValue()));
        }
      }
    }
    if (!spec.has("enableServiceLinks") || spec.get("enableServiceLinks").isNull()) {
      spec.put("enableServiceLinks", true);
    }
    if (spec.path("hostNetwork").asBoolean(false)) {
      for (String list : new String[] {"initContainers", "containers"}) {
        for (JsonNode container : spec.path(list)) {
          for (JsonNode port : container.path("ports")) {
            if (port instanceof ObjectNode p && p.path("hostPort").asInt(0) == 0) {
              p.set("hostPort", p.path("containerPort"));
            }
          }
        }
      }
    }
    // spec.priority and spec.preemptionPolicy are the Priority admission plugin's to set.
  }

  public static void template(ObjectNode spec) {
    if (spec.path("template").isObject()) {
      podSpec(spec.with("template").with("spec"));
    }
  }

  public static void podSpec(ObjectNode spec) {
    putIfAbsent(spec, "restartPolicy", "Always");
    putIfAbsent(spec, "terminationGracePeriodSeconds", 30);
    putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
    putIfAbsent(spec, "schedulerName", "default-scheduler");
    if (!spec.path("securityContext").isObject()) {
      spec.putObject("securityContext");
    }
    containers(spec.path("initContainers"));
    containers(spec.path("containers"));
    containers(spec.path("ephemeralContainers"));
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
        volumeSource(volume);
      }
    }
  }

  /** The file modes (0644) of the sources that write files, a token's hour, a hostPath's type. */
  private static void volumeSource(ObjectNode volume) {
    for (String source : new String[] {"secret", "configMap", "downwardAPI", "projected"}) {
      if (volume.path(source) instanceof ObjectNode files) {
        putIfAbsent(files, "defaultMode", 420);
      }
    }
    for (JsonNode projection : volume.path("projected").path("sources")) {
      if (projection.path("serviceAccountToken") instanceof ObjectNode token
          && !token.hasNonNull("expirationSeconds")) {
        token.put("expirationSeconds", 3600);
      }
    }
    if (volume.path("hostPath") instanceof ObjectNode hostPath) {
      putIfAbsent(hostPath, "type", "");
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
      for (String probe : new String[] {"livenessProbe", "readinessProbe", "startupProbe"}) {
        if (container.path(probe) instanceof ObjectNode p) {
          probe(p);
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

  /** SetDefaults_Probe and SetDefaults_HTTPGetAction. */
  private static void probe(ObjectNode probe) {
    putIfPositiveAbsent(probe, "timeoutSeconds", 1);
    putIfPositiveAbsent(probe, "periodSeconds", 10);
    putIfPositiveAbsent(probe, "successThreshold", 1);
    putIfPositiveAbsent(probe, "failureThreshold", 3);
    if (probe.path("httpGet") instanceof ObjectNode httpGet) {
      if (httpGet.path("path").asText("").isEmpty()) {
        httpGet.put("path", "/");
      }
      if (httpGet.path("scheme").asText("").isEmpty()) {
        httpGet.put("scheme", "HTTP");
      }
    }
  }

  /**
   * Always for the tag "latest" or an image with neither tag nor digest, IfNotPresent otherwise, as
   * Kubernetes defaults ({@code nginx:latest@sha256:...} is Always: its tag is "latest").
   */
  public static String pullPolicy(String image) {
    int at = image.indexOf('@');
    String name = at < 0 ? image : image.substring(0, at);
    int slash = name.lastIndexOf('/');
    int colon = name.lastIndexOf(':');
    String tag = colon > slash ? name.substring(colon + 1) : (at < 0 ? "latest" : "");
    return tag.equals("latest") ? "Always" : "IfNotPresent";
  }

  /** The pod's QoS class from its containers' requests and limits (cpu and memory). */
  public static String qosClass(JsonNode spec) {
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
}
