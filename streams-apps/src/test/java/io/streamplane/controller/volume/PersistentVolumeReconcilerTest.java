package io.streamplane.controller.volume;

import static io.streamplane.controller.volume.VolumeFixtures.avro;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.StorageClass;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The PersistentVolume controller's binding, provisioning requests, reclaiming and protection. */
class PersistentVolumeReconcilerTest {

  private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");

  /** The cluster the reconciler sees, with each write applied as the store would. */
  private static final class World {
    final Map<String, PersistentVolumeClaim> claims = new LinkedHashMap<>();
    final Map<String, PersistentVolume> volumes = new LinkedHashMap<>();
    final List<StorageClass> classes = new ArrayList<>();
    int version = 100;

    World claim(String name, String spec) {
      return claim(name, "", spec);
    }

    World claim(String name, String meta, String spec) {
      PersistentVolumeClaim c =
          avro(
              "{'metadata':{'name':'"
                  + name
                  + "','namespace':'default','uid':'uid-"
                  + name
                  + "','resourceVersion':'1'"
                  + meta
                  + "},'spec':{'accessModes':['ReadWriteOnce'],'volumeMode':'Filesystem'"
                  + spec
                  + "},'status':{'phase':'Pending'}}",
              PersistentVolumeClaim.class);
      claims.put(name, c);
      return this;
    }

    World volume(String name, String size, String spec) {
      return volume(name, "", size, spec, "Available");
    }

    World volume(String name, String meta, String size, String spec, String phase) {
      PersistentVolume v =
          avro(
              "{'metadata':{'name':'"
                  + name
                  + "','resourceVersion':'1','finalizers':['kubernetes.io/pv-protection']"
                  + meta
                  + "},'spec':{'capacity':{'storage':'"
                  + size
                  + "'},'accessModes':['ReadWriteOnce'],'persistentVolumeReclaimPolicy':'Retain',"
                  + "'volumeMode':'Filesystem','csi':{'driver':'example.csi','volumeHandle':'"
                  + name
                  + "'}"
                  + spec
                  + "},'status':{'phase':'"
                  + phase
                  + "'}}",
              PersistentVolume.class);
      volumes.put(name, v);
      return this;
    }

    World storageClass(String json) {
      classes.add(avro(json, StorageClass.class));
      return this;
    }

    List<Intent> reconcile() {
      return PersistentVolumeReconciler.reconcile(
          List.copyOf(claims.values()), List.copyOf(volumes.values()), classes, NOW);
    }

    /** Applies one round of writes; returns them. */
    List<Intent> step() {
      List<Intent> intents = reconcile();
      for (Intent intent : intents) {
        SpecificRecord object = intent.object();
        ObjectMeta meta = KubeObjects.meta(object);
        SpecificRecord stored =
            KubeObjects.withMeta(
                object,
                ObjectMeta.newBuilder(meta).setResourceVersion(String.valueOf(version++)).build());
        if (stored instanceof PersistentVolume pv) {
          volumes.put(meta.getName(), pv);
        } else {
          claims.put(meta.getName(), (PersistentVolumeClaim) stored);
        }
      }
      return intents;
    }

    /** Steps until nothing is written; returns how many rounds wrote. */
    int converge() {
      int rounds = 0;
      while (!step().isEmpty()) {
        rounds++;
        assertThat(rounds).as("rounds to converge").isLessThan(20);
      }
      assertThat(reconcile()).as("a converged state writes nothing").isEmpty();
      return rounds;
    }
  }

  private static String annotation(ObjectMeta meta, String key) {
    return meta.getAnnotations() == null ? null : meta.getAnnotations().get(key);
  }

