package io.streamplane.kinds.core;

import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.Container;
import io.streamplane.api.EphemeralContainer;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code pods/ephemeralcontainers} subresource, as kube-apiserver's ephemeral containers
 * strategy: a write changes {@code spec.ephemeralContainers} and nothing else, may only add to them
 * ({@code ValidatePodEphemeralContainersUpdate}), and each one is checked as {@code
 * validateEphemeralContainers} checks it: a unique DNS-1123 label as name, an image, none of the
 * fields an ephemeral container cannot have, a target container that exists.
 */
final class EphemeralContainers {

  static final String SUBRESOURCE = "ephemeralcontainers";

  private static final String PATH = "spec.ephemeralContainers";

  private EphemeralContainers() {}

  /** The stored pod with the ephemeral containers of the written one. */
  static Pod writeThrough(Pod written, Pod stored) {
    PodSpec spec = PodSpec.newBuilder(stored.getSpec()).build();
    spec.setEphemeralContainers(
        written.getSpec() == null ? null : written.getSpec().getEphemeralContainers());
    Pod updated = Pod.newBuilder(stored).build();
    updated.setSpec(spec);
    return updated;
  }

  static List<StatusCause> validateUpdate(Pod updated, Pod stored) {
    List<StatusCause> causes = new ArrayList<>();
    Map<String, EphemeralContainer> added = new LinkedHashMap<>();
    for (EphemeralContainer c : list(updated)) {
      added.put(c.getName(), c);
    }
    for (EphemeralContainer old : list(stored)) {
      EphemeralContainer now = added.get(old.getName());
      if (now == null) {
        causes.add(
            forbidden(
                PATH,
                "existing ephemeral containers " + quote(old.getName()) + " may not be removed"));
      } else if (!now.equals(old)) {
        causes.add(
            forbidden(
                PATH,
                "existing ephemeral containers " + quote(old.getName()) + " may not be changed"));
      }
    }
    Set<String> names = new HashSet<>(namesOf(updated.getSpec().getInitContainers()));
    names.addAll(namesOf(updated.getSpec().getContainers()));
    Set<String> targets = Set.copyOf(names);
    List<EphemeralContainer> all = list(updated);
    for (int i = 0; i < all.size(); i++) {
      EphemeralContainer c = all.get(i);
      String at = PATH + "[" + i + "]";
      String name = Objects.requireNonNullElse(c.getName(), "");
      if (name.isEmpty()) {
        causes.add(required(at + ".name"));
      } else {
        StatusCause label = Names.label(at + ".name", name);
        if (label != null) {
          causes.add(label);
        }
        if (!names.add(name)) {
          causes.add(duplicate(at + ".name", name));
        }
      }
      if (c.getImage() == null || c.getImage().isBlank()) {
        causes.add(required(at + ".image"));
      }
      forbid(causes, at + ".ports", c.getPorts() != null && !c.getPorts().isEmpty());
      forbid(causes, at + ".livenessProbe", c.getLivenessProbe() != null);
      forbid(causes, at + ".readinessProbe", c.getReadinessProbe() != null);
      forbid(causes, at + ".startupProbe", c.getStartupProbe() != null);
      forbid(causes, at + ".lifecycle", c.getLifecycle() != null);
      forbid(
          causes,
          at + ".resources",
          c.getResources() != null
              && ((c.getResources().getLimits() != null && !c.getResources().getLimits().isEmpty())
                  || (c.getResources().getRequests() != null
                      && !c.getResources().getRequests().isEmpty())));
      String target = c.getTargetContainerName();
      if (target != null && !target.isEmpty() && !targets.contains(target)) {
        causes.add(
            new StatusCause(
                "FieldValueNotFound", "Not found: " + quote(target), at + ".targetContainerName"));
      }
    }
    return causes;
  }

  private static void forbid(List<StatusCause> causes, String field, boolean set) {
    if (set) {
      causes.add(forbidden(field, "cannot be set for an Ephemeral Container"));
    }
  }

  private static List<EphemeralContainer> list(Pod pod) {
    List<EphemeralContainer> list =
        pod.getSpec() == null ? null : pod.getSpec().getEphemeralContainers();
    return list == null ? List.of() : list;
  }

  private static List<Container> containers(List<Container> list) {
    return list == null ? List.of() : list;
  }

  private static Set<String> namesOf(List<Container> list) {
    Set<String> names = new HashSet<>();
    containers(list).forEach(c -> names.add(c.getName()));
    return names;
  }
}
