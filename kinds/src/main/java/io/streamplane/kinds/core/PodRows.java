package io.streamplane.kinds.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.printers.Cells;
import io.streamplane.kinds.printers.HumanDuration;
import io.streamplane.kinds.printers.Row;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pod row of {@code kubectl get pods}: kube-apiserver's {@code printPod}, whose STATUS column
 * is not a field but a judgement over phase, reason, init containers, container states and deletion
 * (Init:0/1, Init:CrashLoopBackOff, CrashLoopBackOff, Completed, Error, Terminating...).
 *
 * <p>Contract: the rules run in Kubernetes' order, later rules overriding earlier ones: phase, then
 * status.reason, then the SchedulingGated condition, then the first unfinished init container, then
 * (when initialised) the app containers from last to first, then Terminating or Unknown for pods
 * being deleted. Sidecar init containers ({@code restartPolicy: Always}) count as containers, as in
 * 1.32.
 */
final class PodRows {

  private PodRows() {}

  private static final String NODE_UNREACHABLE_REASON = "NodeLost";

  static Row row(JsonNode pod, Instant now) {
    JsonNode spec = pod.path("spec");
    JsonNode status = pod.path("status");
    int restarts = 0;
    int sidecarRestarts = 0;
    int totalContainers = spec.path("containers").size();
    int readyContainers = 0;
    Optional<Instant> lastRestart = Optional.empty();
    Optional<Instant> lastSidecarRestart = Optional.empty();

    String phase = status.path("phase").asText("");
    String reason = phase;
    if (!status.path("reason").asText("").isEmpty()) {
      reason = status.path("reason").asText();
    }
    for (JsonNode c : status.path("conditions")) {
      if (c.path("type").asText().equals("PodScheduled")
          && c.path("reason").asText().equals("SchedulingGated")) {
        reason = "SchedulingGated";
      }
    }
    List<Map<String, String>> conditions = List.of();
    // Both terminal phases mark the row Completed=True; kubectl uses it to hide finished pods.
    if (phase.equals("Succeeded")) {
      conditions = List.of(completed("Succeeded", "The pod has completed successfully."));
    } else if (phase.equals("Failed")) {
      conditions = List.of(completed("Failed", "The pod failed."));
    }

    Set<String> sidecars = new HashSet<>();
    for (JsonNode c : spec.path("initContainers")) {
      if (c.path("restartPolicy").asText("").equals("Always")) {
        sidecars.add(c.path("name").asText());
        totalContainers++;
      }
    }
    int initCount = spec.path("initContainers").size();

    boolean initializing = false;
    JsonNode initStatuses = status.path("initContainerStatuses");
    for (int i = 0; i < initStatuses.size(); i++) {
      JsonNode c = initStatuses.get(i);
      restarts += c.path("restartCount").asInt(0);
      Optional<Instant> finished = lastTerminationFinish(c);
      lastRestart = later(lastRestart, finished);
      boolean sidecar = sidecars.contains(c.path("name").asText());
      if (sidecar) {
        sidecarRestarts += c.path("restartCount").asInt(0);
        lastSidecarRestart = later(lastSidecarRestart, finished);
      }
      JsonNode terminated = c.path("state").path("terminated");
      JsonNode waiting = c.path("state").path("waiting");
      if (terminated.isObject() && terminated.path("exitCode").asInt(0) == 0) {
        continue;
      }
      if (sidecar && c.path("started").asBoolean(false)) {
        if (c.path("ready").asBoolean(false)) {
          readyContainers++;
        }
        continue;
      }
      if (terminated.isObject()) {
        String r = terminated.path("reason").asText("");
        if (r.isEmpty()) {
          int signal = terminated.path("signal").asInt(0);
          reason =
              signal != 0
                  ? "Init:Signal:" + signal
                  : "Init:ExitCode:" + terminated.path("exitCode").asInt(0);
        } else {
          reason = "Init:" + r;
        }
      } else if (waiting.isObject()
          && !waiting.path("reason").asText("").isEmpty()
          && !waiting.path("reason").asText().equals("PodInitializing")) {
        reason = "Init:" + waiting.path("reason").asText();
      } else {
        reason = "Init:" + i + "/" + initCount;
      }
      initializing = true;
      break;
    }

    if (!initializing || conditionTrue(status, "Initialized")) {
      restarts = sidecarRestarts;
      lastRestart = lastSidecarRestart;
      boolean hasRunning = false;
      JsonNode statuses = status.path("containerStatuses");
      for (int i = statuses.size() - 1; i >= 0; i--) {
        JsonNode c = statuses.get(i);
        restarts += c.path("restartCount").asInt(0);
        lastRestart = later(lastRestart, lastTerminationFinish(c));
        JsonNode waiting = c.path("state").path("waiting");
        JsonNode terminated = c.path("state").path("terminated");
        if (waiting.isObject() && !waiting.path("reason").asText("").isEmpty()) {
          reason = waiting.path("reason").asText();
        } else if (terminated.isObject() && !terminated.path("reason").asText("").isEmpty()) {
          reason = terminated.path("reason").asText();
        } else if (terminated.isObject()) {
          int signal = terminated.path("signal").asInt(0);
          reason =
              signal != 0 ? "Signal:" + signal : "ExitCode:" + terminated.path("exitCode").asInt(0);
        } else if (c.path("ready").asBoolean(false) && c.path("state").path("running").isObject()) {
          hasRunning = true;
          readyContainers++;
        }
      }
      // A pod whose last container finished but another still runs is not Completed.
      if (reason.equals("Completed") && hasRunning) {
        reason = conditionTrue(status, "Ready") ? "Running" : "NotReady";
      }
    }

    boolean deleting = pod.path("metadata").path("deletionTimestamp").isTextual();
    if (deleting && status.path("reason").asText("").equals(NODE_UNREACHABLE_REASON)) {
      reason = "Unknown";
    } else if (deleting && !phase.equals("Succeeded") && !phase.equals("Failed")) {
      reason = "Terminating";
    }

    String restartsCell = Integer.toString(restarts);
    if (restarts != 0 && lastRestart.isPresent()) {
      restartsCell =
          restarts
              + " ("
              + HumanDuration.format(Duration.between(lastRestart.get(), now))
              + " ago)";
    }

    List<Object> cells = new ArrayList<>();
    cells.add(Cells.name(pod));
    cells.add(readyContainers + "/" + totalContainers);
    cells.add(reason);
    cells.add(restartsCell);
    cells.add(Cells.age(pod, now));

    String podIp = "";
    if (status.path("podIPs").size() > 0) {
      podIp = status.path("podIPs").get(0).path("ip").asText("");
    }
    cells.add(Cells.orNone(podIp));
    cells.add(Cells.orNone(spec.path("nodeName").asText("")));
    cells.add(Cells.orNone(status.path("nominatedNodeName").asText("")));
    String gates = "<none>";
    if (spec.path("readinessGates").size() > 0) {
      int trueConditions = 0;
      for (JsonNode gate : spec.path("readinessGates")) {
        String type = gate.path("conditionType").asText();
        for (JsonNode c : status.path("conditions")) {
          if (c.path("type").asText().equals(type)) {
            if (c.path("status").asText().equals("True")) {
              trueConditions++;
            }
            break;
          }
        }
      }
      gates = trueConditions + "/" + spec.path("readinessGates").size();
    }
    cells.add(gates);
    return new Row(cells, conditions);
  }

  private static Map<String, String> completed(String reason, String message) {
    Map<String, String> c = new java.util.LinkedHashMap<>();
    c.put("type", "Completed");
    c.put("status", "True");
    c.put("reason", reason);
    c.put("message", message);
    return c;
  }

  private static Optional<Instant> lastTerminationFinish(JsonNode containerStatus) {
    JsonNode terminated = containerStatus.path("lastState").path("terminated");
    return terminated.isObject()
        ? HumanDuration.parse(terminated.path("finishedAt"))
        : Optional.empty();
  }

  private static Optional<Instant> later(Optional<Instant> a, Optional<Instant> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return a.get().isBefore(b.get()) ? b : a;
  }

  private static boolean conditionTrue(JsonNode status, String type) {
    for (JsonNode c : status.path("conditions")) {
      if (c.path("type").asText().equals(type)) {
        return c.path("status").asText().equals("True");
      }
    }
    return false;
  }
}
