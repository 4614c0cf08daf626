package io.streamplane.controller.volume;

import static io.streamplane.controller.volume.VolumeFixtures.avro;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.StorageClass;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** How the volume controllers key and reduce the events they read. */
class VolumeControllersTest {

  private static ResourceEvent event(String resource, String group, SpecificRecord object) {
    var meta = KubeObjects.meta(object);
    return ResourceEvent.newBuilder()
        .setType(EventType.MODIFIED)
        .setResource(resource)
        .setGroup(group)
        .setNamespace(meta.getNamespace() == null ? "" : meta.getNamespace())
        .setName(meta.getName())
        .setResourceVersion(1L)
        .setEncodedObject(KindObjects.encode(object))
        .setCommandId("c-1")
        .setActor(UserInfo.newBuilder().setUsername("test").build())
        .build();
  }

  private static Pod pod(String volumes) {
    return avro(
        "{'metadata':{'name':'web','namespace':'shop','uid':'u','labels':{'app':'web'}},"
            + "'spec':{'nodeName':'n1','containers':[{'name':'c','image':'i'}],'volumes':["
            + volumes
            + "]},'status':{'phase':'Running','podIP':'10.0.0.1'}}",
        Pod.class);
  }

  @Test
  void theBinderSeesEveryClaimVolumeAndClassOnOneKey() {
    PersistentVolumeController binder = new PersistentVolumeController();
    assertThat(
            binder.keysOf(
                event(
                    "persistentvolumeclaims",
                    "",
                    avro(
                        "{'metadata':{'name':'c','namespace':'shop'},'spec':{}}",
                        PersistentVolumeClaim.class))))
        .containsExactly("volumes");
    assertThat(
            binder.keysOf(
                event(
                    "persistentvolumes",
                    "",
                    avro("{'metadata':{'name':'pv'},'spec':{}}", PersistentVolume.class))))
        .containsExactly("volumes");
    assertThat(
            binder.keysOf(
                event(
                    "storageclasses",
                    "storage.k8s.io",
                    avro("{'metadata':{'name':'sc'},'provisioner':'p'}", StorageClass.class))))
        .containsExactly("volumes");
    assertThat(binder.keysOf(event("pods", "", pod("")))).isEmpty();
  }

  @Test
  void onlyPodsWithClaimsReachTheClaimControllersReducedToWhatTheyRead() {
    VolumeClaimController claims = new VolumeClaimController();
    assertThat(claims.keysOf(event("pods", "", pod("{'name':'tmp','emptyDir':{}}")))).isEmpty();
    ResourceEvent withClaim =
        event(
            "pods",
            "",
            pod(
                "{'name':'tmp','emptyDir':{}},"
                    + "{'name':'d','persistentVolumeClaim':{'claimName':'data'}}"));
    assertThat(claims.keysOf(withClaim)).containsExactly("shop");
    Pod reduced = (Pod) KindObjects.of(claims.reduce(withClaim));
    assertThat(reduced.getSpec().getVolumes()).extracting(v -> v.getName()).containsExactly("d");
    assertThat(reduced.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(reduced.getMetadata().getLabels()).isNull();
    assertThat(reduced.getStatus().getPodIP()).isNull();
  }
}
