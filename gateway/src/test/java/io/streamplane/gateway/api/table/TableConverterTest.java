package io.streamplane.gateway.api.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.table.TableConverter.IncludeObject;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableConverterTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2025-01-01T12:00:00Z");
  private static final String CREATED = "'creationTimestamp':'2025-01-01T11:55:00Z'";

  private final ResourceRegistry registry = ResourceRegistry.kubernetes();
  private final TableConverter converter = new TableConverter(Clock.fixed(NOW, ZoneOffset.UTC));

  private static ObjectNode json(String s) {
    try {
      return (ObjectNode) MAPPER.readTree(s.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalArgumentException(s, e);
    }
  }

  private ResourceType type(String group, String plural) {
    return registry.byResource(group, plural).orElseThrow();
  }

  private List<String> cells(String group, String plural, ObjectNode object) {
    JsonNode row =
        converter.forObject(type(group, plural), object, IncludeObject.NONE).path("rows").get(0);
    List<String> cells = new ArrayList<>();
    row.path("cells").forEach(c -> cells.add(c.asText()));
    return cells;
  }

  private String podStatus(String spec, String status) {
    return podStatus(spec, status, "");
  }

  private String podStatus(String spec, String status, String extraMeta) {
    ObjectNode pod =
        json(
            "{'metadata':{'name':'p',"
                + CREATED
                + extraMeta
                + "},'spec':"
                + spec
                + ",'status':"
                + status
                + "}");
    return cells("", "pods", pod).get(2);
  }

  private static final String ONE = "{'containers':[{'name':'a'}]}";

  @Test
  void podStatusFollowsKubectlRules() {
    assertThat(podStatus(ONE, "{'phase':'Pending'}")).isEqualTo("Pending");
    assertThat(
            podStatus(
                ONE,
                "{'phase':'Running','containerStatuses':[{'name':'a','ready':true,'state':{'running':{}}}]}"))
        .isEqualTo("Running");
    assertThat(
            podStatus(
                ONE,
                "{'phase':'Running','containerStatuses':[{'name':'a','restartCount':3,'state':{'waiting':{'reason':'CrashLoopBackOff'}}}]}"))
        .isEqualTo("CrashLoopBackOff");
    assertThat(
            podStatus(
                ONE,
                "{'phase':'Pending','containerStatuses':[{'name':'a','state':{'waiting':{'reason':'ContainerCreating'}}}]}"))
        .isEqualTo("ContainerCreating");
    assertThat(
            podStatus(
                ONE,
                "{'phase':'Succeeded','containerStatuses':[{'name':'a','state':{'terminated':{'exitCode':0,'reason':'Completed'}}}]}"))
        .isEqualTo("Completed");
    assertThat(
            podStatus(
                ONE,
                "{'phase':'Failed','containerStatuses':[{'name':'a','state':{'terminated':{'exitCode':2}}}]}"))
        .isEqualTo("ExitCode:2");
    assertThat(podStatus(ONE, "{'phase':'Failed','reason':'Evicted'}")).isEqualTo("Evicted");
  }

  @Test
  void podInitContainersShowProgressAndFailures() {
    String spec = "{'initContainers':[{'name':'i1'},{'name':'i2'}],'containers':[{'name':'a'}]}";
    assertThat(
            podStatus(
                spec,
                "{'phase':'Pending','initContainerStatuses':[{'name':'i1','state':{'running':{}}},{'name':'i2','state':{'waiting':{'reason':'PodInitializing'}}}]}"))
        .isEqualTo("Init:0/2");
    assertThat(
            podStatus(
                spec,
                "{'phase':'Pending','initContainerStatuses':[{'name':'i1','state':{'terminated':{'exitCode':0}}},{'name':'i2','state':{'running':{}}}]}"))
        .isEqualTo("Init:1/2");
    assertThat(
            podStatus(
                spec,
                "{'phase':'Pending','initContainerStatuses':[{'name':'i1','state':{'waiting':{'reason':'CrashLoopBackOff'}}}]}"))
        .isEqualTo("Init:CrashLoopBackOff");
    assertThat(
            podStatus(
                spec,
                "{'phase':'Pending','initContainerStatuses':[{'name':'i1','state':{'terminated':{'exitCode':1,'reason':'Error'}}}]}"))
        .isEqualTo("Init:Error");
  }

  @Test
  void podBeingDeletedIsTerminatingUnlessFinished() {
    String running =
        "{'phase':'Running','containerStatuses':[{'name':'a','ready':true,'state':{'running':{}}}]}";
    String deleting = ",'deletionTimestamp':'2025-01-01T11:59:00Z'";
    assertThat(podStatus(ONE, running, deleting)).isEqualTo("Terminating");
    assertThat(podStatus(ONE, "{'phase':'Succeeded'}", deleting)).isEqualTo("Succeeded");
    assertThat(podStatus(ONE, "{'phase':'Running','reason':'NodeLost'}", deleting))
        .isEqualTo("Unknown");
  }

  @Test
  void completedContainerBesideRunningOneIsRunningOrNotReady() {
    String spec = "{'containers':[{'name':'a'},{'name':'b'}]}";
    String statuses =
        "'containerStatuses':[{'name':'a','ready':true,'state':{'running':{}}},"
            + "{'name':'b','state':{'terminated':{'exitCode':0,'reason':'Completed'}}}]";
    assertThat(
            podStatus(
                spec,
                "{'phase':'Running','conditions':[{'type':'Ready','status':'True'}],"
                    + statuses
                    + "}"))
        .isEqualTo("Running");
    assertThat(podStatus(spec, "{'phase':'Running'," + statuses + "}")).isEqualTo("NotReady");
  }

  @Test
  void podRowHasReadyRestartsAgeAndWideColumns() {
    ObjectNode pod =
        json(
            "{'metadata':{'name':'web-1',"
                + CREATED
                + "},'spec':{'nodeName':'n1','containers':[{'name':'a'},{'name':'b'}]},"
                + "'status':{'phase':'Running','podIPs':[{'ip':'10.0.0.5'}],'containerStatuses':["
                + "{'name':'a','ready':true,'restartCount':2,'state':{'running':{}},"
                + "'lastState':{'terminated':{'exitCode':1,'finishedAt':'2025-01-01T11:59:30Z'}}},"
                + "{'name':'b','ready':false,'state':{'running':{}}}]}}");
    assertThat(cells("", "pods", pod))
        .containsExactly(
            "web-1", "1/2", "Running", "2 (30s ago)", "5m", "10.0.0.5", "n1", "<none>", "<none>");
  }

  @Test
  void tableHasColumnDefinitionsWithWidePriorities() {
    ObjectNode table =
        converter.forObject(
            type("", "pods"), json("{'metadata':{'name':'p'}}"), IncludeObject.NONE);
    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("apiVersion").asText()).isEqualTo("meta.k8s.io/v1");
    List<String> normal = new ArrayList<>();
    List<String> wide = new ArrayList<>();
    for (JsonNode c : table.path("columnDefinitions")) {
      (c.path("priority").asInt() == 0 ? normal : wide).add(c.path("name").asText());
    }
    assertThat(normal).containsExactly("Name", "Ready", "Status", "Restarts", "Age");
    assertThat(wide).containsExactly("IP", "Node", "Nominated Node", "Readiness Gates");
    assertThat(table.path("rows").get(0).has("object")).isFalse();
  }

  @Test
  void includeObjectControlsTheRowObject() {
    ObjectNode pod = json("{'metadata':{'name':'p','resourceVersion':'7'},'spec':{}}");
    JsonNode meta =
        converter.forObject(type("", "pods"), pod, IncludeObject.parse(null)).path("rows").get(0);
    assertThat(meta.path("object").path("kind").asText()).isEqualTo("PartialObjectMetadata");
    assertThat(meta.path("object").path("metadata").path("name").asText()).isEqualTo("p");
    assertThat(meta.path("object").has("spec")).isFalse();
    JsonNode full =
        converter
            .forObject(type("", "pods"), pod, IncludeObject.parse("Object"))
            .path("rows")
            .get(0);
    assertThat(full.path("object").has("spec")).isTrue();
  }

  @Test
  void listTableCarriesResourceVersionAndContinue() {
    ObjectNode list =
        json(
            "{'kind':'PodList','metadata':{'resourceVersion':'42','continue':'abc'},'items':[{'metadata':{'name':'a'}},{'metadata':{'name':'b'}}]}");
    ObjectNode table = converter.forList(type("", "pods"), list, IncludeObject.NONE);
    assertThat(table.path("metadata").path("resourceVersion").asText()).isEqualTo("42");
    assertThat(table.path("metadata").path("continue").asText()).isEqualTo("abc");
    assertThat(table.path("rows")).hasSize(2);
  }

  @Test
  void deploymentAndReplicaSetRows() {
    String template =
        "'template':{'spec':{'containers':[{'name':'nginx','image':'nginx:1.27'},{'name':'side','image':'busybox'}]}}";
    ObjectNode deployment =
        json(
            "{'metadata':{'name':'web',"
                + CREATED
                + "},'spec':{'replicas':3,'selector':{'matchLabels':{'app':'web'}},"
                + template
                + "},'status':{'readyReplicas':2,'updatedReplicas':3,'availableReplicas':2}}");
    assertThat(cells("apps", "deployments", deployment))
        .containsExactly(
            "web", "2/3", "3", "2", "5m", "nginx,side", "nginx:1.27,busybox", "app=web");
    JsonNode cell =
        converter
            .forObject(type("apps", "deployments"), deployment, IncludeObject.NONE)
            .path("rows")
            .get(0)
            .path("cells")
            .get(2);
    assertThat(cell.isNumber()).isTrue();

    ObjectNode rs =
        json(
            "{'metadata':{'name':'web-abc',"
                + CREATED
                + "},'spec':{'replicas':3,'selector':{'matchLabels':{'app':'web'}},"
                + template
                + "},'status':{'replicas':3,'readyReplicas':1}}");
    assertThat(cells("apps", "replicasets", rs).subList(0, 5))
        .containsExactly("web-abc", "3", "3", "1", "5m");
  }

  @Test
  void nodeStatusRolesAndWideColumns() {
    ObjectNode node =
        json(
            "{'metadata':{'name':'n1',"
                + CREATED
                + ",'labels':{'node-role.kubernetes.io/control-plane':'','node-role.kubernetes.io/worker':''}},"
                + "'spec':{'unschedulable':true},'status':{'conditions':[{'type':'Ready','status':'True'}],"
                + "'addresses':[{'type':'InternalIP','address':'127.0.0.2'}],"
                + "'nodeInfo':{'kubeletVersion':'v1.32.0-streamplane','osImage':'Streamplane'}}}");
    assertThat(cells("", "nodes", node))
        .containsExactly(
            "n1",
            "Ready,SchedulingDisabled",
            "control-plane,worker",
            "5m",
            "v1.32.0-streamplane",
            "127.0.0.2",
            "<none>",
            "Streamplane",
            "<unknown>",
            "<unknown>");
    ObjectNode notReady =
        json(
            "{'metadata':{'name':'n2'},'status':{'conditions':[{'type':'Ready','status':'Unknown'}]}}");
    assertThat(cells("", "nodes", notReady).get(1)).isEqualTo("NotReady");
    assertThat(cells("", "nodes", json("{'metadata':{'name':'n3'}}")).subList(1, 4))
        .containsExactly("Unknown", "<none>", "<unknown>");
  }

  @Test
  void eventRowUsesLastSeenAndLowercasedObject() {
    ObjectNode event =
        json(
            "{'metadata':{'name':'p.1'},'involvedObject':{'kind':'Pod','name':'p'},'reason':'Started',"
                + "'message':' Started container ','type':'Normal','source':{'component':'kubelet','host':'n1'},"
                + "'firstTimestamp':'2025-01-01T11:00:00Z','lastTimestamp':'2025-01-01T11:58:00Z','count':3}");
    assertThat(cells("", "events", event))
        .containsExactly(
            "2m",
            "Normal",
            "Started",
            "pod/p",
            "",
            "kubelet, n1",
            "Started container",
            "60m",
            "3",
            "p.1");
  }

  @Test
  void simpleKindsPrintTheirColumns() {
    assertThat(
            cells(
                "",
                "namespaces",
                json("{'metadata':{'name':'dev'," + CREATED + "},'status':{'phase':'Active'}}")))
        .containsExactly("dev", "Active", "5m");
    assertThat(
            cells(
                "coordination.k8s.io",
                "leases",
                json("{'metadata':{'name':'n1'," + CREATED + "},'spec':{'holderIdentity':'n1'}}")))
        .containsExactly("n1", "n1", "5m");
    assertThat(
            cells(
                "",
                "configmaps",
                json("{'metadata':{'name':'c'," + CREATED + "},'data':{'a':'1','b':'2'}}")))
        .containsExactly("c", "2", "5m");
    assertThat(
            cells(
                "",
                "secrets",
                json(
                    "{'metadata':{'name':'s',"
                        + CREATED
                        + "},'type':'Opaque','data':{'a':'MQ=='}}")))
        .containsExactly("s", "Opaque", "1", "5m");
    assertThat(
            cells(
                "rbac.authorization.k8s.io",
                "roles",
                json("{'metadata':{'name':'r'," + CREATED + "}}")))
        .containsExactly("r", "2025-01-01T11:55:00Z");
    assertThat(
            cells(
                "rbac.authorization.k8s.io",
                "rolebindings",
                json(
                    "{'metadata':{'name':'rb',"
                        + CREATED
                        + "},'roleRef':{'kind':'Role','name':'r'},"
                        + "'subjects':[{'kind':'User','name':'bob'},{'kind':'ServiceAccount','namespace':'ns','name':'sa'}]}")))
        .containsExactly("rb", "Role/r", "5m", "bob", "", "ns:sa");
  }

  @Test
  void acceptHeaderNegotiatesTable() {
    assertThat(
            TableConverter.requested(
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"))
        .isTrue();
    assertThat(TableConverter.requested("application/json")).isFalse();
    assertThat(TableConverter.requested(null)).isFalse();
  }
}
