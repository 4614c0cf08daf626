package io.streamplane.kinds;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;

/**
 * One row of the table of kinds: a resource as kube-apiserver's discovery describes it (names,
 * scope, verbs, subresources, the generated class it is stored as) and its kind's behaviour, the
 * {@link KindStrategy}.
 *
 * <p>Contract: immutable; {@code group} is "" for the core group. {@code avroClass} is null for
 * virtual resources that are answered but never stored (the access reviews behind {@code kubectl
 * auth can-i}); {@link #stored()} says which. Subresources carry their own response kind because
 * {@code scale} answers with {@code autoscaling/v1 Scale}, not with the parent kind.
 */
public record ResourceType(
    String group,
    String version,
    String kind,
    String plural,
    String singular,
    List<String> shortNames,
    boolean namespaced,
    List<String> categories,
    List<String> verbs,
    Class<? extends SpecificRecord> avroClass,
    List<Subresource> subresources,
    KindStrategy strategy) {

  /** A subresource such as {@code status}, {@code scale} or {@code log}. */
  public record Subresource(
      String name, String group, String version, String kind, List<String> verbs) {

    public String groupVersion() {
      return group.isEmpty() ? version : group + "/" + version;
    }
  }

  public ResourceType {
    Objects.requireNonNull(strategy, "strategy");
    shortNames = List.copyOf(shortNames);
    categories = List.copyOf(categories);
    verbs = List.copyOf(verbs);
    subresources = List.copyOf(subresources);
  }

  /** A resource whose kind has no behaviour of its own ({@link KindStrategy#DEFAULT}). */
  public ResourceType(
      String group,
      String version,
      String kind,
      String plural,
      String singular,
      List<String> shortNames,
      boolean namespaced,
      List<String> categories,
      List<String> verbs,
      Class<? extends SpecificRecord> avroClass,
      List<Subresource> subresources) {
    this(
        group,
        version,
        kind,
        plural,
        singular,
        shortNames,
        namespaced,
        categories,
        verbs,
        avroClass,
        subresources,
        KindStrategy.DEFAULT);
  }

  /** The same resource with the behaviour of {@code strategy}. */
  public ResourceType withStrategy(KindStrategy strategy) {
    return new ResourceType(
        group,
        version,
        kind,
        plural,
        singular,
        shortNames,
        namespaced,
        categories,
        verbs,
        avroClass,
        subresources,
        strategy);
  }

  /** "v1" for the core group, "apps/v1" otherwise: the {@code apiVersion} of the kind. */
  public String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The URL prefix of the group-version: {@code /api/v1} or {@code /apis/apps/v1}. */
  public String groupVersionPath() {
    return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
  }

  public String listKind() {
    return kind + "List";
  }

  /**
   * The resource as Kubernetes names it in messages: "pods" in the core group, "deployments.apps"
   * elsewhere (schema.GroupResource.String()).
   */
  public String qualifiedResource() {
    return group.isEmpty() ? plural : plural + "." + group;
  }

  /** The kind as Kubernetes names it in messages: "Pod", "Deployment.apps" (GroupKind.String()). */
  public String qualifiedKind() {
    return group.isEmpty() ? kind : kind + "." + group;
  }

  public boolean stored() {
    return avroClass != null;
  }

  public Optional<Subresource> subresource(String name) {
    return subresources.stream().filter(s -> s.name().equals(name)).findFirst();
  }
}
