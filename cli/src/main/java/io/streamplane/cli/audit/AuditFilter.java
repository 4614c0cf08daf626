package io.streamplane.cli.audit;

import io.streamplane.log.AuditEvent;
import io.streamplane.log.ObjectRef;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Which audit events {@code streamplane audit} shows. Every given criterion must hold; a list
 * criterion holds when any of its values does. {@code resources} are plurals, alone ({@code pods}:
 * in any group) or with their group ({@code deployments.apps}); {@code codes} are response codes
 * ({@code 403}) or classes ({@code 4xx}); {@code since} and {@code until} bound the stage's time.
 * With no {@code stages}, each request's last event is shown: ResponseComplete, Panic, or the
 * ResponseStarted of a refused authentication (a 401 has no other event, as in Kubernetes).
 */
record AuditFilter(
    List<String> users,
    List<String> groups,
    List<String> verbs,
    List<String> resources,
    List<String> namespaces,
    List<String> names,
    List<String> codes,
    Instant since,
    Instant until,
    Set<String> stages) {

  AuditFilter {
    users = List.copyOf(users);
    groups = List.copyOf(groups);
    verbs = List.copyOf(verbs);
    resources = List.copyOf(resources);
    namespaces = List.copyOf(namespaces);
    names = List.copyOf(names);
    codes = List.copyOf(codes);
    stages = Set.copyOf(stages);
    for (String code : codes) {
      if (!code.matches("[1-5](\\d\\d|xx)")) {
        throw new IllegalArgumentException(
            "--code: '" + code + "' is neither a status code (403) nor a class (4xx)");
      }
    }
  }

  boolean matches(AuditEvent event) {
    if (!stageMatches(event)) {
      return false;
    }
    Instant at = event.getStageTimestamp();
    if ((since != null && at.isBefore(since)) || (until != null && at.isAfter(until))) {
      return false;
    }
    if (!users.isEmpty() && !users.contains(event.getUser().getUsername())) {
      return false;
    }
    if (!groups.isEmpty() && event.getUser().getGroups().stream().noneMatch(groups::contains)) {
      return false;
    }
    if (!verbs.isEmpty() && !verbs.contains(event.getVerb())) {
      return false;
    }
    ObjectRef ref = event.getObjectRef();
    if (!resources.isEmpty()
        && (ref == null || resources.stream().noneMatch(r -> resourceMatches(r, ref)))) {
      return false;
    }
    if (!namespaces.isEmpty()
        && (ref == null || !namespaces.contains(orEmpty(ref.getNamespace())))) {
      return false;
    }
    if (!names.isEmpty() && (ref == null || !names.contains(orEmpty(ref.getName())))) {
      return false;
    }
    if (!codes.isEmpty()) {
      int code = event.getResponseStatus() == null ? 0 : event.getResponseStatus().getCode();
      return codes.stream().anyMatch(c -> codeMatches(c, code));
    }
    return true;
  }

  private boolean stageMatches(AuditEvent event) {
    if (!stages.isEmpty()) {
      return stages.contains(event.getStage());
    }
    return switch (event.getStage()) {
      case "ResponseComplete", "Panic" -> true;
      case "ResponseStarted" ->
          event.getResponseStatus() != null && event.getResponseStatus().getCode() == 401;
      default -> false;
    };
  }

  private static boolean resourceMatches(String spec, ObjectRef ref) {
    int dot = spec.indexOf('.');
    String plural = dot < 0 ? spec : spec.substring(0, dot);
    if (!plural.equals(ref.getResource())) {
      return false;
    }
    return dot < 0 || spec.substring(dot + 1).equals(orEmpty(ref.getApiGroup()));
  }

  static boolean codeMatches(String spec, int code) {
    if (spec.endsWith("xx")) {
      return code / 100 == spec.charAt(0) - '0';
    }
    return Integer.toString(code).equals(spec);
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
