package io.streamplane.controller.attachdetach;

import static io.streamplane.controller.volume.VolumeFixtures.avro;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.Event;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.VolumeAttachment;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.VolumeAttachmentNames;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** The attach/detach controller over pods, claims, volumes, drivers and attachments. */
class AttachDetachReconcilerTest {

  private static final Instant NOW = Instant.parse("2026-11-27T01:00:00Z");
  private static final String DRIVER = "attach.csi.streamplane.io";
  private static final String NAME = VolumeAttachmentNames.of("h-1", DRIVER, "node-0");

  private static Pod pod(String name, String node, String phase) {
    return avro(
        "{'metadata':{'name':'"
            + name
            + "','namespace':'default','uid':'uid-"
            + name
            + "'},'spec':{'nodeName':'"
            + node
            + "','containers':[{'name':'c','image':'i'}],"
            + "'volumes':[{'name':'data','persistentVolumeClaim':{'claimName':'data'}}]},"
            + "'status':{'phase':'"
            + phase
            + "'}}",
        Pod.class);
  }

  private static PersistentVolumeClaim claim(String volumeName) {
    return avro(
        "{'metadata':{'name':'data','namespace':'default','uid':'c-1'},'spec':{'accessModes':"
            + "['ReadWriteOnce'],'volumeName':'"
            + volumeName
            + "','resources':{'requests':{'storage':'1Gi'}}}}",
        PersistentVolumeClaim.class);
  }

  private static PersistentVolume pv(String driver) {
    return avro(
        "{'metadata':{'name':'pv1'},'spec':{'accessModes':['ReadWriteOnce'],'capacity':"
            + "{'storage':'1Gi'},'csi':{'driver':'"
            + driver
            + "','volumeHandle':'h-1'}}}",
        PersistentVolume.class);
  }

  private static CSIDriver driver(String name, boolean attach) {
    return avro(
        "{'metadata':{'name':'" + name + "'},'spec':{'attachRequired':" + attach + "}}",
        CSIDriver.class);
  }

  private static VolumeAttachment attachment(String meta, String status) {
    return avro(
        "{'metadata':{'name':'"
            + NAME
            + "','uid':'va-1','resourceVersion':'5'"
            + meta
            + "},'spec':{'attacher':'"
            + DRIVER
            + "','nodeName':'node-0','source':{'persistentVolumeName':'pv1'}},'status':{"
            + status
            + "}}",
        VolumeAttachment.class);
  }

  private static List<Intent> reconcile(
      List<Pod> pods, List<CSIDriver> drivers, List<VolumeAttachment> attachments, Set<String> ev) {
    return AttachDetachReconciler.reconcile(
        pods, List.of(claim("pv1")), List.of(pv(DRIVER)), drivers, attachments, ev, NOW);
  }

  @Test
  void theNameIsCsiAttachersHashOfHandleDriverAndNode() {
    assertThat(NAME)
        .isEqualTo("csi-01e379b0c0764585c90f151a0758a49713cb4d65adad237fea4d3f8a77ab6980");
    assertThat(VolumeAttachmentNames.of("h-1", DRIVER, "node-1")).isNotEqualTo(NAME);
  }

  @Test
  void aScheduledPodOfAnAttachRequiredDriverGetsAnAttachmentPerVolumeAndNode() {
    List<Intent> intents =
        reconcile(
            List.of(pod("a", "node-0", "Pending"), pod("b", "node-0", "Running")),
            List.of(driver(DRIVER, true)),
            List.of(),
            Set.of());
    assertThat(intents)
        .singleElement()
        .satisfies(i -> assertThat(i.verb()).isEqualTo(CommandVerb.CREATE));
    VolumeAttachment created = (VolumeAttachment) intents.get(0).object();
    assertThat(created.getMetadata().getName()).isEqualTo(NAME);
    assertThat(created.getSpec().getAttacher()).isEqualTo(DRIVER);
    assertThat(created.getSpec().getNodeName()).isEqualTo("node-0");
    assertThat(created.getSpec().getSource().getPersistentVolumeName()).isEqualTo("pv1");
    assertThat(intents.get(0).resource()).isEqualTo("volumeattachments");
    assertThat(intents.get(0).group()).isEqualTo("storage.k8s.io");
  }

  @Test
  void aDriverThatDoesNotAttachGetsNoneAndOneWithoutCsiDriverIsAttached() {
    assertThat(
            reconcile(
                List.of(pod("a", "node-0", "Running")),
                List.of(driver(DRIVER, false)),
                List.of(),
                Set.of()))
        .isEmpty();
    assertThat(reconcile(List.of(pod("a", "node-0", "Running")), List.of(), List.of(), Set.of()))
        .hasSize(1);
    // not bound yet: nothing to attach
    assertThat(
            AttachDetachReconciler.reconcile(
                List.of(pod("a", "node-0", "Pending")),
                List.of(claim("")),
                List.of(pv(DRIVER)),
                List.of(),
                List.of(),
                Set.of(),
                NOW))
        .isEmpty();
  }

