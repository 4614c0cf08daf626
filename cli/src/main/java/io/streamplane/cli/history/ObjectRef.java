package io.streamplane.cli.history;

import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.schema.objects.ResourceKey;
import java.util.Locale;
import java.util.Optional;

/**
 * One object named on the command line as kubectl names it: {@code TYPE[.VERSION][.GROUP]/NAME},
 * where TYPE is a resource's plural, singular, short name or kind in any case ({@code
 * deployments/x}, {@code deploy/x}, {@code Deployment/x}, {@code deployments.apps/x}, {@code
 * deployments.v1.apps/x}, {@code po/x}), resolved through the gateway's {@link ResourceRegistry}.
 *
 * <p>Contract: a namespaced resource without {@code -n} is in {@code default}, as kubectl assumes
 * without a kubeconfig context; a cluster-scoped resource ignores the namespace, as kubectl does.
 * When several resources match, the first in discovery order wins (kubectl's priority order).
 */
public record ObjectRef(ResourceType type, String namespace, String name) {

  /** Resolves {@code kindSlashName} with the namespace given by {@code -n} (null if none). */
  public static ObjectRef parse(String kindSlashName, String namespace, ResourceRegistry registry) {
    int slash = kindSlashName.indexOf('/');
    if (slash <= 0
        || slash == kindSlashName.length() - 1
        || kindSlashName.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "expected KIND/NAME, such as deployment/nginx or po/web-0: '" + kindSlashName + "'");
    }
    String typeName = kindSlashName.substring(0, slash);
    String name = kindSlashName.substring(slash + 1);
    ResourceType type =
        resolve(typeName, registry)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "the server doesn't have a resource type \"" + typeName + "\""));
    String ns = type.namespaced() ? (namespace == null ? "default" : namespace) : "";
    return new ObjectRef(type, ns, name);
  }

  private static Optional<ResourceType> resolve(String typeName, ResourceRegistry registry) {
    String lower = typeName.toLowerCase(Locale.ROOT);
    int dot = lower.indexOf('.');
    String resource = dot < 0 ? lower : lower.substring(0, dot);
    String qualifier = dot < 0 ? null : lower.substring(dot + 1);
    return registry.all().stream()
        .filter(ResourceType::stored)
        .filter(t -> names(t, resource))
        .filter(t -> qualifier == null || qualifies(t, qualifier))
        .findFirst()
        .map(ResourceType::storage);
  }

  private static boolean names(ResourceType t, String resource) {
    return t.plural().equals(resource)
        || t.singular().equals(resource)
        || t.kind().toLowerCase(Locale.ROOT).equals(resource)
        || t.shortNames().contains(resource);
  }

  /** {@code apps} or {@code v1.apps} after the resource; the core group has no qualifier but v1. */
  private static boolean qualifies(ResourceType t, String qualifier) {
    return qualifier.equals(t.group())
        || qualifier.equals(t.version() + (t.group().isEmpty() ? "" : "." + t.group()));
  }

  /** The key of this object's records on {@code commands} and {@code events}. */
  public ResourceKey key() {
    return new ResourceKey(type.plural(), type.group(), namespace, name);
  }

  /** The object's path in the Kubernetes API: {@code /apis/apps/v1/namespaces/x/deployments/y}. */
  public String apiPath() {
    String root =
        type.group().isEmpty()
            ? "/api/" + type.version()
            : "/apis/" + type.group() + "/" + type.version();
    return root
        + (namespace.isEmpty() ? "" : "/namespaces/" + namespace)
        + "/"
        + type.plural()
        + "/"
        + name;
  }

  /** As kubectl writes it: {@code deployments.apps/nginx}, plus the namespace when there is one. */
  @Override
  public String toString() {
    String ref = type.qualifiedResource() + "/" + name;
    return namespace.isEmpty() ? ref : ref + " in namespace " + namespace;
  }
}
