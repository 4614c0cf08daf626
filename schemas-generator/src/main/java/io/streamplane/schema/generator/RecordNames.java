package io.streamplane.schema.generator;

import com.google.protobuf.Descriptors.Descriptor;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Avro record name of each Kubernetes message: the one place that says how a name shared by two
 * API groups is told apart.
 *
 * <p>A message is named by its simple name ({@code PodSpec}, {@code ObjectMeta}). When several
 * messages reached from the stored kinds share a simple name, the one whose package comes first in
 * {@link #PRECEDENCE} keeps it, and every other is named {@code <Group><Version><Name>}, as the
 * official Java client names the same collisions: events.k8s.io/v1's Event next to core/v1's would
 * be {@code EventsV1Event}, flowcontrol's Subject next to rbac's {@code FlowcontrolV1Subject}.
 */
public final class RecordNames {

  /**
   * Packages in order of precedence for a shared simple name: meta/v1, then the packages of the
   * stored kinds in the order of {@link StoredKinds#all()}. A package not listed comes after all of
   * these.
   */
  static final List<String> PRECEDENCE =
      List.of(
          "k8s.io.apimachinery.pkg.apis.meta.v1",
          "k8s.io.api.core.v1",
          "k8s.io.api.apps.v1",
          "k8s.io.api.coordination.v1",
          "k8s.io.api.rbac.v1",
          "k8s.io.api.admissionregistration.v1",
          "k8s.io.api.scheduling.v1",
          "k8s.io.api.networking.v1",
          "k8s.io.api.storage.v1",
          "k8s.io.api.certificates.v1",
          "k8s.io.api.node.v1",
          "k8s.io.api.flowcontrol.v1",
          "k8s.io.api.discovery.v1",
          "k8s.io.api.networking.v1beta1",
          "k8s.io.api.batch.v1");

  private final Map<String, String> names = new HashMap<>();

  /** Names every message of {@code messages}, seeing them all so collisions are known. */
  public RecordNames(Collection<Descriptor> messages) {
    Map<String, List<Descriptor>> bySimpleName =
        messages.stream().distinct().collect(Collectors.groupingBy(Descriptor::getName));
    for (List<Descriptor> sharing : bySimpleName.values()) {
      List<Descriptor> ordered =
          sharing.stream()
              .sorted(
                  Comparator.comparingInt(RecordNames::precedence)
                      .thenComparing(Descriptor::getFullName))
              .toList();
      names.put(ordered.get(0).getFullName(), ordered.get(0).getName());
      for (Descriptor other : ordered.subList(1, ordered.size())) {
        names.put(other.getFullName(), qualified(other));
      }
    }
  }

  /** The record name of a message given to the constructor. */
  public String of(Descriptor message) {
    String name = names.get(message.getFullName());
    if (name == null) {
      throw new IllegalArgumentException("not named: " + message.getFullName());
    }
    return name;
  }

  /** Whether a message given to the constructor has this record name. */
  boolean uses(String name) {
    return names.containsValue(name);
  }

  private static int precedence(Descriptor message) {
    int index = PRECEDENCE.indexOf(message.getFile().getPackage());
    return index < 0 ? PRECEDENCE.size() : index;
  }

  /**
   * {@code <Group><Version><Name>}: {@code k8s.io.api.events.v1.Event} is {@code EventsV1Event}.
   */
  static String qualified(Descriptor message) {
    return capitalize(group(message)) + capitalize(version(message)) + message.getName();
  }

  /**
   * The API group's short name of a message's package: {@code core} for k8s.io.api.core.v1, {@code
   * meta} for apimachinery's meta/v1, {@code flowcontrol} for k8s.io.api.flowcontrol.v1.
   */
  static String group(Descriptor message) {
    String[] parts = message.getFile().getPackage().split("\\.");
    return parts.length >= 2 ? parts[parts.length - 2] : parts[0];
  }

  /** The version of a message's package: {@code v1}, {@code v1beta1}. */
  static String version(Descriptor message) {
    String[] parts = message.getFile().getPackage().split("\\.");
    return parts[parts.length - 1];
  }

  static String capitalize(String word) {
    return word.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }
}
