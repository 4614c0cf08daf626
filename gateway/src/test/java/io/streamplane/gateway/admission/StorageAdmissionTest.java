package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.ADMIN;
import static io.streamplane.gateway.admission.Cluster.REGISTRY;
import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

/** DefaultStorageClass, StorageObjectInUseProtection and PersistentVolumeClaimResize. */
class StorageAdmissionTest {

  private static final ResourceType CLAIMS =
      REGISTRY.byResource("", "persistentvolumeclaims").orElseThrow();
  private static final ResourceType VOLUMES =
      REGISTRY.byResource("", "persistentvolumes").orElseThrow();

  private static final String DEFAULT =
      "'annotations':{'storageclass.kubernetes.io/is-default-class':'true'}";

  private final Cluster cluster =
      new Cluster()
          .with(
              "storage.k8s.io/storageclasses",
              "{'metadata':{'name':'old-default','creationTimestamp':'2026-01-01T00:00:00Z',"
                  + DEFAULT
                  + "},'provisioner':'example.csi'}")
          .with(
              "storage.k8s.io/storageclasses",
              "{'metadata':{'name':'new-default','creationTimestamp':'2026-02-01T00:00:00Z',"
                  + DEFAULT
                  + "},'provisioner':'example.csi','allowVolumeExpansion':true}")
          .with(
              "storage.k8s.io/storageclasses",
              "{'metadata':{'name':'plain','creationTimestamp':'2026-03-01T00:00:00Z'},"
                  + "'provisioner':'example.csi'}");

  private static ObjectNode claim(String spec) {
    return json(
        "{'metadata':{'name':'data','namespace':'default'},'spec':{'accessModes':['ReadWriteOnce'],"
            + "'resources':{'requests':{'storage':'1Gi'}}"
            + spec
            + "}}");
  }

  private static AdmissionRequest update(ObjectNode object, ObjectNode old) {
    return new AdmissionRequest(
        Operation.UPDATE, CLAIMS, "", "default", "data", object, old, ADMIN, false);
  }

  @Test
  void aClaimWithoutClassGetsTheNewestDefault() {
    ObjectNode pvc = claim("");
    new DefaultStorageClass(cluster).admit(Cluster.create(CLAIMS, "default", pvc));
    assertThat(pvc.at("/spec/storageClassName").asText()).isEqualTo("new-default");
  }

  @Test
  void anEmptyClassOrTheBetaAnnotationIsAClassAlready() {
    ObjectNode empty = claim(",'storageClassName':''");
    new DefaultStorageClass(cluster).admit(Cluster.create(CLAIMS, "default", empty));
    assertThat(empty.at("/spec/storageClassName").asText()).isEmpty();

    ObjectNode beta = claim("");
    beta.with("metadata")
        .putObject("annotations")
        .put("volume.beta.kubernetes.io/storage-class", "plain");
    new DefaultStorageClass(cluster).admit(Cluster.create(CLAIMS, "default", beta));
    assertThat(beta.at("/spec/storageClassName").isMissingNode()).isTrue();
  }

  @Test
  void withoutADefaultClassTheClaimKeepsNone() {
    ObjectNode pvc = claim("");
    new DefaultStorageClass(new Cluster()).admit(Cluster.create(CLAIMS, "default", pvc));
    assertThat(pvc.at("/spec/storageClassName").isMissingNode()).isTrue();
  }

  @Test
  void claimsAndVolumesAreCreatedWithTheirProtectionFinalizer() {
    ObjectNode pvc = claim("");
    new StorageObjectInUseProtection().admit(Cluster.create(CLAIMS, "default", pvc));
    ObjectNode pv = json("{'metadata':{'name':'pv1','finalizers':['example.com/keep']}}");
    new StorageObjectInUseProtection().admit(Cluster.create(VOLUMES, null, pv));
    new StorageObjectInUseProtection().admit(Cluster.create(VOLUMES, null, pv));

    assertThat(pvc.at("/metadata/finalizers").toString())
        .isEqualTo("[\"kubernetes.io/pvc-protection\"]");
    assertThat(pv.at("/metadata/finalizers").toString())
        .isEqualTo("[\"example.com/keep\",\"kubernetes.io/pv-protection\"]");
  }

  @Test
  void aBoundClaimGrowsOnlyWhenItsClassAllowsExpansion() {
    PersistentVolumeClaimResize plugin = new PersistentVolumeClaimResize(cluster);
    ObjectNode bound = claim(",'storageClassName':'new-default'");
    bound.putObject("status").put("phase", "Bound");
    ObjectNode grown = bound.deepCopy();
    grown.with("spec").with("resources").with("requests").put("storage", "2Gi");
    assertThatCode(() -> plugin.validate(update(grown, bound))).doesNotThrowAnyException();

    ObjectNode plain = claim(",'storageClassName':'plain'");
    plain.putObject("status").put("phase", "Bound");
    ObjectNode plainGrown = plain.deepCopy();
    plainGrown.with("spec").with("resources").with("requests").put("storage", "2Gi");
    assertThatThrownBy(() -> plugin.validate(update(plainGrown, plain)))
        .isInstanceOf(ApiException.class)
        .hasMessage(
            "persistentvolumeclaims \"data\" is forbidden: only dynamically provisioned pvc can be"
                + " resized and the storageclass that provisions the pvc must support resize");

    ObjectNode pending = claim(",'storageClassName':'new-default'");
    ObjectNode pendingGrown = pending.deepCopy();
    pendingGrown.with("spec").with("resources").with("requests").put("storage", "2Gi");
    assertThatThrownBy(() -> plugin.validate(update(pendingGrown, pending)))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("Only bound persistent volume claims can be expanded");
  }
}
