package io.streamplane.controller;

import io.streamplane.log.CommandVerb;
import io.streamplane.log.DeleteOptions;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import org.apache.avro.specific.SpecificRecord;

/**
 * A change a controller decides on, before it becomes a {@code ResourceCommand}: the verb, the
 * resource it is about, and the object (for creates and updates) or the delete options.
 *
 * <p>Controllers are idempotent through the store: creates use deterministic names (a repeat is
 * AlreadyExists), updates carry the resourceVersion they were computed from (a repeat, or one
 * computed from a stale view, is a Conflict), deletes carry the uid. So a decision taken twice — on
 * a replay, or before the controller has seen the effect of its last one — changes nothing.
 */
public record Intent(
    CommandVerb verb,
    String resource,
    String group,
    String namespace,
    String name,
    SpecificRecord object,
    DeleteOptions deleteOptions,
    Preconditions preconditions) {

  public static Intent create(String resource, String group, SpecificRecord object) {
    return write(CommandVerb.CREATE, resource, group, object);
  }

  /** An update of the whole object, guarded by the resourceVersion it carries. */
  public static Intent update(String resource, String group, SpecificRecord object) {
    return write(CommandVerb.UPDATE, resource, group, object);
  }

  /** A status update, guarded by the resourceVersion the object carries. */
  public static Intent updateStatus(String resource, String group, SpecificRecord object) {
    return write(CommandVerb.UPDATE_STATUS, resource, group, object);
  }

  private static Intent write(
      CommandVerb verb, String resource, String group, SpecificRecord object) {
    var meta = KubeObjects.meta(object);
    return new Intent(
        verb, resource, group, meta.getNamespace(), meta.getName(), object, null, null);
  }

  /** The command that carries this intent, written by {@code actor}. */
  public ResourceCommand toCommand(String id, UserInfo actor) {
    return ResourceCommand.newBuilder()
        .setId(id)
        .setVerb(verb)
        .setResource(resource)
        .setGroup(group)
        .setNamespace(namespace)
        .setName(name)
        .setEncodedObject(KindObjects.encode(object))
        .setDeleteOptions(deleteOptions)
        .setPreconditions(preconditions)
        .setActor(actor)
        .build();
  }

  /** A delete of exactly this object (its uid), with a propagation policy (null: default). */
  public static Intent delete(
      String resource, String group, SpecificRecord object, String propagationPolicy) {
    var meta = KubeObjects.meta(object);
    return new Intent(
        CommandVerb.DELETE,
        resource,
        group,
        meta.getNamespace(),
        meta.getName(),
        null,
        DeleteOptions.newBuilder().setPropagationPolicy(propagationPolicy).build(),
        Preconditions.newBuilder().setUid(meta.getUid()).build());
  }
}
