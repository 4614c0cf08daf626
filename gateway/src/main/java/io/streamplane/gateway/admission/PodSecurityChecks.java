package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The Pod Security Standards' checks over a pod spec (Kubernetes JSON), with the reasons and
 * details of Kubernetes' pod-security-admission, in its order: the baseline checks, then the
 * restricted ones, each level's by check id.
 *
 * <p>Limits: the AppArmor, SELinux and Windows hostProcess checks are not made (the process runtime
 * has none of them); ephemeral containers are checked with the others.
 */
final class PodSecurityChecks {

  private PodSecurityChecks() {}

  /** A level of the Pod Security Standards. */
  enum Level {
    PRIVILEGED,
    BASELINE,
    RESTRICTED;

    static Level parse(String label) {
      return switch (label) {
        case "baseline" -> BASELINE;
        case "restricted" -> RESTRICTED;
        case "privileged" -> PRIVILEGED;
        default -> null;
      };
    }

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One failed check: {@code reason (detail)} in the forbidden message. */
  record Violation(String reason, String detail) {
    @Override
    public String toString() {
      return detail.isEmpty() ? reason : reason + " (" + detail + ")";
    }
  }

  /** Capabilities a baseline container may add: containerd's and Docker's default set. */
  private static final Set<String> BASELINE_CAPABILITIES =
      Set.of(
          "AUDIT_WRITE",
          "CHOWN",
          "DAC_OVERRIDE",
          "FOWNER",
          "FSETID",
          "KILL",
          "MKNOD",
          "NET_BIND_SERVICE",
          "SETFCAP",
          "SETGID",
          "SETPCAP",
          "SETUID",
          "SYS_CHROOT");

  private static final Set<String> SAFE_SYSCTLS =
      Set.of(
          "kernel.shm_rmid_forced",
          "net.ipv4.ip_local_port_range",
          "net.ipv4.ip_unprivileged_port_start",
          "net.ipv4.tcp_syncookies",
          "net.ipv4.ping_group_range",
          "net.ipv4.ip_local_reserved_ports",
          "net.ipv4.tcp_keepalive_time",
          "net.ipv4.tcp_fin_timeout",
          "net.ipv4.tcp_keepalive_intvl",
          "net.ipv4.tcp_keepalive_probes");

  private static final Set<String> RESTRICTED_VOLUME_SOURCES =
      Set.of(
          "configMap",
          "csi",
          "downwardAPI",
          "emptyDir",
          "ephemeral",
          "persistentVolumeClaim",
          "projected",
          "secret");

  /** Everything in {@code spec} that {@code level} forbids, in Kubernetes' order. */
  static List<Violation> check(JsonNode spec, Level level) {
    List<Violation> violations = new ArrayList<>();
    if (level == Level.PRIVILEGED) {
      return violations;
    }
    List<JsonNode> containers = containers(spec);
    JsonNode podContext = spec.path("securityContext");
    // Baseline, by check id; the restricted capabilities and seccomp checks replace the
    // baseline ones.
    if (level == Level.BASELINE) {
      capabilitiesBaseline(containers, violations);
    }
    hostNamespaces(spec, violations);
    hostPathVolumes(spec, violations);
    hostPorts(containers, violations);
    add(
        violations,
        "privileged",
        containersWhere(
            containers, c -> c.path("securityContext").path("privileged").asBoolean(false)),
        " must not set securityContext.privileged=true");
    add(
        violations,
        "procMount",
        containersWhere(
            containers,
            c -> {
              String m = c.path("securityContext").path("procMount").asText("Default");
              return !m.equals("Default");
            }),
        " must not set securityContext.procMount to \"Unmasked\"");
    if (level == Level.BASELINE) {
      seccompBaseline(podContext, containers, violations);
    }
    sysctls(podContext, violations);
    if (level == Level.BASELINE) {
      return violations;
    }
    // Restricted, by check id.
    add(
        violations,
        "allowPrivilegeEscalation != false",
        containersWhere(
            containers,
            c -> {
              JsonNode a = c.path("securityContext").path("allowPrivilegeEscalation");
              return !(a.isBoolean() && !a.asBoolean());
            }),
        " must set securityContext.allowPrivilegeEscalation=false");
    capabilitiesRestricted(containers, violations);
    restrictedVolumes(spec, violations);
    runAsNonRoot(podContext, containers, violations);
    runAsUser(podContext, containers, violations);
    seccompRestricted(podContext, containers, violations);
    return violations;
  }

  private static List<JsonNode> containers(JsonNode spec) {
    List<JsonNode> all = new ArrayList<>();
    for (String list : List.of("initContainers", "containers", "ephemeralContainers")) {
      spec.path(list).forEach(all::add);
    }
    return all;
  }

  private static List<String> containersWhere(
      List<JsonNode> containers, java.util.function.Predicate<JsonNode> test) {
    return containers.stream().filter(test).map(c -> c.path("name").asText("")).toList();
  }

