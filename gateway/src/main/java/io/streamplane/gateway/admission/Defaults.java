package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;

/**
 * The defaulting step of the request path, before admission: the body's {@code apiVersion} and
 * {@code kind} are the resource's, and its kind's strategy fills in what Kubernetes' {@code
 * SetDefaults_*} would ({@link io.streamplane.kinds.KindStrategy#applyDefaults}), so that {@code
 * kubectl get -o yaml} shows what a real cluster shows. After the mutating admission plugins, which
 * may have changed what it depends on, {@link #prepareForCreate} runs the strategy's
 * PrepareForCreate.
 *
 * <p>Changes the given node in place: it is the request's own copy. Applied on every write, and
 * idempotent, so defaulting an object already defaulted changes nothing.
 */
public final class Defaults {

  private Defaults() {}

  public static void apply(ResourceType type, ObjectNode object, boolean create) {
    object.put("apiVersion", type.groupVersion());
    object.put("kind", type.kind());
    type.strategy().applyDefaults(object, create);
  }

  public static void prepareForCreate(ResourceType type, ObjectNode object, UserInfo requester) {
    type.strategy().prepareForCreate(object, requester);
  }
}
