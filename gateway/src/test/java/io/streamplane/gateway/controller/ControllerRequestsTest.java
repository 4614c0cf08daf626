package io.streamplane.gateway.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Pod;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.CachedObjects;
import io.streamplane.gateway.admission.LimitRanger;
import io.streamplane.gateway.admission.PodSecurity;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.gateway.testing.InMemoryStore;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A controller's requests through the registry and its admission chain, the store in memory: what
 * admission gives a client's pod it gives a controller's, and a refusal is a FailedCreate event.
 */
class ControllerRequestsTest {

  private static final ResourceRegistry KINDS = ResourceRegistry.kubernetes();
  private static final KubeJson JSON = new KubeJson();
  private static final UserInfo ADMIN =
      UserInfo.newBuilder().setUsername("admin").setGroups(List.of("system:masters")).build();
  private static final UserInfo REPLICASET_CONTROLLER =
      UserInfo.newBuilder()
          .setUsername("system:serviceaccount:kube-system:replicaset-controller")
          .build();

  private final InMemoryStore store = new InMemoryStore();
  private final CachedObjects objects = new CachedObjects(store, Duration.ofSeconds(1));
  private final LimitRanger limitRanger = new LimitRanger(objects);
  private final ResourceService service =
      new ResourceService(
          store,
          null,
          store,
          JSON,
          Duration.ofSeconds(1),
          new Admission(List.of(limitRanger), List.of(limitRanger, new PodSecurity(objects))));
  private final ControllerRequests requests =
      new ControllerRequests(
          service, KINDS, JSON, Clock.fixed(Instant.parse("2026-11-26T10:00:00Z"), ZoneOffset.UTC));

  private ObjectNode create(String resource, String namespace, String json) {
    ResourceType type = KINDS.byResource("", resource).orElseThrow();
    return service
        .create(
            type,
            namespace,
            (ObjectNode) KubeJson.parseJson(json.replace('\'', '"')),
            new WriteOptions(ADMIN, false, null, null))
        .object();
  }

  private static ResourceCommand podRequest(String namespace, String securityContext) {
    Pod pod =
        JSON.toAvro(
                KubeJson.parseJson(
                    ("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'web-abcde','namespace':'"
                            + namespace
                            + "','ownerReferences':[{'apiVersion':'apps/v1','kind':'ReplicaSet',"
                            + "'name':'web','uid':'rs-uid','controller':true}]},'spec':{"
                            + "'containers':[{'name':'web','image':'nginx'"
                            + securityContext
                            + "}]}}")
                        .replace('\'', '"')),
                Pod.class)
            .record();
    return ResourceCommand.newBuilder()
        .setId("r-1")
        .setVerb(CommandVerb.CREATE)
        .setResource("pods")
        .setNamespace(namespace)
        .setName("web-abcde")
        .setEncodedObject(KindObjects.encode(pod))
        .setActor(REPLICASET_CONTROLLER)
        .build();
  }

  @Test
  void aControllersPodGetsTheLimitRangeDefaultsAndIsRecordedAsKubeControllerManagers() {
    create("namespaces", null, "{'metadata':{'name':'limited'}}");
    create(
        "limitranges",
        "limited",
        "{'metadata':{'name':'defaults'},'spec':{'limits':[{'type':'Container',"
            + "'defaultRequest':{'cpu':'100m'},'default':{'cpu':'200m'}}]}}");

    requests.execute(podRequest("limited", ""), true);

    ObjectNode pod =
        service.get(KINDS.byResource("", "pods").orElseThrow(), "limited", "web-abcde");
    ObjectNode container = (ObjectNode) pod.path("spec").path("containers").get(0);
    assertThat(container.path("resources").path("requests").path("cpu").asText()).isEqualTo("100m");
    assertThat(container.path("resources").path("limits").path("cpu").asText()).isEqualTo("200m");
    assertThat(pod.path("metadata").path("managedFields").findValuesAsText("manager"))
        .containsExactly("kube-controller-manager");
  }

  @Test
  void aCreateTheStoreDidNotAnswerIsToBeTriedAgainNotReportedAndIsAFailedCreateOnlyAtTheLast() {
    create("namespaces", null, "{'metadata':{'name':'slow'}}");
    int[] unanswered = {2};
    io.streamplane.gateway.write.CommandLog flaky =
        (command, timeout) -> {
          if (unanswered[0]-- > 0) {
            throw new java.util.concurrent.TimeoutException("the store is restoring");
          }
          return store.execute(command, timeout);
        };
    ControllerRequests slow =
        new ControllerRequests(
            new ResourceService(store, null, flaky, JSON, Duration.ofSeconds(1), Admission.none()),
            KINDS,
            JSON,
            Clock.systemUTC());

    boolean first = slow.execute(podRequest("slow", ""), false);
    boolean last = slow.execute(podRequest("slow", ""), true);

    assertThat(first).isFalse();
    assertThat(last).isTrue();
    List<ObjectNode> events = store.list("", "events", "slow", o -> true).items();
    assertThat(events).hasSize(1);
    assertThat(events.get(0).path("message").asText())
        .startsWith("Error creating: Timeout: the store did not answer within 1 s");
    assertThat(slow.execute(podRequest("slow", ""), false)).isTrue();
    assertThat(store.list("", "pods", "slow", o -> true).items()).hasSize(1);
  }

  @Test
  void aPodRefusedByPodSecurityLeavesAFailedCreateEventOnItsReplicaSetCountedOnRepeat() {
    create(
        "namespaces",
        null,
        "{'metadata':{'name':'locked','labels':{'pod-security.kubernetes.io/enforce':"
            + "'baseline'}}}");
    ResourceCommand privileged = podRequest("locked", ",'securityContext':{'privileged':true}");

    requests.execute(privileged, true);
    requests.execute(privileged, true);

    assertThat(store.list("", "pods", "locked", o -> true).items()).isEmpty();
    List<ObjectNode> events = store.list("", "events", "locked", o -> true).items();
    assertThat(events).hasSize(1);
    ObjectNode event = events.get(0);
    assertThat(event.path("reason").asText()).isEqualTo("FailedCreate");
    assertThat(event.path("type").asText()).isEqualTo("Warning");
    assertThat(event.path("involvedObject").path("kind").asText()).isEqualTo("ReplicaSet");
    assertThat(event.path("involvedObject").path("name").asText()).isEqualTo("web");
    assertThat(event.path("source").path("component").asText()).isEqualTo("replicaset-controller");
    assertThat(event.path("message").asText())
        .isEqualTo(
            "Error creating: pods \"web-abcde\" is forbidden: violates PodSecurity"
                + " \"baseline:latest\": privileged (container \"web\" must not set"
                + " securityContext.privileged=true)");
    assertThat(event.path("count").asInt()).isEqualTo(2);
  }
}
