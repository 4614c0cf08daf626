package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.orNone;
import static io.streamplane.kinds.printers.Cells.wide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.selection.Fields;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * core/v1 Node: {@code SetDefaults_NodeStatus} (allocatable is the capacity unless told otherwise);
 * selectable by {@code spec.unschedulable}; kubectl's node columns.
 */
public final class NodeStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    JsonNode status = object.path("status");
    if (status instanceof ObjectNode nodeStatus
        && nodeStatus.path("capacity").isObject()
        && !nodeStatus.path("allocatable").isObject()) {
      nodeStatus.set("allocatable", nodeStatus.get("capacity").deepCopy());
    }
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.clusterObjectMeta();
    fields.put("spec.unschedulable", Fields.bool("spec.unschedulable"));
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
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
            cells.add(orNone(String.join(",", roles(o))));
            cells.add(age(o, now));
            cells.add(info.path("kubeletVersion").asText(""));
            cells.add(address(o, "InternalIP"));
            cells.add(address(o, "ExternalIP"));
            cells.add(unknownIfEmpty(info.path("osImage").asText("")));
            cells.add(unknownIfEmpty(info.path("kernelVersion").asText("")));
            cells.add(unknownIfEmpty(info.path("containerRuntimeVersion").asText("")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }

  private static String unknownIfEmpty(String s) {
    return s.isEmpty() ? "<unknown>" : s;
  }

  /** {@code findNodeRoles}: node-role.kubernetes.io/X labels and the legacy kubernetes.io/role. */
  static TreeSet<String> roles(JsonNode node) {
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

  private static String address(JsonNode node, String type) {
    for (JsonNode a : node.path("status").path("addresses")) {
      if (a.path("type").asText().equals(type)) {
        return a.path("address").asText("");
      }
    }
    return "<none>";
  }
}
