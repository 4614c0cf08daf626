package io.streamplane.kinds;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
    KindStrategy strategy,
    View view) {

  /** A subresource such as {@code status}, {@code scale} or {@code log}. */
  public record Subresource(
      String name, String group, String version, String kind, List<String> verbs) {

    public String groupVersion() {
      return group.isEmpty() ? version : group + "/" + version;
    }
  }

  /**
   * A served version whose objects are stored as another row's: kube-apiserver's conversion through
   * the internal version, here from this version's JSON to the storage version's and back. The log,
   * the store and the caches know only {@code storage}; a request to this version is converted at
   * the registry's edge, so what one version writes the other reads.
   */
  public record View(ResourceType storage, Conversion conversion) {
    public View {
      Objects.requireNonNull(storage, "storage");
      Objects.requireNonNull(conversion, "conversion");
      if (storage.view() != null) {
        throw new IllegalArgumentException(storage.qualifiedKind() + " is itself a view");
      }
    }
  }

  /** Converts a kind's JSON between a served version and its storage version. */
  public interface Conversion {
    /** This version's object (changed in place or copied) as the storage version writes it. */
    ObjectNode toStorage(ObjectNode served);

    /** The storage version's object as this version shows it (a copy; the argument is shared). */
    ObjectNode fromStorage(ObjectNode stored);
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
        KindStrategy.DEFAULT,
        null);
  }

  /** The same resource with the behaviour of {@code strategy}. */
  public ResourceType withStrategy(KindStrategy strategy) {
    return copy(avroClass, strategy, view);
  }

  /**
   * This resource, served from {@code storage}'s objects through {@code conversion}: same names in
   * its own group-version, nothing stored of its own.
   */
  public ResourceType viewOf(ResourceType storage, Conversion conversion) {
    return copy(storage.avroClass(), strategy, new View(storage, conversion));
  }

  private ResourceType copy(
      Class<? extends SpecificRecord> avroClass, KindStrategy strategy, View view) {
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
        strategy,
        view);
  }

  /** The row whose objects the log and the store hold for this resource: itself unless a view. */
  public ResourceType storage() {
    return view == null ? this : view.storage();
  }

  /**
   * An object of the storage version as this version shows it: defaulted as the storage version
   * reads it ({@link KindStrategy#defaultedOnRead}), converted, and defaulted as this version reads
   * it. {@code stored} is not changed; the result may be it.
   */
  public ObjectNode fromStorage(ObjectNode stored) {
    if (view == null) {
      return strategy.defaultedOnRead(stored);
    }
    ObjectNode defaulted = view.storage().strategy().defaultedOnRead(stored);
    return strategy.defaultedOnRead(view.conversion().fromStorage(defaulted));
  }

  /** An object of this version as the storage version writes it. */
  public ObjectNode toStorage(ObjectNode served) {
    return view == null ? served : view.conversion().toStorage(served);
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

  /** Whether requests to it are stored (its own objects, or a storage version's if a view). */
  public boolean stored() {
    return avroClass != null;
  }

  /**
   * Whether it is only read, never stored nor created: the resource metrics of {@code
   * metrics.k8s.io}, which the gateway measures (metrics-server's API in Kubernetes).
   */
  public boolean measured() {
    return avroClass == null && !verbs.contains("create");
  }

  /** Whether it serves another row's objects under its own names ({@link View}). */
  public boolean isView() {
    return view != null;
  }

  public Optional<Subresource> subresource(String name) {
    return subresources.stream().filter(s -> s.name().equals(name)).findFirst();
  }
}
