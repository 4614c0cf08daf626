package io.streamplane.gateway.api.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.gateway.api.Selectors;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The per-kind row printers of kube-apiserver ({@code pkg/printers/internalversion}), rewritten
 * over Kubernetes JSON: the same columns, priorities, cell types and cell text.
 *
 * <p>Contract: every printer returns the wide row (all columns, priority 1 included), as the API
 * server does; kubectl hides priority-1 columns unless {@code -o wide}. Missing fields print as the
 * Go zero value would. Limits: kinds without a printer use the API server's default table (Name,
 * Created At).
 */
final class Printers {

  private Printers() {}

  record Column(String name, String type, String format, String description, int priority) {}

  /** One printed row: cells, and the row conditions (pods mark Completed rows). */
  record Row(List<Object> cells, List<Map<String, String>> conditions) {}

  interface Printer {
    List<Column> columns();

    Row row(JsonNode object, Instant now);
  }

  static final String NAME_DESCRIPTION =
      "Name must be unique within a namespace. Is required when creating resources, although some"
          + " resources may allow a client to request the generation of an appropriate name"
          + " automatically. Name is primarily intended for creation idempotence and configuration"
          + " definition. Cannot be updated. More info:"
          + " https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  static final String AGE_DESCRIPTION =
      "CreationTimestamp is a timestamp representing the server time when this object was"
          + " created. It is not guaranteed to be set in happens-before order across separate"
          + " operations. Clients may not set this value. It is represented in RFC3339 form and is"
          + " in UTC.\n\n"
          + "Populated by the system. Read-only. Null for lists. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

  static Column name() {
    return new Column("Name", "string", "name", NAME_DESCRIPTION, 0);
  }

  static Column age() {
    return new Column("Age", "string", "", AGE_DESCRIPTION, 0);
  }

  static Column col(String name, String type, String description) {
    return new Column(name, type, "", description, 0);
  }

  static Column wide(String name, String description) {
    return new Column(name, "string", "", description, 1);
  }

  static Printer printer(
      List<Column> columns, java.util.function.BiFunction<JsonNode, Instant, List<Object>> cells) {
    return new Printer() {
      @Override
      public List<Column> columns() {
        return columns;
      }

      @Override
      public Row row(JsonNode object, Instant now) {
        return new Row(cells.apply(object, now), List.of());
      }
    };
  }

  // ------------------------------------------------------------------ helpers

  static String name(JsonNode o) {
    return o.path("metadata").path("name").asText("");
  }

  static String age(JsonNode o, Instant now) {
    return HumanDuration.since(o.path("metadata").path("creationTimestamp"), now);
  }

  static String text(JsonNode n) {
    return n.isValueNode() ? n.asText() : "";
  }

  static long count(JsonNode n) {
    return n.isObject() || n.isArray() ? n.size() : 0;
  }

  static String orNone(String s) {
    return s.isEmpty() ? "<none>" : s;
  }

  /** {@code layoutContainerCells}: names and images joined with commas. */
  static List<Object> containerCells(JsonNode podSpec) {
    List<String> names = new ArrayList<>();
    List<String> images = new ArrayList<>();
    for (JsonNode c : podSpec.path("containers")) {
      names.add(c.path("name").asText(""));
      images.add(c.path("image").asText(""));
    }
    return List.of(String.join(",", names), String.join(",", images));
  }

  static String selector(JsonNode selector) {
    try {
      return Selectors.fromLabelSelector(selector).toString();
    } catch (RuntimeException e) {
      return "<invalid>";
    }
  }

  // ------------------------------------------------------------------ printers

