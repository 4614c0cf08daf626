package io.streamplane.controller.volume;

import static io.streamplane.controller.volume.VolumeFixtures.avro;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ephemeral-volume and pvc-protection controllers over one namespace. */
class ClaimReconcilerTest {

  private static final String EPHEMERAL =
      "{'name':'scratch','ephemeral':{'volumeClaimTemplate':{'metadata':{'labels':{'app':'web'}},"
          + "'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}}}";

  private static Pod pod(String name, String node, String volume, String phase) {
    return avro(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'default','uid':'uid-"
            + name
            + "'},'spec':{"
            + (node == null ? "" : "'nodeName':'" + node + "',")
            + "'containers':[{'name':'c','image':'i'}],'volumes':["
            + volume
            + "]},'status':{'phase':'"
            + phase
            + "'}}",
        Pod.class);
  }

  private static PersistentVolumeClaim claim(String name, String meta) {
    return avro(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'default','uid':'c-"
            + name
            + "','resourceVersion':'3','finalizers':['kubernetes.io/pvc-protection']"
            + meta
            + "},'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}",
        PersistentVolumeClaim.class);
  }

  private static final String DELETING = ",'deletionTimestamp':'2026-11-26T09:00:00Z'";

  @Test
  void anEphemeralVolumeGetsAClaimNamedAfterPodAndVolumeOwnedByThePod() {
    List<Intent> intents =
        ClaimReconciler.reconcile(List.of(), List.of(pod("web", null, EPHEMERAL, "Pending")));
    assertThat(intents)
        .singleElement()
        .satisfies(i -> assertThat(i.verb()).isEqualTo(CommandVerb.CREATE));
    PersistentVolumeClaim created = (PersistentVolumeClaim) intents.get(0).object();
    assertThat(created.getMetadata().getName()).isEqualTo("web-scratch");
    assertThat(created.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(created.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getKind()).isEqualTo("Pod");
              assertThat(o.getUid()).isEqualTo("uid-web");
              assertThat(o.getController()).isTrue();
              assertThat(o.getBlockOwnerDeletion()).isTrue();
            });
    assertThat(created.getSpec().getResources().getRequests()).containsEntry("storage", "1Gi");
  }

  @Test
  void aConvergedNamespaceWritesNothing() {
    PersistentVolumeClaim owned =
        claim(
            "web-scratch",
            ",'ownerReferences':[{'apiVersion':'v1','kind':'Pod','name':'web','uid':'uid-web',"
                + "'controller':true}]");
    assertThat(
            ClaimReconciler.reconcile(
                List.of(owned, claim("data", "")),
                List.of(
                    pod("web", "n1", EPHEMERAL, "Running"),
                    pod(
                        "db",
                        "n1",
                        "{'name':'d','persistentVolumeClaim':{'claimName':'data'}}",
                        "Running"))))
        .isEmpty();
  }

  @Test
  void aClaimBeingDeletedKeepsItsFinalizerWhileAScheduledPodUsesIt() {
    PersistentVolumeClaim deleting = claim("data", DELETING);
    String uses = "{'name':'d','persistentVolumeClaim':{'claimName':'data'}}";
    assertThat(
            ClaimReconciler.reconcile(List.of(deleting), List.of(pod("db", "n1", uses, "Running"))))
        .isEmpty();

    List<Intent> unscheduled =
        ClaimReconciler.reconcile(List.of(deleting), List.of(pod("db", null, uses, "Pending")));
    assertThat(unscheduled)
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.verb()).isEqualTo(CommandVerb.UPDATE);
              assertThat(((PersistentVolumeClaim) i.object()).getMetadata().getFinalizers())
                  .isEmpty();
              assertThat(((PersistentVolumeClaim) i.object()).getMetadata().getResourceVersion())
                  .isEqualTo("3");
            });
  }

  @Test
  void aClaimWithoutItsFinalizerGetsItBack() {
    PersistentVolumeClaim bare =
        avro(
            "{'metadata':{'name':'data','namespace':'default','uid':'c'},'spec':{}}",
            PersistentVolumeClaim.class);
    assertThat(ClaimReconciler.reconcile(List.of(bare), List.of()))
        .singleElement()
        .satisfies(
            i ->
                assertThat(((PersistentVolumeClaim) i.object()).getMetadata().getFinalizers())
                    .containsExactly("kubernetes.io/pvc-protection"));
  }
}