  @Test
  void attachedItSaysSoOnceToEachPodAndConvergedWritesNothing() {
    List<Pod> pods = List.of(pod("a", "node-0", "Running"));
    List<Intent> intents =
        reconcile(
            pods,
            List.of(driver(DRIVER, true)),
            List.of(attachment("", "'attached':true")),
            Set.of());
    assertThat(intents).singleElement();
    Event event = (Event) intents.get(0).object();
    assertThat(event.getReason()).isEqualTo("SuccessfulAttachVolume");
    assertThat(event.getType()).isEqualTo("Normal");
    assertThat(event.getMessage()).isEqualTo("AttachVolume.Attach succeeded for volume \"pv1\"");
    assertThat(event.getSource().getComponent()).isEqualTo("attachdetach-controller");
    assertThat(event.getInvolvedObject().getName()).isEqualTo("a");
    assertThat(
            reconcile(
                pods,
                List.of(driver(DRIVER, true)),
                List.of(attachment("", "'attached':true")),
                Set.of("default/" + event.getMetadata().getName())))
        .as("converged")
        .isEmpty();
  }

  @Test
  void anAttachErrorIsAFailedAttachVolumeEventOnThePod() {
    List<Intent> intents =
        reconcile(
            List.of(pod("a", "node-0", "Pending")),
            List.of(driver(DRIVER, true)),
            List.of(
                attachment(
                    "",
                    "'attached':false,'attachError':{'time':'2026-11-27T00:59:00Z',"
                        + "'message':'rpc error: code = Internal desc = the bus is down'}")),
            Set.of());
    Event event = (Event) intents.get(0).object();
    assertThat(event.getReason()).isEqualTo("FailedAttachVolume");
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getMessage())
        .isEqualTo(
            "AttachVolume.Attach failed for volume \"pv1\" : rpc error: code = Internal desc ="
                + " the bus is down");
  }

  @Test
  void anAttachmentNoPodNeedsIsDeletedOnce() {
    List<CSIDriver> drivers = List.of(driver(DRIVER, true));
    VolumeAttachment attached = attachment("", "'attached':true");
    for (List<Pod> pods :
        List.of(
            List.<Pod>of(),
            List.of(pod("a", "node-0", "Succeeded")),
            List.of(pod("a", "node-1", "Running")))) {
      List<Intent> intents = reconcile(pods, drivers, List.of(attached), Set.of());
      assertThat(intents)
          .filteredOn(i -> i.verb() == CommandVerb.DELETE)
          .singleElement()
          .satisfies(i -> assertThat(i.name()).isEqualTo(NAME));
    }
    assertThat(
            reconcile(
                List.of(),
                drivers,
                List.of(
                    attachment(",'deletionTimestamp':'2026-11-27T00:00:00Z'", "'attached':true")),
                Set.of()))
        .as("already being detached")
        .isEmpty();
  }

  @Test
  void aDetachWaitsUntilTheNodeNoLongerReportsTheVolumeInUseOrSixMinutesAfterThePodEnded() {
    PersistentVolume bound =
        avro(
            "{'metadata':{'name':'pv1'},'spec':{'accessModes':['ReadWriteOnce'],'capacity':"
                + "{'storage':'1Gi'},'csi':{'driver':'"
                + DRIVER
                + "','volumeHandle':'h-1'},'claimRef':{'namespace':'default','name':'data'}}}",
            PersistentVolume.class);
    Pod ended = pod("a", "node-0", "Running");
    ended.getMetadata().setDeletionTimestamp(NOW.minusSeconds(60));
    VolumeAttachment attached = attachment("", "'attached':true");
    String unique = "kubernetes.io/csi/" + DRIVER + "^h-1";
    BiFunction<Map<String, List<String>>, Instant, AttachDetachReconciler.Outcome> reconcile =
        (inUse, now) ->
            AttachDetachReconciler.reconcile(
                List.of(),
                List.of(claim("pv1")),
                List.of(bound),
                List.of(driver(DRIVER, true)),
                List.of(attached),
                Set.of(),
                inUse,
                List.of(ended),
                now);

    AttachDetachReconciler.Outcome mounted =
        reconcile.apply(Map.of("node-0", List.of(unique)), NOW);
    assertThat(mounted.intents()).as("the node still reports the volume in use").isEmpty();
    assertThat(mounted.requeueAt()).isEqualTo(NOW.minusSeconds(60).plus(Duration.ofMinutes(6)));

    for (Map<String, List<String>> unmounted :
        List.of(
            Map.<String, List<String>>of(),
            Map.of("node-0", List.of("kubernetes.io/csi/other^h-2")),
            Map.of("node-1", List.of(unique)))) {
      AttachDetachReconciler.Outcome detached = reconcile.apply(unmounted, NOW);
      assertThat(detached.intents())
          .singleElement()
          .satisfies(
              i -> {
                assertThat(i.verb()).isEqualTo(CommandVerb.DELETE);
                assertThat(i.name()).isEqualTo(NAME);
              });
      assertThat(detached.requeueAt()).isNull();
    }
    // maxWaitForUnmountDuration after the pod's end, the detach goes ahead regardless
    assertThat(
            reconcile
                .apply(Map.of("node-0", List.of(unique)), NOW.plus(Duration.ofMinutes(5)))
                .intents())
        .singleElement()
        .satisfies(i -> assertThat(i.verb()).isEqualTo(CommandVerb.DELETE));
    // in use, but no pod of the node is known to have ended lately: nothing to wait for
    assertThat(
            AttachDetachReconciler.reconcile(
                    List.of(),
                    List.of(claim("pv1")),
                    List.of(bound),
                    List.of(driver(DRIVER, true)),
                    List.of(attached),
                    Set.of(),
                    Map.of("node-0", List.of(unique)),
                    List.of(),
                    NOW)
                .intents())
        .hasSize(1);
  }
}
