package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.bench.chaos.Ledger.Outcome;
import io.streamplane.bench.chaos.RegisterChecker.Kind;
import io.streamplane.bench.chaos.RegisterChecker.Result;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The checks of a chaos run, each against the log (what was committed) and the ledger (what the
 * clients were told): acknowledged writes lost, per-register linearizability, watch streams, and
 * whether the API serves what the log holds.
 */
final class ChaosChecks {

  private ChaosChecks() {}

  /**
   * Acknowledged writes whose effect is not in the log: a create or update answered 2xx whose
   * resourceVersion (and, for ConfigMaps, value) no event of that object carries; a delete answered
   * 2xx with no DELETED event of the object after the version it named (or, without a precondition,
   * at all).
   */
  static List<String> lostWrites(List<Ledger.Op> ops, LogHistory log) {
    List<String> lost = new ArrayList<>();
    for (Ledger.Op op : ops) {
      if (!op.isWrite() || op.outcome() != Outcome.OK) {
        continue;
      }
      List<LogHistory.Event> events = log.of(op.key());
      if (op.kind().endsWith("-delete")) {
        boolean found = false;
        for (int i = 0; i < events.size(); i++) {
          LogHistory.Event e = events.get(i);
          if (e.type().equals("DELETED")
              && (op.precondition() == null
                  || (i > 0 && events.get(i - 1).version().equals(op.precondition())))) {
            found = true;
            break;
          }
        }
        if (!found) {
          lost.add(describe(op) + ": no DELETED event in the log");
        }
        continue;
      }
      if (op.version() == null) {
        lost.add(describe(op) + ": answered without a resourceVersion");
        continue;
      }
      LogHistory.Event e = log.find(op.key(), op.version(), "MODIFIED");
      if (e == null) {
        e = log.find(op.key(), op.version(), "ADDED");
      }
      if (e == null) {
        lost.add(describe(op) + ": no event with resourceVersion " + op.version() + " in the log");
      } else if (op.resource().equals("configmaps") && !Objects.equals(e.value(), op.written())) {
        lost.add(
            describe(op)
                + ": the log's resourceVersion "
                + op.version()
                + " holds "
                + e.value()
                + ", not "
                + op.written());
      }
    }
    return lost;
  }

  static String describe(Ledger.Op op) {
    return op.kind()
        + " "
        + op.name()
        + " #"
        + op.id()
        + " (client "
        + op.client()
        + ", "
        + op.gateway()
        + (op.precondition() == null ? "" : ", precondition " + op.precondition())
        + ")";
  }

  /** The verdict per register, and the operations checked. */
  record Linearizability(
      Map<String, RegisterChecker.Verdict> verdicts, int checked, int resolved, int dropped) {
    long failed() {
      return verdicts.values().stream().filter(v -> !v.linearizable()).count();
    }
  }

  /**
   * Checks each register ConfigMap's history. Operations with an unknown outcome are resolved with
   * the log: a create or update whose unique value the log holds took effect at that version (and
   * is checked as an operation that never completed); a delete took effect when the log deletes the
   * object right after the version it named and no acknowledged delete names that version; the rest
   * are left out.
   */
  static Linearizability linearizability(List<Ledger.Op> ops, LogHistory log, int registers) {
    Map<String, RegisterChecker.Verdict> verdicts = new TreeMap<>();
    int checked = 0;
    int resolved = 0;
    int dropped = 0;
    for (int r = 0; r < registers; r++) {
      String name = Workload.register(r);
      List<Ledger.Op> mine =
          ops.stream()
              .filter(o -> o.resource().equals("configmaps") && o.name().equals(name))
              .toList();
      if (mine.isEmpty()) {
        continue;
      }
      String key = mine.get(0).key();
      List<LogHistory.Event> events = log.of(key);
      Map<String, LogHistory.Event> byValue = new HashMap<>();
      Map<String, Integer> deletedAfter = new HashMap<>();
      for (int i = 0; i < events.size(); i++) {
        LogHistory.Event e = events.get(i);
        if (e.value() != null && !e.type().equals("DELETED")) {
          byValue.putIfAbsent(e.value(), e);
        }
        if (e.type().equals("DELETED") && i > 0) {
          deletedAfter.put(events.get(i - 1).version(), i);
        }
      }
      Map<String, Boolean> deleteAcknowledged = new HashMap<>();
      for (Ledger.Op o : mine) {
        if (o.kind().equals("configmap-delete") && o.outcome() == Outcome.OK) {
          deleteAcknowledged.put(o.precondition(), true);
        }
      }
      List<RegisterChecker.Op> history = new ArrayList<>();
      for (Ledger.Op o : mine) {
        RegisterChecker.Op op = toRegisterOp(o, byValue, deletedAfter, deleteAcknowledged);
        if (op == null) {
          dropped++;
          continue;
        }
        if (o.outcome() == Outcome.UNKNOWN) {
          resolved++;
        }
        history.add(op);
      }
      checked += history.size();
      verdicts.put(name, RegisterChecker.check(history));
    }
    return new Linearizability(verdicts, checked, resolved, dropped);
  }

