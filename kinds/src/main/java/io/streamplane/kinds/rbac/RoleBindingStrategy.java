package io.streamplane.kinds.rbac;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding: path-segment names; {@code
 * SetDefaults_Subject} and the role reference's API group; kubectl's binding columns.
 */
public final class RoleBindingStrategy implements KindStrategy {

  private static final String RBAC_GROUP = "rbac.authorization.k8s.io";

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    if (object.path("roleRef") instanceof ObjectNode roleRef) {
      putIfAbsent(roleRef, "apiGroup", RBAC_GROUP);
    }
    for (JsonNode subject : object.path("subjects")) {
      if (subject instanceof ObjectNode s && s.path("apiGroup").asText("").isEmpty()) {
        // Users and groups are RBAC's, service accounts the core group's.
        switch (s.path("kind").asText("")) {
          case "User", "Group" -> s.put("apiGroup", RBAC_GROUP);
          case "ServiceAccount" -> s.put("apiGroup", "");
          default -> {}
        }
      }
    }
  }

  @Override
  public Names.Rule nameRule() {
    return Names.Rule.PATH_SEGMENT;
  }

  private static final Printer PRINTER =
      Printer.of(
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
            List<String> serviceAccounts = new ArrayList<>();
            for (JsonNode s : o.path("subjects")) {
              switch (s.path("kind").asText("")) {
                case "User" -> users.add(s.path("name").asText(""));
                case "Group" -> groups.add(s.path("name").asText(""));
                case "ServiceAccount" ->
                    serviceAccounts.add(
                        s.path("namespace").asText("") + ":" + s.path("name").asText(""));
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
                String.join(", ", serviceAccounts));
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
