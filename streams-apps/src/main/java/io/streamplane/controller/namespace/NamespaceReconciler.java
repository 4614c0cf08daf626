package io.streamplane.controller.namespace;

import io.streamplane.api.Namespace;
import io.streamplane.api.NamespaceSpec;
import io.streamplane.controller.Intent;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' namespace controller: once a namespace is being deleted (Terminating), delete
 * everything in it; once nothing is left, remove the {@code kubernetes} finalizer from its spec,
 * upon which the store removes the namespace. {@code members} are the objects in the namespace, as
 * their last creation or deletion-marking event.
 */
public final class NamespaceReconciler {

  static final String FINALIZER = "kubernetes";

  private NamespaceReconciler() {}

  public static boolean terminating(Namespace namespace) {
    return namespace != null
        && namespace.getMetadata() != null
        && namespace.getMetadata().getDeletionTimestamp() != null;
  }

  public static List<Intent> reconcile(Namespace namespace, List<ResourceEvent> members) {
    List<Intent> intents = new ArrayList<>();
    if (!terminating(namespace)) {
      return intents;
    }
    for (ResourceEvent event : members) {
      SpecificRecord object = (SpecificRecord) KindObjects.of(event);
      if (KubeObjects.meta(object).getDeletionTimestamp() == null) {
        intents.add(Intent.delete(event.getResource(), event.getGroup(), object, "Background"));
      }
    }
    List<String> finalizers =
        namespace.getSpec() == null || namespace.getSpec().getFinalizers() == null
            ? List.of()
            : namespace.getSpec().getFinalizers();
    if (members.isEmpty() && finalizers.contains(FINALIZER)) {
      List<String> remaining = new ArrayList<>(finalizers);
      remaining.remove(FINALIZER);
      Namespace finalized = KubeObjects.copy(namespace);
      finalized.setSpec(NamespaceSpec.newBuilder().setFinalizers(remaining).build());
      intents.add(Intent.update("namespaces", "", finalized));
    }
    return intents;
  }
}