  private static RegisterChecker.Op toRegisterOp(
      Ledger.Op o,
      Map<String, LogHistory.Event> byValue,
      Map<String, Integer> deletedAfter,
      Map<String, Boolean> deleteAcknowledged) {
    long pre = o.precondition() == null ? 0 : Long.parseLong(o.precondition());
    long done = o.completed();
    switch (o.kind()) {
      case "configmap-read" -> {
        if (o.outcome() == Outcome.OK) {
          return op(o, Kind.READ, Result.OK, 0, o.read(), version(o.version()), done);
        }
        return o.status() == 404 ? op(o, Kind.READ, Result.NOT_FOUND, 0, null, 0, done) : null;
      }
      case "configmap-create", "configmap-update" -> {
        Kind kind = o.kind().equals("configmap-create") ? Kind.CREATE : Kind.UPDATE;
        if (o.outcome() == Outcome.OK) {
          return op(o, kind, Result.OK, pre, o.written(), version(o.version()), done);
        }
        if (o.outcome() == Outcome.FAILED) {
          return switch (o.status()) {
            case 409 -> op(o, kind, Result.CONFLICT, pre, o.written(), 0, done);
            case 404 -> op(o, kind, Result.NOT_FOUND, pre, o.written(), 0, done);
            default -> null;
          };
        }
        LogHistory.Event e = byValue.get(o.written());
        return e == null
            ? null
            : op(
                o,
                kind,
                Result.OK,
                pre,
                o.written(),
                version(e.version()),
                RegisterChecker.Op.NEVER);
      }
      case "configmap-delete" -> {
        if (o.outcome() == Outcome.OK) {
          return op(o, Kind.DELETE, Result.OK, pre, null, 0, done);
        }
        if (o.outcome() == Outcome.FAILED) {
          return switch (o.status()) {
            case 409 -> op(o, Kind.DELETE, Result.CONFLICT, pre, null, 0, done);
            case 404 -> op(o, Kind.DELETE, Result.NOT_FOUND, pre, null, 0, done);
            default -> null;
          };
        }
        boolean applied =
            deletedAfter.containsKey(o.precondition())
                && !deleteAcknowledged.containsKey(o.precondition());
        if (applied) {
          // Only one unknown delete may claim a version's deletion.
          deleteAcknowledged.put(o.precondition(), true);
          return op(o, Kind.DELETE, Result.OK, pre, null, 0, RegisterChecker.Op.NEVER);
        }
        return null;
      }
      default -> {
        return null;
      }
    }
  }

  private static RegisterChecker.Op op(
      Ledger.Op o, Kind kind, Result result, long pre, String value, long version, long done) {
    return new RegisterChecker.Op(o.id(), kind, result, pre, value, version, o.invoked(), done);
  }

  private static long version(String v) {
    return v == null ? 0 : Long.parseLong(v);
  }

  /** What the watch received compared with the log, per object. */
  record WatchFindings(
      int events,
      int segments,
      int relists,
      int redelivered,
      List<String> gaps,
      List<String> duplicates,
      List<String> reorders,
      List<String> unknown) {
    int anomalies() {
      return gaps.size() + duplicates.size() + reorders.size() + unknown.size();
    }
  }

  /**
   * Compares a ConfigMap watch with the log. Per object, the events the log holds after the watch's
   * first list must each arrive once, in log order. After a reconnect from a bookmark, the events
   * at or after the bookmark's offsets may arrive again (the client asked for them); after a new
   * list (410), the list stands for what came before its version.
   */
  static WatchFindings watch(WatchRecorder recorder, LogHistory log, String namespace) {
    return watch(recorder.segments(), recorder.received(), log, namespace);
  }

