package io.streamplane.controller.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.ReplicaSet;
import io.streamplane.controller.Intent;
import io.streamplane.controller.OwnerView;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The garbage collector's decision for one owner and its dependents, as a pure function. */
class GarbageCollectorTest {

  private static OwnerReference ref(String uid) {
    return OwnerReference.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("ReplicaSet")
        .setName(uid)
        .setUid(uid)
        .build();
  }

  private static ResourceEvent event(
      EventType type, String resource, String group, SpecificRecord o) {
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource(resource)
        .setGroup(group)
        .setNamespace("default")
        .setName(io.streamplane.schema.objects.KubeObjects.meta(o).getName())
        .setEncodedObject(KindObjects.encode(o))
        .setResourceVersion(1)
        .setCommandId("c")
        .setActor(UserInfo.newBuilder().setUsername("alice").build())
        .build();
  }

  private static ResourceEvent owner(EventType type, List<String> finalizers, boolean deleting) {
    ReplicaSet rs =
        ReplicaSet.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("owner")
                    .setNamespace("default")
                    .setUid("owner")
                    .setFinalizers(finalizers)
                    .setDeletionTimestamp(deleting ? Instant.parse("2026-11-26T10:00:00Z") : null)
                    .build())
            .build();
    return event(type, "replicasets", "apps", rs);
  }

  private static ResourceEvent dependent(String name, List<OwnerReference> owners) {
    ConfigMap cm =
        ConfigMap.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName(name)
                    .setNamespace("default")
                    .setUid(name)
                    .setOwnerReferences(owners)
                    .build())
            .build();
    return event(EventType.ADDED, "configmaps", "", cm);
  }

  @Test
  void aLiveOwnersDependentsAreLeftAlone() {
    OwnerView view =
        new OwnerView(
            "owner",
            owner(EventType.ADDED, null, false),
            false,
            List.of(dependent("a", List.of(ref("owner")))));

    assertThat(GarbageCollector.collect(view)).isEmpty();
  }

  @Test
  void theDependentsOfADeletedOwnerAreDeletedInTheBackgroundUnlessAnotherOwnerKeepsThem() {
    OwnerView view =
        new OwnerView(
            "owner",
            owner(EventType.DELETED, null, false),
            false,
            List.of(
                dependent("alone", List.of(ref("owner"))),
                dependent("shared", List.of(ref("owner"), ref("other")))));

    List<Intent> intents = GarbageCollector.collect(view);

    assertThat(intents)
        .extracting(Intent::verb, Intent::name)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(CommandVerb.DELETE, "alone"),
            org.assertj.core.groups.Tuple.tuple(CommandVerb.UPDATE, "shared"));
    Intent release = intents.stream().filter(i -> i.verb() == CommandVerb.UPDATE).findFirst().get();
    assertThat(
            io.streamplane.schema.objects.KubeObjects.meta(release.object()).getOwnerReferences())
        .extracting(OwnerReference::getUid)
        .containsExactly("other");
  }

  @Test
  void anOwnerDeletedWithTheOrphanPolicyReleasesItsDependentsThenLosesItsFinalizer() {
    OwnerView orphaning =
        new OwnerView(
            "owner",
            owner(EventType.MODIFIED, List.of("orphan"), true),
            true,
            List.of(dependent("a", List.of(ref("owner")))));
    OwnerView released =
        new OwnerView("owner", owner(EventType.MODIFIED, List.of("orphan"), true), true, List.of());

    assertThat(GarbageCollector.collect(orphaning))
        .extracting(Intent::verb, Intent::name)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(CommandVerb.UPDATE, "a"));
    Intent finalize = GarbageCollector.collect(released).get(0);
    assertThat(finalize.resource()).isEqualTo("replicasets");
    assertThat(io.streamplane.schema.objects.KubeObjects.meta(finalize.object()).getFinalizers())
        .isEmpty();
  }

  @Test
  void aForegroundDeletionDeletesTheDependentsInTheForegroundFirst() {
    OwnerView view =
        new OwnerView(
            "owner",
            owner(EventType.MODIFIED, List.of("foregroundDeletion"), true),
            false,
            List.of(dependent("a", List.of(ref("owner")))));

    Intent delete = GarbageCollector.collect(view).get(0);

    assertThat(delete.verb()).isEqualTo(CommandVerb.DELETE);
    assertThat(delete.deleteOptions().getPropagationPolicy()).isEqualTo("Foreground");
  }
}
