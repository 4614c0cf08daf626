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
 * k8s.io/kubernetes/pkg/apis/{core,apps,rbac}/v1, the declarative {@code +default} markers, and the
 * registry strategies' PrepareForCreate), applied to the decoded JSON before it is stored, so that
 * {@code kubectl get -o yaml} shows what a real cluster shows:
 *
 * <ul>
 *   <li>pod specs (in pods and in templates): restartPolicy, dnsPolicy, schedulerName,
 *       terminationGracePeriodSeconds, an empty securityContext; containers' image pull policy,
 *       termination message path and policy, port protocols, probe timings, an HTTP probe's path
 *       and scheme, an env var's {@code fieldRef.apiVersion}; volumes: a volume with no source as
 *       {@code emptyDir: {}}, the file modes of secret, configMap, downwardAPI and projected
 *       volumes, a projected token's expiry, a hostPath's type;
 *   <li>pods alone (SetDefaults_Pod and the Priority admission plugin): requests defaulted to
 *       limits, enableServiceLinks, host ports on the host network, priority 0 and preemption
 *       policy when no priority class is named, and on create the phase and QoS class;
 *   <li>Deployment strategy and limits, ReplicaSet replicas; Namespace finalizers, phase and its
 *       {@code kubernetes.io/metadata.name} label; Node allocatable from capacity; a LimitRange's
 *       container defaults; RBAC subjects' and role references' API groups; Secret type and
 *       stringData.
 * </ul>
 *
 * <p>Changes the given node in place: it is the request's own copy. Applied on every write, and
 * idempotent, so defaulting an object already defaulted changes nothing.
 */
public final class Defaults {

  private Defaults() {}

  public static void apply(ResourceType type, ObjectNode object, boolean create) {
    object.put("apiVersion", type.groupVersion());
    object.put("kind", type.kind());
    switch (type.kind()) {
      case "Pod" -> {
        ObjectNode spec = object.with("spec");
        podSpec(spec);
        podOnly(spec);
        if (create && !object.with("status").has("phase")) {
          object.with("status").put("phase", "Pending");
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
        // SetDefaults_Namespace: every named namespace carries its name as a label.
        if (object.path("metadata").path("name").isTextual()) {
          object
              .with("metadata")
              .with("labels")
              .put("kubernetes.io/metadata.name", object.path("metadata").path("name").asText());
        }
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
      case "Node" -> {
        // SetDefaults_NodeStatus: what can be allocated is the capacity unless told otherwise.
        JsonNode status = object.path("status");
        if (status instanceof ObjectNode nodeStatus
            && nodeStatus.path("capacity").isObject()
            && !nodeStatus.path("allocatable").isObject()) {
          nodeStatus.set("allocatable", nodeStatus.get("capacity").deepCopy());
        }
      }
      case "LimitRange" -> {
        for (JsonNode limit : object.path("spec").path("limits")) {
          if (limit instanceof ObjectNode item) {
            limitRangeItem(item);
          }
        }
      }
      case "RoleBinding", "ClusterRoleBinding" -> {
        if (object.path("roleRef") instanceof ObjectNode roleRef) {
          putIfAbsent(roleRef, "apiGroup", RBAC_GROUP);
        }
        for (JsonNode subject : object.path("subjects")) {
          if (subject instanceof ObjectNode s && s.path("apiGroup").asText("").isEmpty()) {
            // SetDefaults_Subject: users and groups are RBAC's, service accounts the core group's.
            switch (s.path("kind").asText("")) {
              case "User", "Group" -> s.put("apiGroup", RBAC_GROUP);
              case "ServiceAccount" -> s.put("apiGroup", "");
              default -> {}
            }
          }
        }
      }
      default -> {}
    }
  }

  /**
   * What the registry's PrepareForCreate works out after the mutating admission plugins, which may
   * have changed what it depends on: a pod's QoS class from its (LimitRanger-defaulted) resources.
   */
  public static void prepareForCreate(ResourceType type, ObjectNode object) {
    if (type.kind().equals("Pod")) {
      object.with("status").put("qosClass", qosClass(object.path("spec")));
    }
  }

  private static final String RBAC_GROUP = "rbac.authorization.k8s.io";

  /** The defaulting Kubernetes applies to a Pod but not to a pod template (SetDefaults_Pod). */
  private static void podOnly(ObjectNode spec) {
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
    // The Priority admission plugin: no class named (and no global default class) is priority 0.
    if (spec.path("priorityClassName").asText("").isEmpty()) {
      putIfAbsent(spec, "priority", 0);
    }
    putIfAbsent(spec, "preemptionPolicy", "PreemptLowerPriority");
  }

  /**
   * SetDefaults_LimitRangeItem: for containers, the default limit is the max, the default request
   * the default limit, else the min.
   */
  private static void limitRangeItem(ObjectNode item) {
    if (!item.path("type").asText("").equals("Container")) {
      return;
    }
    ObjectNode defaults = item.with("default");
    ObjectNode requests = item.with("defaultRequest");
    item.path("max").fields().forEachRemaining(e -> defaults.putIfAbsent(e.getKey(), e.getValue()));
    defaults.fields().forEachRemaining(e -> requests.putIfAbsent(e.getKey(), e.getValue()));
    item.path("min").fields().forEachRemaining(e -> requests.putIfAbsent(e.getKey(), e.getValue()));
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

  /** Go's zero value counts as unset for these int32 fields (no pointer): 0 gets the default. */
  private static void putIfPositiveAbsent(ObjectNode node, String field, int value) {
    if (node.path(field).asInt(0) == 0) {
      node.put(field, value);
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
