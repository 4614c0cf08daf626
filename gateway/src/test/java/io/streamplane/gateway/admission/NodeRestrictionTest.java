package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link NodeRestriction}: a node writes only its own Node, lease and pods' status. */
class NodeRestrictionTest {

  private static final ResourceType NODES = Cluster.REGISTRY.byResource("", "nodes").orElseThrow();
  private static final UserInfo NODE_A =
      UserInfo.newBuilder()
          .setUsername("system:node:a")
          .setGroups(List.of("system:nodes", "system:authenticated"))
          .build();

  private final Cluster cluster =
      new Cluster()
          .with("pods", "{'metadata':{'name':'on-b','namespace':'ns'},'spec':{'nodeName':'b'}}");
  private final NodeRestriction plugin = new NodeRestriction(cluster);

  private static AdmissionRequest request(
      Operation operation,
      ResourceType type,
      String subresource,
      String namespace,
      String name,
      ObjectNode object,
      ObjectNode old) {
    return new AdmissionRequest(
        operation, type, subresource, namespace, name, object, old, NODE_A, false);
  }

  @Test
  void aNodeMayNotModifyAnotherNode() {
    ObjectNode node = Cluster.json("{'metadata':{'name':'b'}}");
    ApiException e =
        catchThrowableOfType(
            () ->
                plugin.validate(request(Operation.UPDATE, NODES, "status", null, "b", node, node)),
            ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo("nodes \"b\" is forbidden: node \"a\" is not allowed to modify node \"b\"");
  }

  @Test
  void aNodeMayNotGiveItselfRestrictedLabelsOrChangeItsTaints() {
    ObjectNode old =
        Cluster.json("{'metadata':{'name':'a','labels':{'kubernetes.io/os':'linux'}}}");
    ObjectNode labelled =
        Cluster.json(
            "{'metadata':{'name':'a','labels':{'kubernetes.io/os':'linux',"
                + "'node-restriction.kubernetes.io/pool':'secure','team':'x'}}}");
    ObjectNode untainted = Cluster.json("{'metadata':{'name':'a'},'spec':{'taints':[]}}");
    ObjectNode tainted =
        Cluster.json(
            "{'metadata':{'name':'a'},'spec':{'taints':[{'key':'k','effect':'NoSchedule'}]}}");

    ApiException labels =
        catchThrowableOfType(
            () -> plugin.validate(request(Operation.UPDATE, NODES, "", null, "a", labelled, old)),
            ApiException.class);
    ApiException taints =
        catchThrowableOfType(
            () ->
                plugin.validate(
                    request(Operation.UPDATE, NODES, "", null, "a", untainted, tainted)),
            ApiException.class);

    assertThat(labels.status().path("message").asText())
        .isEqualTo(
            "nodes \"a\" is forbidden: is not allowed to modify labels:"
                + " node-restriction.kubernetes.io/pool");
    assertThat(taints.status().path("message").asText())
        .isEqualTo("nodes \"a\" is forbidden: node \"a\" is not allowed to modify taints");
  }

  @Test
  void aNodeUpdatesTheStatusOfItsOwnPodsOnly() {
    ObjectNode mine = Cluster.json("{'metadata':{'name':'on-a'},'spec':{'nodeName':'a'}}");
    ObjectNode theirs = Cluster.json("{'metadata':{'name':'on-b'},'spec':{'nodeName':'b'}}");

    assertThatCode(
            () ->
                plugin.validate(
                    request(Operation.UPDATE, Cluster.PODS, "status", "ns", "on-a", mine, mine)))
        .doesNotThrowAnyException();
    ApiException e =
        catchThrowableOfType(
            () ->
                plugin.validate(
                    request(
                        Operation.UPDATE, Cluster.PODS, "status", "ns", "on-b", theirs, theirs)),
            ApiException.class);
    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"on-b\" is forbidden: node \"a\" can only update pod status for pods with"
                + " spec.nodeName set to itself");
  }

  @Test
  void aNodeDeletesOnlyPodsBoundToIt() {
    ApiException e =
        catchThrowableOfType(
            () ->
                plugin.validate(
                    request(Operation.DELETE, Cluster.PODS, "", "ns", "on-b", null, null)),
            ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"on-b\" is forbidden: node \"a\" can only delete pods with spec.nodeName set to"
                + " itself");
  }

  @Test
  void aNodeCreatesOnlyMirrorPods() {
    ApiException e =
        catchThrowableOfType(
            () ->
                plugin.validate(
                    request(
                        Operation.CREATE,
                        Cluster.PODS,
                        "",
                        "ns",
                        "p",
                        Cluster.json("{'metadata':{'name':'p'},'spec':{'nodeName':'a'}}"),
                        null)),
            ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"p\" is forbidden: pod does not have \"kubernetes.io/config.mirror\""
                + " annotation, node \"a\" can only create mirror pods");
  }

  @Test
  void otherUsersPass() {
    ObjectNode node = Cluster.json("{'metadata':{'name':'b'}}");
    assertThatCode(
            () ->
                plugin.validate(
                    new AdmissionRequest(
                        Operation.UPDATE, NODES, "", null, "b", node, node, Cluster.ADMIN, false)))
        .doesNotThrowAnyException();
  }
}
