package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.log.UserInfo;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * kube-apiserver's NodeRestriction plugin (plugin/pkg/admission/noderestriction), for writes by a
 * node (user {@code system:node:NAME} in group {@code system:nodes}); every other user passes:
 *
 * <ul>
 *   <li>its own Node only ({@code node "a" is not allowed to modify node "b"}); on create no labels
 *       under {@code node-restriction.kubernetes.io/} or unknown {@code kubernetes.io}/{@code
 *       k8s.io} labels, on update neither those nor its taints;
 *   <li>pods: only mirror pods bound to itself, owned by its Node, naming no ServiceAccount,
 *       secret, config map or claim; the status of pods bound to itself (not their labels);
 *       deleting pods bound to itself; nothing else;
 *   <li>leases: only its own, in {@code kube-node-lease}.
 * </ul>
 *
 * <p>Messages are Kubernetes' own. A node evicting a pod is checked where the eviction is made
 * ({@code PodEviction}): only pods bound to itself. Limits: CSINodes, ResourceSlices and
 * ServiceAccount tokens are not checked.
 */
public final class NodeRestriction implements ValidatingAdmission {

  static final String NODE_PREFIX = "system:node:";
  private static final String NODES_GROUP = "system:nodes";
  private static final String NODE_LEASE_NAMESPACE = "kube-node-lease";

  private static final Set<String> KUBELET_LABELS =
      Set.of(
          "kubernetes.io/hostname",
          "topology.kubernetes.io/zone",
          "topology.kubernetes.io/region",
          "failure-domain.beta.kubernetes.io/zone",
          "failure-domain.beta.kubernetes.io/region",
          "beta.kubernetes.io/instance-type",
          "node.kubernetes.io/instance-type",
          "beta.kubernetes.io/os",
          "beta.kubernetes.io/arch",
          "kubernetes.io/os",
          "kubernetes.io/arch");

  private static final Set<String> KUBELET_LABEL_NAMESPACES =
      Set.of("kubelet.kubernetes.io", "node.kubernetes.io");

  private final ClusterObjects objects;

  public NodeRestriction(ClusterObjects objects) {
    this.objects = objects;
  }

  /** The node name of a node's identity, or null when the user is not a node. */
  public static String nodeName(UserInfo user) {
    if (user == null
        || user.getUsername() == null
        || !user.getUsername().startsWith(NODE_PREFIX)
        || user.getGroups() == null
        || !user.getGroups().contains(NODES_GROUP)) {
      return null;
    }
    String name = user.getUsername().substring(NODE_PREFIX.length());
    return name.isEmpty() ? null : name;
  }

  @Override
  public void validate(AdmissionRequest request) {
    String node = nodeName(request.user());
    if (node == null) {
      return;
    }
    String group = request.type().group();
    String plural = request.type().plural();
    if (group.isEmpty() && plural.equals("nodes")) {
      admitNode(node, request);
    } else if (group.isEmpty() && plural.equals("pods")) {
      if (request.subresource().equals("status")) {
        admitPodStatus(node, request);
      } else if (request.subresource().isEmpty()) {
        admitPod(node, request);
      }
    } else if (group.equals("coordination.k8s.io") && plural.equals("leases")) {
      if (!NODE_LEASE_NAMESPACE.equals(request.namespace())) {
        throw forbidden(
            request, "can only access leases in the \"" + NODE_LEASE_NAMESPACE + "\" namespace");
      }
      if (!node.equals(request.name())) {
        throw forbidden(
            request, "can only access node lease with the same name as the requesting node");
      }
    }
  }

