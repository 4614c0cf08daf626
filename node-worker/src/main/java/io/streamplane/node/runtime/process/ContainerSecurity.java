package io.streamplane.node.runtime.process;

import io.streamplane.api.Capabilities;
import io.streamplane.api.Container;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSecurityContext;
import io.streamplane.api.SecurityContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The identity and privileges a container runs with, from the pod's and the container's security
 * contexts (the container's fields win, as kubelet's {@code DetermineEffectiveSecurityContext}).
 *
 * <p>Contract: {@code uid} is {@code runAsUser}, else 0 (every image of the catalog runs as root);
 * {@code gid} is {@code runAsGroup}, else 0; {@code groups} are {@code fsGroup} then {@code
 * supplementalGroups}. {@code capabilities} is the bounding set, as containerd computes it: the
 * default set, plus {@code add}, minus {@code drop} ({@code ALL} in {@code drop} empties it first,
 * {@code ALL} in {@code add} or {@code privileged} keeps every capability: {@code null}). {@code
 * noNewPrivileges} is {@code allowPrivilegeEscalation: false}. {@link #refusal} is kubelet's {@code
 * verifyRunAsNonRoot}: the message that keeps a container waiting in {@code
 * CreateContainerConfigError}.
 *
 * <p>Limits: the default set is containerd's without {@code MKNOD} and {@code NET_RAW}: the node
 * has no device control group to make a device node harmless, and pods share the host's network,
 * where a raw socket would see every pod's and the control plane's loopback traffic ({@code
 * capabilities.add} gives them back). Image users are not known (the catalog has none).
 */
record ContainerSecurity(
    long uid,
    long gid,
    List<Long> groups,
    List<String> capabilities,
    boolean noNewPrivileges,
    boolean privileged,
    boolean readOnlyRootFilesystem,
    Optional<String> refusal) {

  /** containerd's default capabilities but MKNOD and NET_RAW, as setpriv names them. */
  static final List<String> DEFAULT_CAPABILITIES =
      List.of(
          "chown",
          "dac_override",
          "fsetid",
          "fowner",
          "setgid",
          "setuid",
          "setfcap",
          "setpcap",
          "net_bind_service",
          "sys_chroot",
          "kill",
          "audit_write");

  ContainerSecurity {
    groups = List.copyOf(groups);
    capabilities = capabilities == null ? null : List.copyOf(capabilities);
  }

  static ContainerSecurity of(Pod pod, Container container) {
    PodSecurityContext podContext =
        pod.getSpec() == null ? null : pod.getSpec().getSecurityContext();
    SecurityContext context = container.getSecurityContext();
    Long runAsUser =
        first(context == null ? null : context.getRunAsUser(), podRunAsUser(podContext));
    Long runAsGroup =
        first(
            context == null ? null : context.getRunAsGroup(),
            podContext == null ? null : podContext.getRunAsGroup());
    Boolean runAsNonRoot =
        first(
            context == null ? null : context.getRunAsNonRoot(),
            podContext == null ? null : podContext.getRunAsNonRoot());
    List<Long> groups = new ArrayList<>();
    if (podContext != null && podContext.getFsGroup() != null) {
      groups.add(podContext.getFsGroup());
    }
    if (podContext != null && podContext.getSupplementalGroups() != null) {
      podContext.getSupplementalGroups().stream()
          .filter(g -> !groups.contains(g))
          .forEach(groups::add);
    }
    boolean privileged = context != null && Boolean.TRUE.equals(context.getPrivileged());
    return new ContainerSecurity(
        runAsUser == null ? 0 : runAsUser,
        runAsGroup == null ? 0 : runAsGroup,
        groups,
        privileged ? null : capabilities(context == null ? null : context.getCapabilities()),
        context != null && Boolean.FALSE.equals(context.getAllowPrivilegeEscalation()),
        privileged,
        context != null && Boolean.TRUE.equals(context.getReadOnlyRootFilesystem()),
        refusal(pod, container, runAsUser, runAsNonRoot));
  }

  private static Long podRunAsUser(PodSecurityContext podContext) {
    return podContext == null ? null : podContext.getRunAsUser();
  }

  /**
   * kubelet's wording; {@code format.Pod} prints a pod as {@code name_namespace(uid)}. The image's
   * user is root for every image the catalog knows.
   */
  private static Optional<String> refusal(
      Pod pod, Container container, Long runAsUser, Boolean runAsNonRoot) {
    if (!Boolean.TRUE.equals(runAsNonRoot)) {
      return Optional.empty();
    }
    String podName =
        "\""
            + pod.getMetadata().getName()
            + "_"
            + (pod.getMetadata().getNamespace() == null
                ? "default"
                : pod.getMetadata().getNamespace())
            + "("
            + (pod.getMetadata().getUid() == null ? "" : pod.getMetadata().getUid())
            + ")\"";
    if (runAsUser != null && runAsUser != 0) {
      return Optional.empty();
    }
    String what =
        runAsUser != null
            ? "container's runAsUser breaks non-root policy"
            : "container has runAsNonRoot and image will run as root";
    return Optional.of(what + " (pod: " + podName + ", container: " + container.getName() + ")");
  }

  /** The bounding set; null keeps every capability. */
  private static List<String> capabilities(Capabilities capabilities) {
    List<String> add =
        capabilities == null || capabilities.getAdd() == null
            ? List.of()
            : capabilities.getAdd().stream().map(ContainerSecurity::name).toList();
    List<String> drop =
        capabilities == null || capabilities.getDrop() == null
            ? List.of()
            : capabilities.getDrop().stream().map(ContainerSecurity::name).toList();
    if (add.contains("all")) {
      return null;
    }
    Set<String> set = new LinkedHashSet<>(drop.contains("all") ? List.of() : DEFAULT_CAPABILITIES);
    set.addAll(add);
    drop.forEach(set::remove);
    return List.copyOf(set);
  }

  /** {@code NET_ADMIN} and {@code CAP_NET_ADMIN} are {@code net_admin} to setpriv. */
  private static String name(String capability) {
    String lower = capability.trim().toLowerCase(Locale.ROOT);
    return lower.startsWith("cap_") ? lower.substring(4) : lower;
  }

  private static <T> T first(T preferred, T fallback) {
    return preferred != null ? preferred : fallback;
  }

  /**
   * util-linux {@code setpriv}'s arguments that make the process this identity: user, group,
   * supplementary groups, no_new_privs and the bounding set (inheritable capabilities cleared).
   */
  List<String> setprivArguments() {
    List<String> args = new ArrayList<>();
    args.add("--reuid=" + uid);
    args.add("--regid=" + gid);
    if (groups.isEmpty()) {
      args.add("--clear-groups");
    } else {
      args.add("--groups=" + String.join(",", groups.stream().map(String::valueOf).toList()));
    }
    if (noNewPrivileges) {
      args.add("--no-new-privs");
    }
    if (capabilities != null) {
      StringBuilder bounding = new StringBuilder("-all");
      capabilities.forEach(c -> bounding.append(",+").append(c));
      args.add("--bounding-set=" + bounding);
      args.add("--inh-caps=-all");
    }
    return args;
  }
}
