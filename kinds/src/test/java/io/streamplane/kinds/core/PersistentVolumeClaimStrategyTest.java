package io.streamplane.kinds.core;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.kinds.KindFixtures;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class PersistentVolumeClaimStrategyTest {

  private final PersistentVolumeClaimStrategy strategy = new PersistentVolumeClaimStrategy();

  private static String pvc(String spec, String status) {
    return "{'metadata':{'name':'data','namespace':'default'},'spec':{"
        + spec
        + "},'status':{"
        + status
        + "}}";
  }

  private PersistentVolumeClaim created(String spec) {
    return created(spec, "");
  }

  private PersistentVolumeClaim created(String spec, String status) {
    return KindFixtures.created(strategy, pvc(spec, status), PersistentVolumeClaim.class);
  }

  private static String claim(String size) {
    return "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'"
        + size
        + "'}},'storageClassName':'fast'";
  }

  @Test
  void defaultsToFilesystemAndIsCreatedPending() {
    ObjectNode pvc = json(pvc(claim("1Gi"), "'phase':'Bound'"));
    strategy.applyDefaults(pvc, true);
    strategy.prepareForCreate(pvc);

    assertThat(pvc.at("/spec/volumeMode").asText()).isEqualTo("Filesystem");
    assertThat(pvc.get("status").toString()).isEqualTo("{\"phase\":\"Pending\"}");
  }

  @Test
  void accessModesAndAStorageRequestAreRequired() {
    assertThat(strategy.validate(created(claim("1Gi")))).isEmpty();
    assertThat(messages(strategy.validate(created("'storageClassName':'Fast_Class'"))))
        .containsExactly(
            "spec.accessModes: Required value: at least 1 access mode is required",
            "spec.resources[storage]: Required value",
            "spec.storageClassName: Invalid value: \"Fast_Class\": a lowercase RFC 1123 subdomain"
                + " must consist of lower case alphanumeric characters, '-' or '.', and must start"
                + " and end with an alphanumeric character (e.g. 'example.com', regex used for"
                + " validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }

  @Test
  void aDataSourceOfTheCoreGroupMustBeAClaim() {
    assertThat(
            messages(
                strategy.validate(
                    created(claim("1Gi") + ",'dataSource':{'kind':'Secret','name':'s'}"))))
        .containsExactly(
            "spec.dataSource: Invalid value: \"Secret\": must be 'PersistentVolumeClaim' when"
                + " referencing the default apiGroup");
  }

  @Test
  void theSpecIsImmutableButTheVolumeNameIsSetOnce() {
    PersistentVolumeClaim pending = created(claim("1Gi"));
    assertThat(strategy.validateUpdate(created(claim("1Gi") + ",'volumeName':'pv1'"), pending))
        .isEmpty();
    assertThat(
            messages(
                strategy.validateUpdate(
                    created(claim("1Gi").replace("ReadWriteOnce", "ReadWriteMany")), pending)))
        .containsExactly(
            "spec: Forbidden: spec is immutable after creation except resources.requests and"
                + " volumeAttributesClassName for bound claims");
    PersistentVolumeClaim bound = created(claim("1Gi") + ",'volumeName':'pv1'");
    assertThat(
            messages(strategy.validateUpdate(created(claim("1Gi") + ",'volumeName':'pv2'"), bound)))
        .hasSize(1);
  }

  @Test
  void aBoundClaimsRequestMayGrowButNeverShrink() {
    PersistentVolumeClaim bound = created(claim("2Gi"), "'phase':'Bound'");
    assertThat(strategy.validateUpdate(created(claim("3Gi"), "'phase':'Bound'"), bound)).isEmpty();
    assertThat(messages(strategy.validateUpdate(created(claim("1Gi"), "'phase':'Bound'"), bound)))
        .containsExactly(
            "spec.resources.requests.storage: Forbidden: field can not be less than previous"
                + " value");
    assertThat(
            messages(
                strategy.validateUpdate(
                    created(claim("3Gi"), "'phase':'Pending'"),
                    created(claim("2Gi"), "'phase':'Pending'"))))
        .containsExactly(
            "spec: Forbidden: spec is immutable after creation except resources.requests and"
                + " volumeAttributesClassName for bound claims");
  }

  @Test
  void printsAsKubectlGetPvc() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "Status",
            "Volume",
            "Capacity",
            "Access Modes",
            "StorageClass",
            "VolumeAttributesClass",
            "Age",
            "VolumeMode");
    assertThat(
            row(
                strategy,
                pvc(
                    claim("1Gi") + ",'volumeName':'pv1','volumeMode':'Filesystem'",
                    "'phase':'Bound','capacity':{'storage':'5Gi'},'accessModes':['ReadWriteOnce']")))
        .containsExactly(
            "data", "Bound", "pv1", "5Gi", "RWO", "fast", "<unset>", "60m", "Filesystem");
    assertThat(row(strategy, pvc(claim("1Gi"), "'phase':'Pending'")))
        .containsExactly("data", "Pending", "", "", "", "fast", "<unset>", "60m", "<unset>");
  }

  @Test
  void isServedAsPvcNamespacedWithStatus() {
    ResourceType type =
        ResourceRegistry.kubernetes().served("", "v1", "persistentvolumeclaims").orElseThrow();
    assertThat(type.shortNames()).containsExactly("pvc");
    assertThat(type.namespaced()).isTrue();
    assertThat(type.subresource("status")).isPresent();
  }
}
