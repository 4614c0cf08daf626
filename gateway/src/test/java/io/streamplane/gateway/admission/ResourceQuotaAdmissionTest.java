package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** {@link ResourceQuotaAdmission}: checks against every quota, charges, refusals as Kubernetes. */
class ResourceQuotaAdmissionTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-23T00:00:00Z"), ZoneOffset.UTC);
  private static final String POD =
      "{'metadata':{'name':'p3'},'spec':{'containers':[{'name':'app','resources':"
          + "{'requests':{'cpu':'250m'},'limits':{'cpu':'500m'}}}]}}";

  private static String quota(String name, String hard, String used) {
    return "{'metadata':{'name':'"
        + name
        + "','namespace':'ns'},'spec':{'hard':"
        + hard
        + "},'status':{'hard':"
        + hard
        + (used == null ? "" : ",'used':" + used)
        + "}}";
  }

  @Test
  void aThirdPodBeyondAQuotaOfTwoIsForbiddenWithKubernetesMessage() {
    Cluster cluster =
        new Cluster().with("resourcequotas", quota("q", "{'pods':'2'}", "{'pods':'2'}"));
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, cluster, CLOCK);

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", POD)), ApiException.class);

    assertThat(e.code()).isEqualTo(403);
    assertThat(e.status().path("reason").asText()).isEqualTo("Forbidden");
    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"p3\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2,"
                + " limited: pods=2");
    assertThat(cluster.statusWrites).isZero();
  }

  @Test
  void anAdmittedPodIsChargedToEveryQuotaThatLimitsWhatItUses() {
    Cluster cluster =
        new Cluster()
            .with(
                "resourcequotas",
                quota(
                    "compute",
                    "{'requests.cpu':'1','limits.cpu':'2'}",
                    "{'requests.cpu':'500m','limits.cpu':'1'}"))
            .with(
                "resourcequotas",
                quota("count", "{'pods':'5','count/pods':'5'}", "{'pods':'1','count/pods':'1'}"))
            .with("resourcequotas", quota("other", "{'configmaps':'1'}", "{'configmaps':'0'}"));
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, cluster, CLOCK);

    plugin.validate(Cluster.createPod("ns", POD));

    assertThat(used(cluster, "compute"))
        .isEqualTo(Cluster.json("{'requests.cpu':'750m','limits.cpu':'1500m'}"));
    assertThat(used(cluster, "count")).isEqualTo(Cluster.json("{'pods':'2','count/pods':'2'}"));
    assertThat(cluster.statusWrites).isEqualTo(2);
  }

  @Test
  void aPodWithoutTheLimitsAComputeQuotaNeedsIsForbidden() {
    Cluster cluster =
        new Cluster()
            .with("resourcequotas", quota("q", "{'limits.memory':'1Gi'}", "{'limits.memory':'0'}"));
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, cluster, CLOCK);

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", POD)), ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"p3\" is forbidden: failed quota: q: must specify limits.memory for: app");
  }

  @Test
  void aQuotaWhoseUsageIsNotKnownYetRefuses() {
    Cluster cluster = new Cluster().with("resourcequotas", quota("q", "{'pods':'2'}", null));
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, cluster, CLOCK);

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", POD)), ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo("pods \"p3\" is forbidden: status unknown for quota: q, resources: pods");
  }

  @Test
  void aDryRunIsCheckedButChargesNothing() {
    Cluster cluster =
        new Cluster().with("resourcequotas", quota("q", "{'pods':'2'}", "{'pods':'1'}"));
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, cluster, CLOCK);
    AdmissionRequest request = Cluster.createPod("ns", POD);
    AdmissionRequest dryRun =
        new AdmissionRequest(
            request.operation(),
            request.type(),
            "",
            "ns",
            "p3",
            request.object(),
            null,
            Cluster.ADMIN,
            true);

    plugin.validate(dryRun);

    assertThat(cluster.statusWrites).isZero();
  }

  @Test
  void theLastSlotTakenByAnotherGatewayMeanwhileIsNotGivenTwice() {
    Cluster cluster =
        new Cluster().with("resourcequotas", quota("q", "{'pods':'2'}", "{'pods':'1'}"));
    // Another gateway charges the same quota between this one's read and its write.
    SystemWrites racing =
        new SystemWrites() {
          boolean raced;

          @Override
          public void writeStatus(
              String group, String resource, String namespace, ObjectNode object) {
            if (!raced) {
              raced = true;
              ObjectNode other = cluster.get("", "resourcequotas", "ns", "q").orElseThrow();
              other.with("status").with("used").put("pods", "2");
              cluster.writeStatus(group, resource, namespace, other);
            }
            cluster.writeStatus(group, resource, namespace, object);
          }
        };
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, racing, CLOCK);

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", POD)), ApiException.class);

    assertThat(e.status().path("message").asText()).contains("exceeded quota: q");
    assertThat(used(cluster, "q")).isEqualTo(Cluster.json("{'pods':'2'}"));
  }

  @Test
  void objectCountsOfOtherKindsAreChecked() {
    Cluster cluster =
        new Cluster()
            .with(
                "resourcequotas",
                quota("q", "{'count/deployments.apps':'1'}", "{'count/deployments.apps':'1'}"));
    ResourceQuotaAdmission plugin = new ResourceQuotaAdmission(cluster, cluster, CLOCK);

    ApiException e =
        catchThrowableOfType(
            () ->
                plugin.validate(
                    Cluster.create(
                        Cluster.REGISTRY.byResource("apps", "deployments").orElseThrow(),
                        "ns",
                        Cluster.json("{'metadata':{'name':'d'}}"))),
            ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "deployments.apps \"d\" is forbidden: exceeded quota: q, requested:"
                + " count/deployments.apps=1, used: count/deployments.apps=1, limited:"
                + " count/deployments.apps=1");
  }

  private static ObjectNode used(Cluster cluster, String quota) {
    return (ObjectNode)
        cluster.get("", "resourcequotas", "ns", quota).orElseThrow().path("status").path("used");
  }
}