  private void admitNode(String node, AdmissionRequest request) {
    if (!node.equals(request.name())) {
      throw forbidden(
          request,
          "node \"" + node + "\" is not allowed to modify node \"" + request.name() + "\"");
    }
    if (request.operation() == Operation.CREATE) {
      Set<String> labels = forbiddenLabels(modifiedLabels(labels(request.object()), null));
      if (!labels.isEmpty()) {
        throw forbidden(
            request,
            "node \""
                + node
                + "\" is not allowed to set the following labels: "
                + String.join(", ", labels));
      }
    } else if (request.operation() == Operation.UPDATE && request.oldObject() != null) {
      if (!Objects.equals(
          taints(request.object().path("spec").path("taints")),
          taints(request.oldObject().path("spec").path("taints")))) {
        throw forbidden(request, "node \"" + node + "\" is not allowed to modify taints");
      }
      Set<String> labels =
          forbiddenLabels(modifiedLabels(labels(request.object()), labels(request.oldObject())));
      if (!labels.isEmpty()) {
        throw forbidden(request, "is not allowed to modify labels: " + String.join(", ", labels));
      }
    }
  }

  private void admitPod(String node, AdmissionRequest request) {
    switch (request.operation()) {
      case CREATE -> admitPodCreate(node, request);
      case DELETE -> {
        JsonNode existing =
            request.oldObject() != null
                ? request.oldObject()
                : objects.getFresh("", "pods", request.namespace(), request.name()).orElse(null);
        if (existing == null) {
          throw new ApiException(Statuses.notFound("", "pods", request.name()));
        }
        if (!node.equals(existing.path("spec").path("nodeName").asText(""))) {
          throw forbidden(
              request,
              "node \"" + node + "\" can only delete pods with spec.nodeName set to itself");
        }
      }
      default ->
          throw forbidden(
              request,
              "unexpected operation \""
                  + request.operation()
                  + "\", node \""
                  + node
                  + "\" can only create and delete mirror pods");
    }
  }

  private void admitPodCreate(String node, AdmissionRequest request) {
    JsonNode pod = request.object();
    if (!pod.path("metadata")
        .path("annotations")
        .has(ServiceAccountAdmission.MIRROR_POD_ANNOTATION)) {
      throw forbidden(
          request,
          "pod does not have \""
              + ServiceAccountAdmission.MIRROR_POD_ANNOTATION
              + "\" annotation, node \""
              + node
              + "\" can only create mirror pods");
    }
    JsonNode spec = pod.path("spec");
    if (!node.equals(spec.path("nodeName").asText(""))) {
      throw forbidden(
          request, "node \"" + node + "\" can only create pods with spec.nodeName set to itself");
    }
    JsonNode owners = pod.path("metadata").path("ownerReferences");
    if (owners.size() > 1) {
      throw forbidden(
          request,
          "node \"" + node + "\" can only create pods with a single owner reference set to itself");
    }
    if (owners.size() == 0) {
      throw forbidden(
          request,
          "node \"" + node + "\" can only create pods with an owner reference set to itself");
    }
    JsonNode owner = owners.get(0);
    if (!owner.path("apiVersion").asText("").equals("v1")
        || !owner.path("kind").asText("").equals("Node")
        || !owner.path("name").asText("").equals(node)) {
      throw forbidden(
          request,
          "node \"" + node + "\" can only create pods with an owner reference set to itself");
    }
    if (!spec.path("serviceAccountName").asText("").isEmpty()) {
      throw forbidden(
          request, "node \"" + node + "\" can not create pods that reference a service account");
    }
    if (references(spec, "secret")) {
      throw forbidden(request, "node \"" + node + "\" can not create pods that reference secrets");
    }
    if (references(spec, "configMap")) {
      throw forbidden(
          request, "node \"" + node + "\" can not create pods that reference configmaps");
    }
    for (JsonNode volume : spec.path("volumes")) {
      if (volume.has("persistentVolumeClaim")) {
        throw forbidden(
            request,
            "node \"" + node + "\" can not create pods that reference persistentvolumeclaims");
      }
    }
  }