  static final Printer DEPLOYMENT =
      printer(
          List.of(
              name(),
              col("Ready", "string", "Number of the pod with ready state"),
              col(
                  "Up-to-date",
                  "string",
                  "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
              col(
                  "Available",
                  "string",
                  "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide(
                  "Selector",
                  "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.")),
          (o, now) -> {
            JsonNode status = o.path("status");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(
                status.path("readyReplicas").asLong(0)
                    + "/"
                    + o.path("spec").path("replicas").asLong(1));
            cells.add(status.path("updatedReplicas").asLong(0));
            cells.add(status.path("availableReplicas").asLong(0));
            cells.add(age(o, now));
            cells.addAll(containerCells(o.path("spec").path("template").path("spec")));
            cells.add(selector(o.path("spec").path("selector")));
            return cells;
          });

  static final Printer REPLICA_SET =
      printer(
          List.of(
              name(),
              col("Desired", "integer", "Replicas is the number of desired pods."),
              col(
                  "Current",
                  "integer",
                  "Replicas is the most recently observed number of replicas."),
              col("Ready", "integer", "The number of ready replicas for this replica set."),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide("Selector", "Label selector for pods.")),
          (o, now) -> {
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(o.path("spec").path("replicas").asLong(1));
            cells.add(o.path("status").path("replicas").asLong(0));
            cells.add(o.path("status").path("readyReplicas").asLong(0));
            cells.add(age(o, now));
            cells.addAll(containerCells(o.path("spec").path("template").path("spec")));
            cells.add(selector(o.path("spec").path("selector")));
            return cells;
          });

  static final Printer NODE =
      printer(
          List.of(
              name(),
              col("Status", "string", "The status of the node"),
              col("Roles", "string", "The roles of the node"),
              age(),
              col("Version", "string", "Kubelet Version reported by the node."),
              wide("Internal-IP", "List of addresses reachable to the node."),
              wide("External-IP", "List of addresses reachable to the node."),
              wide(
                  "OS-Image",
                  "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
              wide(
                  "Kernel-Version",
                  "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
              wide(
                  "Container-Runtime",
                  "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).")),
          (o, now) -> {
            List<String> status = new ArrayList<>();
            // Only the Ready condition is printed; a node without one is Unknown.
            for (JsonNode c : o.path("status").path("conditions")) {
              if (c.path("type").asText().equals("Ready")) {
                status.clear();
                status.add(c.path("status").asText().equals("True") ? "Ready" : "NotReady");
              }
            }
            if (status.isEmpty()) {
              status.add("Unknown");
            }
            if (o.path("spec").path("unschedulable").asBoolean(false)) {
              status.add("SchedulingDisabled");
            }
            JsonNode info = o.path("status").path("nodeInfo");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(String.join(",", status));
            cells.add(orNone(String.join(",", nodeRoles(o))));
            cells.add(age(o, now));
            cells.add(info.path("kubeletVersion").asText(""));
            cells.add(nodeAddress(o, "InternalIP"));
            cells.add(nodeAddress(o, "ExternalIP"));
            cells.add(unknownIfEmpty(info.path("osImage").asText("")));
            cells.add(unknownIfEmpty(info.path("kernelVersion").asText("")));
            cells.add(unknownIfEmpty(info.path("containerRuntimeVersion").asText("")));
            return cells;
          });

  private static String unknownIfEmpty(String s) {
    return s.isEmpty() ? "<unknown>" : s;
  }

  /** {@code findNodeRoles}: node-role.kubernetes.io/X labels and the legacy kubernetes.io/role. */
  static TreeSet<String> nodeRoles(JsonNode node) {
    TreeSet<String> roles = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.path("metadata").path("labels").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> label = it.next();
      if (label.getKey().startsWith("node-role.kubernetes.io/")) {
        String role = label.getKey().substring("node-role.kubernetes.io/".length());
        if (!role.isEmpty()) {
          roles.add(role);
        }
      } else if (label.getKey().equals("kubernetes.io/role")) {
        String role = label.getValue().asText("");
        if (!role.isEmpty()) {
          roles.add(role);
        }
      }
    }
    return roles;
  }

  private static String nodeAddress(JsonNode node, String type) {
    for (JsonNode a : node.path("status").path("addresses")) {
      if (a.path("type").asText().equals(type)) {
        return a.path("address").asText("");
      }
    }
    return "<none>";
  }

  static final Printer NAMESPACE =
      printer(
          List.of(name(), col("Status", "string", "The status of the namespace"), age()),
          (o, now) -> List.of(name(o), o.path("status").path("phase").asText(""), age(o, now)));

  static final Printer EVENT =
      printer(
          List.of(
              col(
                  "Last Seen",
                  "string",
                  "The time at which the most recent occurrence of this event was recorded."),
              col(
                  "Type",
                  "string",
                  "Type of this event (Normal, Warning), new types could be added in the future"),
              col(
                  "Reason",
                  "string",
                  "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
              col("Object", "string", "The object that this event is about."),
              wide(
                  "Subobject",
                  "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]."),
              wide(
                  "Source",
                  "The component reporting this event. Should be a short machine understandable string."),
              col(
                  "Message",
                  "string",
                  "A human-readable description of the status of this operation."),
              wide(
                  "First Seen",
                  "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
              wide("Count", "The number of times this event has occurred."),
              new Column("Name", "string", "name", NAME_DESCRIPTION, 1)),
          (o, now) -> {
            String first = HumanDuration.since(o.path("firstTimestamp"), now);
            if (HumanDuration.parse(o.path("firstTimestamp")).isEmpty()) {
              first = HumanDuration.since(o.path("eventTime"), now);
            }
            String last = HumanDuration.since(o.path("lastTimestamp"), now);
            if (HumanDuration.parse(o.path("lastTimestamp")).isEmpty()) {
              last = first;
            }
            long count = o.path("count").asLong(0);
            JsonNode series = o.path("series");
            if (series.isObject()) {
              last = HumanDuration.since(series.path("lastObservedTime"), now);
              count = series.path("count").asLong(0);
            } else if (count == 0) {
              // Events written through events.k8s.io carry no count: they happened once.
              count = 1;
            }
            JsonNode involved = o.path("involvedObject");
            String kind = involved.path("kind").asText("").toLowerCase(java.util.Locale.ROOT);
            String involvedName = involved.path("name").asText("");
            String target = involvedName.isEmpty() ? kind : kind + "/" + involvedName;
            String component = o.path("source").path("component").asText("");
            if (component.isEmpty()) {
              component = o.path("reportingComponent").asText("");
            }
            String instance = o.path("source").path("host").asText("");
            if (instance.isEmpty()) {
              instance = o.path("reportingInstance").asText("");
            }
            List<Object> cells = new ArrayList<>();
            cells.add(last);
            cells.add(o.path("type").asText(""));
            cells.add(o.path("reason").asText(""));
            cells.add(target);
            cells.add(involved.path("fieldPath").asText(""));
            cells.add(instance.isEmpty() ? component : component + ", " + instance);
            cells.add(o.path("message").asText("").strip());
            cells.add(first);
            cells.add(count);
            cells.add(name(o));
            return cells;
          });

  static final Printer LEASE =
      printer(
          List.of(
              name(),
              col(
                  "Holder",
                  "string",
                  "holderIdentity contains the identity of the holder of a current lease."),
              age()),
          (o, now) ->
              List.of(name(o), o.path("spec").path("holderIdentity").asText(""), age(o, now)));

  static final Printer CONFIG_MAP =
      printer(
          List.of(name(), col("Data", "string", "Data contains the configuration data."), age()),
          (o, now) ->
              List.of(name(o), count(o.path("data")) + count(o.path("binaryData")), age(o, now)));

  static final Printer SECRET =
      printer(
          List.of(
              name(),
              col("Type", "string", "Used to facilitate programmatic handling of secret data."),
              col("Data", "string", "Data contains the secret data."),
              age()),
          (o, now) ->
              List.of(name(o), o.path("type").asText(""), count(o.path("data")), age(o, now)));

  static final Printer SERVICE_ACCOUNT =
      printer(
          List.of(
              name(),
              col(
                  "Secrets",
                  "string",
                  "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."),
              age()),
          (o, now) -> List.of(name(o), count(o.path("secrets")), age(o, now)));

  static final Printer CREATED_AT =
      printer(
          List.of(name(), new Column("Created At", "date", "", AGE_DESCRIPTION, 0)),
          (o, now) -> List.of(name(o), createdAt(o)));

  static String createdAt(JsonNode o) {
    return HumanDuration.parse(o.path("metadata").path("creationTimestamp"))
        .map(t -> DateTimeFormatter.ISO_INSTANT.format(t.atOffset(ZoneOffset.UTC).withNano(0)))
        .orElse("");
  }

  static final Printer ROLE_BINDING =
      printer(
          List.of(
              name(),
              col(
                  "Role",
                  "string",
                  "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace."),
              age(),
              wide("Users", "Users in the roleBinding"),
              wide("Groups", "Groups in the roleBinding"),
              wide("ServiceAccounts", "ServiceAccounts in the roleBinding")),
          (o, now) -> {
            List<String> users = new ArrayList<>();
            List<String> groups = new ArrayList<>();
            List<String> sas = new ArrayList<>();
            for (JsonNode s : o.path("subjects")) {
              switch (s.path("kind").asText("")) {
                case "User" -> users.add(s.path("name").asText(""));
                case "Group" -> groups.add(s.path("name").asText(""));
                case "ServiceAccount" ->
                    sas.add(s.path("namespace").asText("") + ":" + s.path("name").asText(""));
                default -> {}
              }
            }
            JsonNode ref = o.path("roleRef");
            return List.of(
                name(o),
                ref.path("kind").asText("") + "/" + ref.path("name").asText(""),
                age(o, now),
                String.join(", ", users),
                String.join(", ", groups),
                String.join(", ", sas));
          });

  static final Printer RESOURCE_QUOTA =
      printer(
          List.of(
              name(),
              age(),
              col(
                  "Request",
                  "string",
                  "Request represents a minimum amount of cpu/memory that a container may consume."),
              col(
                  "Limit",
                  "string",
                  "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.")),
          (o, now) -> {
            JsonNode hard = o.path("status").path("hard");
            JsonNode used = o.path("status").path("used");
            TreeSet<String> resources = new TreeSet<>();
            hard.fieldNames().forEachRemaining(resources::add);
            List<String> request = new ArrayList<>();
            List<String> limit = new ArrayList<>();
            for (String r : resources) {
              String entry = r + ": " + used.path(r).asText("0") + "/" + hard.path(r).asText("0");
              (r.startsWith("limits.") ? limit : request).add(entry);
            }
            return List.of(
                name(o), age(o, now), String.join(", ", request), String.join(", ", limit));
          });

  static final Printer POD =
      new Printer() {
        @Override
        public List<Column> columns() {
          return List.of(
              name(),
              col(
                  "Ready",
                  "string",
                  "The aggregate readiness state of this pod for accepting traffic."),
              col("Status", "string", "The aggregate status of the containers in this pod."),
              col(
                  "Restarts",
                  "string",
                  "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
              age(),
              wide(
                  "IP",
                  "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
              wide("Node", "NodeName indicates in which node this pod is scheduled."),
              wide(
                  "Nominated Node",
                  "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods."),
              wide(
                  "Readiness Gates",
                  "If specified, all readiness gates will be evaluated for pod readiness."));
        }

        @Override
        public Row row(JsonNode pod, Instant now) {
          return PodRows.row(pod, now);
        }
      };

  static Printer forKind(String qualifiedKind) {
    return switch (qualifiedKind) {
      case "Pod" -> POD;
      case "Deployment.apps" -> DEPLOYMENT;
      case "ReplicaSet.apps" -> REPLICA_SET;
      case "Node" -> NODE;
      case "Namespace" -> NAMESPACE;
      case "Event" -> EVENT;
      case "Lease.coordination.k8s.io" -> LEASE;
      case "ConfigMap" -> CONFIG_MAP;
      case "Secret" -> SECRET;
      case "ServiceAccount" -> SERVICE_ACCOUNT;
      case "RoleBinding.rbac.authorization.k8s.io",
          "ClusterRoleBinding.rbac.authorization.k8s.io" ->
          ROLE_BINDING;
      case "ResourceQuota" -> RESOURCE_QUOTA;
      // Role, ClusterRole and LimitRange print Name and Created At in Kubernetes too, which is
      // also the API server's default table for kinds without a printer.
      default -> CREATED_AT;
    };
  }
}
