package io.streamplane.gateway.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.gateway.testing.InMemoryStore;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An eviction carried out through the registry, its writes decided by the store in memory. */
class PodEvictionTest {

  private static final ResourceRegistry KINDS = ResourceRegistry.kubernetes();
  private static final ResourceType PODS = KINDS.byResource("", "pods").orElseThrow();
  private static final ResourceType BUDGETS =
      KINDS.byResource("policy", "poddisruptionbudgets").orElseThrow();
  private static final WriteOptions ADMIN =
      new WriteOptions(UserInfo.newBuilder().setUsername("admin").build(), false, null, "a-1");
  private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");

  private final InMemoryStore store = new InMemoryStore();
  private final ResourceService service =
      new ResourceService(
          store, null, store, new KubeJson(), Duration.ofSeconds(1), Admission.none());
  private final PodEviction evictions =
      new PodEviction(service, KINDS, Clock.fixed(NOW, ZoneOffset.UTC));

  private static ObjectNode json(String singleQuoted) {
    return (ObjectNode) KubeJson.parseJson(singleQuoted.replace('\'', '"'));
  }

  @BeforeEach
  void threeReadyPodsAndABudgetAllowingOneDisruption() {
    for (String name : new String[] {"web-0", "web-1", "web-2"}) {
      service.create(
          PODS,
          "default",
          json(
              "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'"
                  + name
                  + "','labels':{'app':'web'}},'spec':{'containers':[{'name':'web',"
                  + "'image':'nginx'}]}}"),
          ADMIN);
      ObjectNode pod = service.get(PODS, "default", name);
      pod.putObject("status")
          .put("phase", "Running")
          .putArray("conditions")
          .addObject()
          .put("type", "Ready")
          .put("status", "True");
      service.updateStatus(PODS, "default", name, pod, ADMIN);
    }
    service.create(
        BUDGETS,
        "default",
        json(
            "{'apiVersion':'policy/v1','kind':'PodDisruptionBudget','metadata':{'name':'web'},"
                + "'spec':{'minAvailable':2,'selector':{'matchLabels':{'app':'web'}}}}"),
        ADMIN);
    setAllowed(1);
  }

  private void setAllowed(int allowed) {
    ObjectNode budget = service.get(BUDGETS, "default", "web");
    budget
        .with("status")
        .put("observedGeneration", budget.at("/metadata/generation").asLong())
        .put("disruptionsAllowed", allowed)
        .put("currentHealthy", 3)
        .put("desiredHealthy", 2)
        .put("expectedPods", 3);
    budget.with("metadata").remove("resourceVersion");
    service.updateStatus(BUDGETS, "default", "web", budget, ADMIN);
  }

  private static ObjectNode eviction(String pod) {
    return json(
        "{'apiVersion':'policy/v1','kind':'Eviction','metadata':{'name':'"
            + pod
            + "','namespace':'default'}}");
  }

  @Test
  void anAllowedEvictionSpendsTheBudgetThenDeletesThePodAndTheNextIsRefused() {
    var written = evictions.evict("default", "web-0", eviction("web-0"), ADMIN);

    assertThat(written.code()).isEqualTo(201);
    assertThat(written.object().path("status").asText()).isEqualTo("Success");
    ObjectNode budget = service.get(BUDGETS, "default", "web");
    assertThat(budget.at("/status/disruptionsAllowed").asInt()).isZero();
    assertThat(budget.at("/status/disruptedPods/web-0").asText()).isEqualTo("2026-11-26T10:00:00Z");
    // A pod bound to no node is deleted at once.
    assertThatThrownBy(() -> service.get(PODS, "default", "web-0"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(404));

    assertThatThrownBy(() -> evictions.evict("default", "web-1", eviction("web-1"), ADMIN))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(429);
              assertThat(e.status().path("message").asText())
                  .isEqualTo("Cannot evict pod as it would violate the pod's disruption budget.");
            });
    assertThat(
            service.get(PODS, "default", "web-1").at("/metadata/deletionTimestamp").isMissingNode())
        .isTrue();
  }

  @Test
  void aBudgetChangedBetweenTheReadAndTheWriteIsReadAndSpentAgain() {
    store.beforeNextCommand(() -> setAllowed(2));

    evictions.evict("default", "web-0", eviction("web-0"), ADMIN);

    assertThat(service.get(BUDGETS, "default", "web").at("/status/disruptionsAllowed").asInt())
        .as("spent from the budget as the concurrent writer left it")
        .isEqualTo(1);
  }

  @Test
  void aNodeEvictsOnlyPodsBoundToItselfAndSpendsNothingOtherwise() {
    WriteOptions node =
        new WriteOptions(
            UserInfo.newBuilder()
                .setUsername("system:node:node-1")
                .setGroups(java.util.List.of("system:nodes"))
                .build(),
            false,
            null,
            "a-2");

    assertThatThrownBy(() -> evictions.evict("default", "web-0", eviction("web-0"), node))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(403);
              assertThat(e.status().path("message").asText())
                  .isEqualTo(
                      "pods \"web-0\" is forbidden: node \"node-1\" can only evict pods with"
                          + " spec.nodeName set to itself");
            });
    assertThat(service.get(BUDGETS, "default", "web").at("/status/disruptionsAllowed").asInt())
        .isEqualTo(1);
  }

  @Test
  void theEvictionMustNameThePodOfItsUrl() {
    assertThatThrownBy(() -> evictions.evict("default", "web-0", eviction("web-1"), ADMIN))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400));
  }
}