  static WatchFindings watch(
      List<WatchRecorder.Segment> segments,
      List<WatchRecorder.Received> received,
      LogHistory log,
      String namespace) {
    List<String> gaps = new ArrayList<>();
    List<String> duplicates = new ArrayList<>();
    List<String> reorders = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    int redelivered = 0;
    int relists = 0;
    // Per object: index of the next event expected, and the last offset seen in this segment.
    Map<String, Integer> next = new HashMap<>();
    Map<String, Long> lastInSegment = new HashMap<>();
    Map<String, List<LogHistory.Event>> expected = new LinkedHashMap<>();
    log.byKey()
        .forEach(
            (key, events) -> {
              if (key.startsWith("configmaps/")) {
                expected.put(key, events);
              }
            });
    WatchRecorder.Segment first = segments.get(0);
    long[] start = offsets(first.from());
    for (Map.Entry<String, List<LogHistory.Event>> e : expected.entrySet()) {
      next.put(e.getKey(), firstAtOrAfter(e.getValue(), start));
    }
    int segment = 0;
    long[] floor = start;
    for (WatchRecorder.Received r : received) {
      while (segment < r.segment()) {
        segment++;
        WatchRecorder.Segment s = segments.get(segment);
        floor = offsets(s.from());
        lastInSegment.clear();
        if (s.relisted()) {
          relists++;
          for (Map.Entry<String, List<LogHistory.Event>> e : expected.entrySet()) {
            int at = firstAtOrAfter(e.getValue(), floor);
            if (at > next.get(e.getKey())) {
              next.put(e.getKey(), at);
            }
          }
        }
      }
      String key = "configmaps/" + namespace + "/" + r.name();
      LogHistory.Event e = log.find(key, r.version(), r.type());
      if (e == null) {
        unknown.add(
            r.type() + " " + r.name() + " rv " + r.version() + " (segment " + segment + ")");
        continue;
      }
      List<LogHistory.Event> events = expected.get(key);
      int index = events.indexOf(e);
      Long last = lastInSegment.get(key);
      if (last != null && e.offset() <= last) {
        (e.offset() == last ? duplicates : reorders)
            .add(r.type() + " " + r.name() + " rv " + r.version() + " (segment " + segment + ")");
        continue;
      }
      lastInSegment.put(key, e.offset());
      int want = next.getOrDefault(key, 0);
      if (index == want) {
        next.put(key, want + 1);
      } else if (index < want) {
        if (e.offset() >= floor(floor, e.partition())) {
          redelivered++;
        } else {
          duplicates.add(
              r.type()
                  + " "
                  + r.name()
                  + " rv "
                  + r.version()
                  + " again (segment "
                  + segment
                  + ")");
        }
      } else {
        for (int i = want; i < index; i++) {
          LogHistory.Event missed = events.get(i);
          gaps.add(missed.type() + " " + missed.name() + " rv " + missed.version());
        }
        next.put(key, index + 1);
      }
    }
    for (Map.Entry<String, List<LogHistory.Event>> e : expected.entrySet()) {
      List<LogHistory.Event> events = e.getValue();
      for (int i = next.get(e.getKey()); i < events.size(); i++) {
        gaps.add(
            events.get(i).type()
                + " "
                + events.get(i).name()
                + " rv "
                + events.get(i).version()
                + " (never arrived)");
      }
    }
    return new WatchFindings(
        received.size(),
        segments.size(),
        relists,
        redelivered,
        gaps,
        duplicates,
        reorders,
        unknown);
  }

  private static long floor(long[] offsets, int partition) {
    return partition < offsets.length ? offsets[partition] : 0;
  }