  /** {@code container "a"} or {@code containers "a", "b"}. */
  private static String named(String noun, List<String> names) {
    return (names.size() == 1 ? noun : noun + "s")
        + " "
        + names.stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(", "));
  }

  private static void add(
      List<Violation> violations, String reason, List<String> names, String rule) {
    if (!names.isEmpty()) {
      violations.add(new Violation(reason, named("container", names) + rule));
    }
  }

  private static void capabilitiesBaseline(List<JsonNode> containers, List<Violation> violations) {
    Map<String, Set<String>> added = new LinkedHashMap<>();
    Set<String> capabilities = new LinkedHashSet<>();
    for (JsonNode c : containers) {
      for (JsonNode cap : c.path("securityContext").path("capabilities").path("add")) {
        if (!BASELINE_CAPABILITIES.contains(cap.asText())) {
          added.computeIfAbsent(c.path("name").asText(""), n -> new TreeSet<>()).add(cap.asText());
          capabilities.add(cap.asText());
        }
      }
    }
    if (!added.isEmpty()) {
      violations.add(
          new Violation(
              "non-default capabilities",
              named("container", List.copyOf(added.keySet()))
                  + " must not include "
                  + new TreeSet<>(capabilities)
                      .stream().map(c -> "\"" + c + "\"").collect(Collectors.joining(", "))
                  + " in securityContext.capabilities.add"));
    }
  }

  private static void hostNamespaces(JsonNode spec, List<Violation> violations) {
    List<String> set = new ArrayList<>();
    for (String field : List.of("hostNetwork", "hostPID", "hostIPC")) {
      if (spec.path(field).asBoolean(false)) {
        set.add(field + "=true");
      }
    }
    if (!set.isEmpty()) {
      violations.add(new Violation("host namespaces", String.join(", ", set)));
    }
  }

  private static void hostPathVolumes(JsonNode spec, List<Violation> violations) {
    List<String> names = new ArrayList<>();
    for (JsonNode volume : spec.path("volumes")) {
      if (volume.path("hostPath").isObject()) {
        names.add(volume.path("name").asText(""));
      }
    }
    if (!names.isEmpty()) {
      violations.add(new Violation("hostPath volumes", named("volume", names)));
    }
  }

  private static void hostPorts(List<JsonNode> containers, List<Violation> violations) {
    List<String> names = new ArrayList<>();
    List<String> ports = new ArrayList<>();
    for (JsonNode c : containers) {
      boolean uses = false;
      for (JsonNode port : c.path("ports")) {
        int hostPort = port.path("hostPort").asInt(0);
        if (hostPort != 0) {
          uses = true;
          ports.add(Integer.toString(hostPort));
        }
      }
      if (uses) {
        names.add(c.path("name").asText(""));
      }
    }
    if (!names.isEmpty()) {
      violations.add(
          new Violation(
              "hostPort",
              named("container", names)
                  + (names.size() == 1 ? " uses " : " use ")
                  + (ports.size() == 1 ? "hostPort " : "hostPorts ")
                  + String.join(", ", ports)));
    }
  }

  private static void seccompBaseline(
      JsonNode podContext, List<JsonNode> containers, List<Violation> violations) {
    List<String> parts = new ArrayList<>();
    if (podContext.path("seccompProfile").path("type").asText("").equals("Unconfined")) {
      parts.add("pod");
    }
    List<String> names =
        containersWhere(
            containers,
            c ->
                c.path("securityContext")
                    .path("seccompProfile")
                    .path("type")
                    .asText("")
                    .equals("Unconfined"));
    if (!names.isEmpty()) {
      parts.add(named("container", names));
    }
    if (!parts.isEmpty()) {
      violations.add(
          new Violation(
              "seccompProfile",
              String.join(" and ", parts)
                  + " must not set securityContext.seccompProfile.type to \"Unconfined\""));
    }
  }

  private static void sysctls(JsonNode podContext, List<Violation> violations) {
    List<String> forbidden = new ArrayList<>();
    for (JsonNode sysctl : podContext.path("sysctls")) {
      String name = sysctl.path("name").asText("");
      if (!SAFE_SYSCTLS.contains(name)) {
        forbidden.add(name);
      }
    }
    if (!forbidden.isEmpty()) {
      violations.add(new Violation("forbidden sysctls", String.join(", ", forbidden)));
    }
  }