  @Test
  void aClaimBindsToTheSmallestVolumeThatFitsInFourWritesAndThenNothingIsWritten() {
    World world =
        new World()
            .claim("data", ",'resources':{'requests':{'storage':'1Gi'}}")
            .volume("big", "10Gi", "")
            .volume("small", "2Gi", "")
            .volume("tiny", "500Mi", "");

    List<Intent> first = world.step();
    assertThat(first)
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.verb()).isEqualTo(CommandVerb.UPDATE);
              assertThat(i.name()).isEqualTo("small");
            });
    PersistentVolume small = world.volumes.get("small");
    assertThat(small.getSpec().getClaimRef().getName()).isEqualTo("data");
    assertThat(small.getSpec().getClaimRef().getUid()).isEqualTo("uid-data");
    assertThat(annotation(small.getMetadata(), VolumeAnnotations.BOUND_BY_CONTROLLER))
        .isEqualTo("yes");

    assertThat(world.converge()).isEqualTo(3);
    PersistentVolumeClaim claim = world.claims.get("data");
    assertThat(claim.getSpec().getVolumeName()).isEqualTo("small");
    assertThat(annotation(claim.getMetadata(), VolumeAnnotations.BIND_COMPLETED)).isEqualTo("yes");
    assertThat(annotation(claim.getMetadata(), VolumeAnnotations.BOUND_BY_CONTROLLER))
        .isEqualTo("yes");
    assertThat(claim.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(claim.getStatus().getCapacity()).containsEntry("storage", "2Gi");
    assertThat(claim.getStatus().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(world.volumes.get("small").getStatus().getPhase()).isEqualTo("Bound");
    assertThat(world.volumes.get("small").getStatus().getLastPhaseTransitionTime()).isEqualTo(NOW);
    assertThat(world.volumes.get("big").getSpec().getClaimRef()).isNull();
  }

  @Test
  void aClaimThatFitsNoVolumeStaysPendingAndWritesNothing() {
    World world =
        new World()
            .claim("huge", ",'resources':{'requests':{'storage':'100Gi'}}")
            .claim(
                "shared",
                ",'accessModes':['ReadWriteMany'],'resources':{'requests':{'storage':'1Gi'}}")
            .claim("fast", ",'storageClassName':'fast','resources':{'requests':{'storage':'1Gi'}}")
            .claim("block", ",'volumeMode':'Block','resources':{'requests':{'storage':'1Gi'}}")
            .claim(
                "gold",
                ",'selector':{'matchLabels':{'tier':'gold'}},'resources':{'requests':{'storage':'1Gi'}}")
            .volume("pv1", "10Gi", "");

    assertThat(world.reconcile()).isEmpty();
  }

  @Test
  void aClaimNamingItsVolumeBindsToItWhenFree() {
    World world =
        new World()
            .claim("data", ",'volumeName':'chosen','resources':{'requests':{'storage':'1Gi'}}")
            .volume("chosen", "5Gi", "")
            .volume("better", "1Gi", "");
    world.converge();
    assertThat(world.claims.get("data").getStatus().getPhase()).isEqualTo("Bound");
    assertThat(world.volumes.get("chosen").getStatus().getPhase()).isEqualTo("Bound");
    assertThat(world.volumes.get("better").getSpec().getClaimRef()).isNull();
    assertThat(
            annotation(
                world.claims.get("data").getMetadata(), VolumeAnnotations.BOUND_BY_CONTROLLER))
        .isNull();
  }

  @Test
  void aDeletedClaimReleasesARetainVolumeAndFailsADeleteVolumeNobodyCanDelete() {
    World world =
        new World()
            .volume(
                "kept",
                "",
                "1Gi",
                ",'claimRef':{'namespace':'default','name':'gone','uid':'uid-gone'}",
                "Bound")
            .volume(
                "deleted",
                "",
                "1Gi",
                ",'persistentVolumeReclaimPolicy':'Delete',"
                    + "'claimRef':{'namespace':'default','name':'gone2','uid':'uid-gone2'}",
                "Bound")
            .volume(
                "provisioned",
                ",'annotations':{'pv.kubernetes.io/provisioned-by':'example.csi'}",
                "1Gi",
                ",'persistentVolumeReclaimPolicy':'Delete',"
                    + "'claimRef':{'namespace':'default','name':'gone3','uid':'uid-gone3'}",
                "Bound");
    world.converge();
    assertThat(world.volumes.get("kept").getStatus().getPhase()).isEqualTo("Released");
    assertThat(world.volumes.get("kept").getSpec().getClaimRef().getName()).isEqualTo("gone");
    assertThat(world.volumes.get("deleted").getStatus().getPhase()).isEqualTo("Failed");
    assertThat(world.volumes.get("deleted").getStatus().getMessage())
        .isEqualTo(
            "error getting deleter volume plugin for volume \"deleted\": no deletable volume"
                + " plugin matched");
    assertThat(world.volumes.get("provisioned").getStatus().getPhase()).isEqualTo("Released");
  }

  @Test
  void aClaimOfAnExternalProvisionersClassIsAnnotatedForIt() {
    World world =
        new World()
            .storageClass(
                "{'metadata':{'name':'fast'},'provisioner':'example.csi','reclaimPolicy':'Delete',"
                    + "'volumeBindingMode':'Immediate'}")
            .claim("data", ",'storageClassName':'fast','resources':{'requests':{'storage':'1Gi'}}");
    assertThat(world.step()).hasSize(1);
    ObjectMeta meta = world.claims.get("data").getMetadata();
    assertThat(annotation(meta, VolumeAnnotations.STORAGE_PROVISIONER)).isEqualTo("example.csi");
    assertThat(annotation(meta, VolumeAnnotations.BETA_STORAGE_PROVISIONER))
        .isEqualTo("example.csi");
    assertThat(world.reconcile()).isEmpty();

    // The provisioner creates a volume naming the claim: it is bound.
    world.volume(
        "pvc-uid-data",
        ",'annotations':{'pv.kubernetes.io/provisioned-by':'example.csi'}",
        "1Gi",
        ",'storageClassName':'fast','persistentVolumeReclaimPolicy':'Delete',"
            + "'claimRef':{'kind':'PersistentVolumeClaim','namespace':'default','name':'data',"
            + "'uid':'uid-data'}",
        "Pending");
    world.converge();
    assertThat(world.claims.get("data").getStatus().getPhase()).isEqualTo("Bound");
    assertThat(world.claims.get("data").getSpec().getVolumeName()).isEqualTo("pvc-uid-data");
    assertThat(
            annotation(
                world.volumes.get("pvc-uid-data").getMetadata(),
                VolumeAnnotations.BOUND_BY_CONTROLLER))
        .isNull();
  }

  @Test
  void aWaitForFirstConsumerClaimIsProvisionedOnlyOnceANodeIsSelected() {
    World world =
        new World()
            .storageClass(
                "{'metadata':{'name':'late'},'provisioner':'example.csi',"
                    + "'volumeBindingMode':'WaitForFirstConsumer'}")
            .storageClass(
                "{'metadata':{'name':'local'},'provisioner':'kubernetes.io/no-provisioner',"
                    + "'volumeBindingMode':'Immediate'}")
            .claim("data", ",'storageClassName':'late','resources':{'requests':{'storage':'1Gi'}}")
            .claim(
                "manual", ",'storageClassName':'local','resources':{'requests':{'storage':'1Gi'}}")
            .volume("pv1", "", "5Gi", ",'storageClassName':'late'", "Available");
    assertThat(world.reconcile()).isEmpty();

    world.claim(
        "data",
        ",'annotations':{'volume.kubernetes.io/selected-node':'node-1'}",
        ",'storageClassName':'late','resources':{'requests':{'storage':'1Gi'}}");
    List<Intent> intents = world.reconcile();
    assertThat(intents).singleElement().satisfies(i -> assertThat(i.name()).isEqualTo("data"));
    assertThat(
            annotation(
                KubeObjects.meta(intents.get(0).object()), VolumeAnnotations.STORAGE_PROVISIONER))
        .isEqualTo("example.csi");
  }

  @Test
  void aClaimWithoutClassGetsTheNewestDefaultClassOnceOneExists() {
    World world = new World().claim("data", ",'resources':{'requests':{'storage':'1Gi'}}");
    assertThat(world.reconcile()).isEmpty();
    world
        .storageClass(
            "{'metadata':{'name':'old','creationTimestamp':'2026-01-01T00:00:00Z','annotations':"
                + "{'storageclass.kubernetes.io/is-default-class':'true'}},'provisioner':'a'}")
        .storageClass(
            "{'metadata':{'name':'new','creationTimestamp':'2026-02-01T00:00:00Z','annotations':"
                + "{'storageclass.kubernetes.io/is-default-class':'true'}},'provisioner':'b'}");
    world.step();
    assertThat(world.claims.get("data").getSpec().getStorageClassName()).isEqualTo("new");
  }

  @Test
  void aBoundClaimWhoseVolumeIsGoneIsLost() {
    World world =
        new World()
            .claim(
                "data",
                ",'annotations':{'pv.kubernetes.io/bind-completed':'yes'}",
                ",'volumeName':'gone','resources':{'requests':{'storage':'1Gi'}}");
    world.converge();
    assertThat(world.claims.get("data").getStatus().getPhase()).isEqualTo("Lost");
  }

  @Test
  void aVolumeBeingDeletedKeepsItsFinalizerWhileBoundAndLosesItOnceReleased() {
    World world =
        new World()
            .claim(
                "data",
                ",'annotations':{'pv.kubernetes.io/bind-completed':'yes'}",
                ",'volumeName':'pv1','resources':{'requests':{'storage':'1Gi'}}")
            .volume(
                "pv1",
                ",'deletionTimestamp':'2026-11-26T09:00:00Z'",
                "1Gi",
                ",'claimRef':{'namespace':'default','name':'data','uid':'uid-data'}",
                "Bound")
            .volume("pv2", ",'deletionTimestamp':'2026-11-26T09:00:00Z'", "1Gi", "", "Available");
    world.claims.put(
        "data",
        PersistentVolumeClaim.newBuilder(world.claims.get("data"))
            .setStatus(
                io.streamplane.api.PersistentVolumeClaimStatus.newBuilder()
                    .setPhase("Bound")
                    .setAccessModes(List.of("ReadWriteOnce"))
                    .setCapacity(Map.of("storage", "1Gi"))
                    .build())
            .build());
    world.converge();
    assertThat(world.volumes.get("pv1").getMetadata().getFinalizers())
        .containsExactly("kubernetes.io/pv-protection");
    assertThat(world.volumes.get("pv2").getMetadata().getFinalizers()).isEmpty();
  }

  @Test
  void waitingClaimsGetTheControllersEventsOnce() {
    World world =
        new World()
            .storageClass(
                "{'metadata':{'name':'late'},'provisioner':'example.csi',"
                    + "'volumeBindingMode':'WaitForFirstConsumer'}")
            .claim("waits", ",'storageClassName':'late'")
            .claim(
                "provisioning",
                ",'annotations':{'volume.kubernetes.io/storage-provisioner':'example.csi'}",
                ",'storageClassName':'late'")
            .claim("bound", ",'storageClassName':'late','volumeName':'pv1'");
    List<Intent> intents =
        PersistentVolumeReconciler.events(
            List.copyOf(world.claims.values()), world.classes, java.util.Set.of(), NOW);
    assertThat(intents).hasSize(2);
    io.streamplane.api.Event waits = (io.streamplane.api.Event) intents.get(0).object();
    assertThat(waits.getReason()).isEqualTo("WaitForFirstConsumer");
    assertThat(waits.getMessage())
        .isEqualTo("waiting for first consumer to be created before binding");
    assertThat(waits.getInvolvedObject().getKind()).isEqualTo("PersistentVolumeClaim");
    assertThat(waits.getInvolvedObject().getName()).isEqualTo("waits");
    assertThat(waits.getSource().getComponent()).isEqualTo("persistentvolume-controller");
    io.streamplane.api.Event external = (io.streamplane.api.Event) intents.get(1).object();
    assertThat(external.getReason()).isEqualTo("ExternalProvisioning");
    assertThat(external.getMessage())
        .isEqualTo(
            "Waiting for a volume to be created either by the external provisioner 'example.csi'"
                + " or manually by the system administrator. If volume creation is delayed, please"
                + " verify that the provisioner is running and correctly registered.");
    assertThat(
            PersistentVolumeReconciler.events(
                List.copyOf(world.claims.values()),
                world.classes,
                java.util.Set.of(
                    "default/" + waits.getMetadata().getName(),
                    "default/" + external.getMetadata().getName()),
                NOW))
        .as("written once")
        .isEmpty();
  }
}