  private static int firstAtOrAfter(List<LogHistory.Event> events, long[] offsets) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).offset() >= floor(offsets, events.get(i).partition())) {
        return i;
      }
    }
    return events.size();
  }

  /** A list version {@code L1.2.3} as offsets; anything else as none. */
  static long[] offsets(String version) {
    if (version == null || !version.matches("L[0-9]+(\\.[0-9]+)*")) {
      return new long[0];
    }
    String[] parts = version.substring(1).split("\\.");
    long[] offsets = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      offsets[i] = Long.parseLong(parts[i]);
    }
    return offsets;
  }

  /**
   * Objects the API serves differently from the log's last event of them: a different
   * resourceVersion, present though deleted, or missing though not deleted; asked of every gateway.
   */
  static List<String> apiAgainstLog(
      List<String> servers, ClusterPki.ClientIdentity identity, LogHistory log, String namespace)
      throws IOException, InterruptedException {
    List<String> differences = new ArrayList<>();
    for (String server : servers) {
      KubeClient client = ChaosApi.client(server, identity);
      for (Map.Entry<String, List<LogHistory.Event>> e : log.byKey().entrySet()) {
        String key = e.getKey();
        String path;
        if (key.startsWith("configmaps/")) {
          path = "/api/v1/namespaces/" + namespace + "/configmaps/";
        } else if (key.startsWith("deployments/")) {
          path = "/apis/apps/v1/namespaces/" + namespace + "/deployments/";
        } else {
          continue;
        }
        List<LogHistory.Event> events = e.getValue();
        LogHistory.Event last = events.get(events.size() - 1);
        KubeClient.Response r = client.get(path + last.name());
        boolean deleted = last.type().equals("DELETED");
        if (deleted && r.status() != 404) {
          differences.add(server + ": " + key + " deleted in the log, answered " + r.status());
        } else if (!deleted && r.status() != 200) {
          differences.add(
              server
                  + ": "
                  + key
                  + " at "
                  + last.version()
                  + " in the log, answered "
                  + r.status());
        } else if (!deleted) {
          String served = r.body().at("/metadata/resourceVersion").asText();
          if (!served.equals(last.version())) {
            differences.add(
                server + ": " + key + " at " + last.version() + " in the log, served at " + served);
          }
        }
      }
    }
    return differences;
  }

  /** The Job pods counted twice and those never counted, over every Job, and what was found. */
  record JobCounts(int countedTwice, int lost, List<String> findings) {}

  /**
   * Each Job's {@code status.succeeded} and {@code status.failed} against the pods a watch saw
   * succeed and fail (or go before succeeding): a count above what was seen is a pod counted twice;
   * a finished Job whose counts fall short of what was seen lost a pod.
   */
  static JobCounts jobCounts(
      List<JsonNode> jobs,
      Map<String, java.util.Set<String>> succeeded,
      Map<String, java.util.Set<String>> failed) {
    int twice = 0;
    int lost = 0;
    List<String> findings = new ArrayList<>();
    for (JsonNode job : jobs) {
      String uid = job.at("/metadata/uid").asText();
      String name = job.at("/metadata/name").asText();
      int countedSucceeded = job.at("/status/succeeded").asInt(0);
      int countedFailed = job.at("/status/failed").asInt(0);
      int seenSucceeded = succeeded.getOrDefault(uid, java.util.Set.of()).size();
      int seenFailed = failed.getOrDefault(uid, java.util.Set.of()).size();
      int over =
          Math.max(0, countedSucceeded - seenSucceeded) + Math.max(0, countedFailed - seenFailed);
      if (over > 0) {
        twice += over;
        findings.add(
            String.format(
                java.util.Locale.ROOT,
                "job %s counts %d succeeded and %d failed; %d and %d were seen",
                name,
                countedSucceeded,
                countedFailed,
                seenSucceeded,
                seenFailed));
      }
      boolean finished = false;
      for (JsonNode c : job.at("/status/conditions")) {
        finished |=
            (c.path("type").asText().equals("Complete") || c.path("type").asText().equals("Failed"))
                && c.path("status").asText().equals("True");
      }
      int missing = seenSucceeded + seenFailed - countedSucceeded - countedFailed;
      if (finished && missing > 0) {
        lost += missing;
        findings.add(
            String.format(
                java.util.Locale.ROOT,
                "job %s finished with %d succeeded and %d failed; %d and %d were seen",
                name,
                countedSucceeded,
                countedFailed,
                seenSucceeded,
                seenFailed));
      }
    }
    return new JobCounts(twice, lost, findings);
  }

  /**
   * After convergence: live pods of the StatefulSet that share an ordinal, or whose ordinal is
   * outside {@code [0, replicas)}.
   */
  static List<String> statefulOrdinals(List<JsonNode> pods, String set, int replicas) {
    List<String> found = new ArrayList<>();
    Map<String, Integer> ordinals = new TreeMap<>();
    for (JsonNode pod : pods) {
      if (!pod.at("/metadata/labels/app").asText("").equals(set)
          || pod.at("/metadata/deletionTimestamp").isTextual()) {
        continue;
      }
      ordinals.merge(
          pod.at("/metadata/labels/apps.kubernetes.io~1pod-index").asText("?"), 1, Integer::sum);
    }
    ordinals.forEach(
        (ordinal, n) -> {
          boolean inRange;
          try {
            int i = Integer.parseInt(ordinal);
            inRange = i >= 0 && i < replicas;
          } catch (NumberFormatException e) {
            inRange = false;
          }
          if (n > 1 || !inRange) {
            found.add(
                set + " ordinal " + ordinal + ": " + n + " live pods (replicas " + replicas + ")");
          }
        });
    return found;
  }

  /** After convergence: Ready nodes that do not run exactly one live pod of the DaemonSet. */
  static List<String> daemonPodsPerNode(List<JsonNode> nodes, List<JsonNode> pods, String ds) {
    Map<String, Integer> perNode = new TreeMap<>();
    for (JsonNode node : nodes) {
      for (JsonNode c : node.at("/status/conditions")) {
        if (c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True")) {
          perNode.put(node.at("/metadata/name").asText(), 0);
        }
      }
    }
    for (JsonNode pod : pods) {
      String phase = pod.at("/status/phase").asText("");
      if (pod.at("/metadata/labels/app").asText("").equals(ds)
          && !pod.at("/metadata/deletionTimestamp").isTextual()
          && !phase.equals("Succeeded")
          && !phase.equals("Failed")) {
        perNode.computeIfPresent(pod.at("/spec/nodeName").asText(""), (n, count) -> count + 1);
      }
    }
    List<String> found = new ArrayList<>();
    perNode.forEach(
        (node, n) -> {
          if (n != 1) {
            found.add(node + ": " + n + " pods of " + ds);
          }
        });
    return found;
  }
}