  private static void admitPodStatus(String node, AdmissionRequest request) {
    if (request.operation() != Operation.UPDATE || request.oldObject() == null) {
      throw forbidden(request, "unexpected operation \"" + request.operation() + "\"");
    }
    if (!node.equals(request.oldObject().path("spec").path("nodeName").asText(""))) {
      throw forbidden(
          request,
          "node \""
              + node
              + "\" can only update pod status for pods with spec.nodeName set to itself");
    }
    if (!labels(request.object()).equals(labels(request.oldObject()))) {
      throw forbidden(request, "node \"" + node + "\" cannot update labels through pod status");
    }
  }

  /** Whether the pod spec names an object of this kind ("secret", "configMap") anywhere. */
  private static boolean references(JsonNode spec, String kind) {
    String keyRef = kind + "KeyRef";
    String ref = kind + "Ref";
    for (JsonNode volume : spec.path("volumes")) {
      if (volume.has(kind)) {
        return true;
      }
      for (JsonNode source : volume.path("projected").path("sources")) {
        if (source.has(kind)) {
          return true;
        }
      }
    }
    if (kind.equals("secret") && spec.path("imagePullSecrets").size() > 0) {
      return true;
    }
    for (String list : new String[] {"initContainers", "containers", "ephemeralContainers"}) {
      for (JsonNode container : spec.path(list)) {
        for (JsonNode env : container.path("env")) {
          if (env.path("valueFrom").has(keyRef)) {
            return true;
          }
        }
        for (JsonNode from : container.path("envFrom")) {
          if (from.has(ref)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static Map<String, String> labels(JsonNode object) {
    java.util.TreeMap<String, String> labels = new java.util.TreeMap<>();
    if (object != null) {
      for (Iterator<Map.Entry<String, JsonNode>> it =
              object.path("metadata").path("labels").fields();
          it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        labels.put(e.getKey(), e.getValue().asText(""));
      }
    }
    return labels;
  }

  private static String taints(JsonNode taints) {
    return taints.isArray() && !taints.isEmpty() ? taints.toString() : "";
  }

  private static Set<String> modifiedLabels(Map<String, String> now, Map<String, String> before) {
    Set<String> modified = new TreeSet<>();
    Map<String, String> old = before == null ? Map.of() : before;
    now.forEach(
        (k, v) -> {
          if (!v.equals(old.get(k))) {
            modified.add(k);
          }
        });
    old.keySet()
        .forEach(
            k -> {
              if (!now.containsKey(k)) {
                modified.add(k);
              }
            });
    return modified;
  }

  private static Set<String> forbiddenLabels(Set<String> modified) {
    Set<String> forbidden = new TreeSet<>();
    for (String label : modified) {
      String namespace = labelNamespace(label);
      if (namespace.equals("node-restriction.kubernetes.io")
          || namespace.endsWith(".node-restriction.kubernetes.io")) {
        forbidden.add(label);
      }
      if (kubernetesLabel(namespace) && !kubeletLabel(label, namespace)) {
        forbidden.add(label);
      }
    }
    return forbidden;
  }

  private static String labelNamespace(String label) {
    int slash = label.indexOf('/');
    return slash < 0 ? "" : label.substring(0, slash);
  }

  private static boolean kubernetesLabel(String namespace) {
    return namespace.equals("kubernetes.io")
        || namespace.endsWith(".kubernetes.io")
        || namespace.equals("k8s.io")
        || namespace.endsWith(".k8s.io");
  }

  private static boolean kubeletLabel(String label, String namespace) {
    if (KUBELET_LABELS.contains(label)) {
      return true;
    }
    for (String allowed : KUBELET_LABEL_NAMESPACES) {
      if (namespace.equals(allowed) || namespace.endsWith("." + allowed)) {
        return true;
      }
    }
    return false;
  }

  private static ApiException forbidden(AdmissionRequest request, String message) {
    return new ApiException(
        Statuses.forbidden(
            request.type().group(), request.type().plural(), request.name(), message));
  }
}