  private static void capabilitiesRestricted(
      List<JsonNode> containers, List<Violation> violations) {
    List<String> notDropping = new ArrayList<>();
    Map<String, Set<String>> adding = new LinkedHashMap<>();
    for (JsonNode c : containers) {
      JsonNode capabilities = c.path("securityContext").path("capabilities");
      boolean dropsAll = false;
      for (JsonNode drop : capabilities.path("drop")) {
        dropsAll |= drop.asText().equals("ALL");
      }
      if (!dropsAll) {
        notDropping.add(c.path("name").asText(""));
      }
      for (JsonNode add : capabilities.path("add")) {
        if (!add.asText().equals("NET_BIND_SERVICE")) {
          adding.computeIfAbsent(c.path("name").asText(""), n -> new TreeSet<>()).add(add.asText());
        }
      }
    }
    List<String> details = new ArrayList<>();
    if (!notDropping.isEmpty()) {
      details.add(
          named("container", notDropping)
              + " must set securityContext.capabilities.drop=[\"ALL\"]");
    }
    if (!adding.isEmpty()) {
      Set<String> capabilities = new TreeSet<>();
      adding.values().forEach(capabilities::addAll);
      details.add(
          named("container", List.copyOf(adding.keySet()))
              + " must not include "
              + capabilities.stream().map(c -> "\"" + c + "\"").collect(Collectors.joining(", "))
              + " in securityContext.capabilities.add");
    }
    if (!details.isEmpty()) {
      violations.add(new Violation("unrestricted capabilities", String.join("; ", details)));
    }
  }

  private static void restrictedVolumes(JsonNode spec, List<Violation> violations) {
    List<String> details = new ArrayList<>();
    for (JsonNode volume : spec.path("volumes")) {
      for (var it = volume.fieldNames(); it.hasNext(); ) {
        String source = it.next();
        if (!source.equals("name") && !RESTRICTED_VOLUME_SOURCES.contains(source)) {
          details.add(
              "volume \""
                  + volume.path("name").asText("")
                  + "\" uses restricted volume type \""
                  + source
                  + "\"");
        }
      }
    }
    if (!details.isEmpty()) {
      violations.add(new Violation("restricted volume types", String.join(", ", details)));
    }
  }

  /**
   * runAsNonRoot must be true for the pod, or for every container that does not inherit it; a pod
   * or container setting it to false is named as such.
   */
  private static void runAsNonRoot(
      JsonNode podContext, List<JsonNode> containers, List<Violation> violations) {
    JsonNode pod = podContext.path("runAsNonRoot");
    boolean podTrue = pod.isBoolean() && pod.asBoolean();
    List<String> explicitFalse = new ArrayList<>();
    if (pod.isBoolean() && !pod.asBoolean()) {
      explicitFalse.add("pod");
    }
    Function<JsonNode, JsonNode> own = c -> c.path("securityContext").path("runAsNonRoot");
    List<String> containersFalse =
        containersWhere(containers, c -> own.apply(c).isBoolean() && !own.apply(c).asBoolean());
    if (!containersFalse.isEmpty()) {
      explicitFalse.add(named("container", containersFalse));
    }
    List<String> unset =
        podTrue ? List.of() : containersWhere(containers, c -> !own.apply(c).isBoolean());
    if (!explicitFalse.isEmpty()) {
      violations.add(
          new Violation(
              "runAsNonRoot != true",
              String.join(" and ", explicitFalse)
                  + " must not set securityContext.runAsNonRoot=false"));
    } else if (!unset.isEmpty()) {
      violations.add(
          new Violation(
              "runAsNonRoot != true",
              "pod or "
                  + named("container", unset)
                  + " must set securityContext.runAsNonRoot=true"));
    }
  }

  private static void runAsUser(
      JsonNode podContext, List<JsonNode> containers, List<Violation> violations) {
    List<String> parts = new ArrayList<>();
    if (podContext.has("runAsUser") && podContext.path("runAsUser").asLong(-1) == 0) {
      parts.add("pod");
    }
    List<String> names =
        containersWhere(
            containers,
            c ->
                c.path("securityContext").has("runAsUser")
                    && c.path("securityContext").path("runAsUser").asLong(-1) == 0);
    if (!names.isEmpty()) {
      parts.add(named("container", names));
    }
    if (!parts.isEmpty()) {
      violations.add(
          new Violation("runAsUser=0", String.join(" and ", parts) + " must not set runAsUser=0"));
    }
  }

  private static void seccompRestricted(
      JsonNode podContext, List<JsonNode> containers, List<Violation> violations) {
    Set<String> allowed = Set.of("RuntimeDefault", "Localhost");
    String podType = podContext.path("seccompProfile").path("type").asText("");
    boolean podOk = allowed.contains(podType);
    List<String> parts = new ArrayList<>();
    if (!podType.isEmpty() && !podOk) {
      parts.add("pod");
    }
    List<String> bad =
        containersWhere(
            containers,
            c -> {
              String type =
                  c.path("securityContext").path("seccompProfile").path("type").asText("");
              return type.isEmpty() ? !podOk : !allowed.contains(type);
            });
    if (parts.isEmpty() && !bad.isEmpty() && podType.isEmpty()) {
      violations.add(
          new Violation(
              "seccompProfile",
              "pod or "
                  + named("container", bad)
                  + " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or"
                  + " \"Localhost\""));
      return;
    }
    if (!bad.isEmpty()) {
      parts.add(named("container", bad));
    }
    if (!parts.isEmpty()) {
      violations.add(
          new Violation(
              "seccompProfile",
              String.join(" and ", parts)
                  + " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or"
                  + " \"Localhost\""));
    }
  }
}
