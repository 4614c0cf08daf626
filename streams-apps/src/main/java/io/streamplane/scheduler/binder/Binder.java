package io.streamplane.scheduler.binder;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodStatus;
import io.streamplane.controller.Intent;
import io.streamplane.log.BindRejection;
import io.streamplane.log.BindRequest;
import io.streamplane.log.EventType;
import io.streamplane.log.NodeLedger;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.PlacedPod;
import io.streamplane.log.ResourceEvent;
import io.streamplane.scheduler.SchedulerEvents;
import io.streamplane.scheduler.SchedulerMetrics;
import io.streamplane.scheduler.framework.NodeVolumeLimits;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.streams.WallClockTimer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The binder: for the nodes of the partitions it owns, the authoritative ledger of what is
 * allocated on each node. A {@link BindRequest} is accepted only if the pod still fits — then the
 * place is taken in the ledger and the BIND command written, in one transaction — otherwise it is
 * answered with a {@link BindRejection} and the pod goes back to its scheduler's queue.
 *
 * <p>Invariant: the requests held in a node's ledger never exceed its allocatable, nor its pods'
 * distinct CSI volumes ({@link PodRequests#volumes}) the limits the request carries ({@link
 * NodeVolumeLimits#exceeds}), whatever the number of schedulers proposing; every place granted is
 * written to {@code node-usage}, the schedulers' view. Each ledger entry and each {@code
 * NodeUsage.allocated} holds a pod's (a node's) requests and also its non-zero CPU and memory
 * ({@link PodRequests#toMap}): only the requests are checked against allocatable; the non-zero sums
 * are there for the schedulers' LeastAllocated score, so that best-effort pods spread. Places are
 * released when a pod is deleted or finishes (Succeeded, Failed), and when a BIND was not confirmed
 * by the pod's event within {@link #CONFIRM_WITHIN} (the pod was deleted, or bound elsewhere, in
 * between). Pods bound without the scheduler (spec.nodeName set by hand) are counted when their
 * event arrives, even if that over-commits the node, as the kubelet would still run them.
 */
public final class Binder implements Processor<String, SpecificRecord, String, SpecificRecord> {

  public static final String LEDGER = "node-ledger";
  public static final String NODES = "binder-nodes";

  /** The last object of each pod bound to the task's nodes: what a preemption writes against. */
  public static final String PODS = "binder-pods";

  /**
   * How long a granted place waits for its BIND to show up in the pod's events before it is given
   * back. The BIND is already in {@code commands} and will be applied, however late: a place given
   * back before a store that lags behind (a restore, a partition stalled for minutes under faults)
   * applies it lets another pod take it, and the node is over-committed once both are bound. So the
   * wait outlasts the stalls measured under chaos (the longest recovery after a fault, about two
   * minutes); a place held for a pod deleted before its BIND applied is capacity unused for that
   * long. Only a partition stalled for longer could still over-commit a node.
   */
  static final Duration CONFIRM_WITHIN = Duration.ofMinutes(5);

  private static final Duration SWEEP = Duration.ofSeconds(5);

  private ProcessorContext<String, SpecificRecord> context;
  private KeyValueStore<String, NodeLedger> ledgers;
  private KeyValueStore<String, NodeUsage> nodes;
  private KeyValueStore<String, Pod> boundPods;
  private WallClockTimer sweep;

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.ledgers = context.getStateStore(LEDGER);
    this.nodes = context.getStateStore(NODES);
    this.boundPods = context.getStateStore(PODS);
    // Sweeps only while places await confirmation: an idle binder has no punctuation (each one
    // costs a transaction).
    this.sweep = new WallClockTimer(context, this::releaseUnconfirmed);
    sweep.at(context.currentSystemTimeMs() + SWEEP.toMillis());
  }

  @Override
  public void process(Record<String, SpecificRecord> record) {
    String node = record.key();
    if (record.value() instanceof BindRequest request) {
      bind(node, request, record.timestamp());
    } else if (record.value() instanceof ResourceEvent event
        && KindObjects.of(event) instanceof Node n) {
      if (event.getType() == EventType.DELETED) {
        nodes.delete(node);
        context.forward(new Record<>(node, null, record.timestamp()));
      } else {
        publish(node, n, ledger(node), nodes.get(node), null, record.timestamp());
      }
    } else if (record.value() instanceof ResourceEvent event
        && KindObjects.of(event) instanceof Pod pod) {
      observe(node, event, pod, record.timestamp());
    }
  }

  private void bind(String node, BindRequest request, long timestamp) {
    if (!request.getPreempt().isEmpty()) {
      preempt(node, request, timestamp);
      return;
    }
    NodeUsage known = nodes.get(node);
    NodeLedger ledger = ledger(node);
    if (ledger.getPods().containsKey(request.getPodKey())) {
      return; // a repeated proposal for a place already granted
    }
    if (known == null || known.getNode() == null) {
      reject(request, "node \"" + node + "\" not found", timestamp);
      return;
    }
    Resources allocatable = Resources.allocatableOf(known.getNode());
    PodRequests wanted = PodRequests.fromMap(request.getRequests());
    PodRequests allocated = allocated(ledger);
    List<String> insufficient =
        wanted.requests().insufficientIn(allocatable.minus(allocated.requests())).stream()
            .map(name -> name.equals(Resources.PODS) ? "Too many pods" : "Insufficient " + name)
            .toList();
    if (!insufficient.isEmpty()) {
      reject(request, String.join(", ", insufficient), timestamp);
      return;
    }
    if (!request.getVolumeLimits().isEmpty()
        && NodeVolumeLimits.exceeds(
            allocated.volumes(), wanted.volumes().keySet(), request.getVolumeLimits())) {
      reject(request, NodeVolumeLimits.MAX_VOLUME_COUNT, timestamp);
      return;
    }
    Map<String, Map<String, Long>> pods = new HashMap<>(ledger.getPods());
    pods.put(request.getPodKey(), request.getRequests());
    Map<String, Long> unconfirmed = new HashMap<>(ledger.getUnconfirmed());
    unconfirmed.put(request.getPodKey(), timestamp);
    sweep.at(context.currentSystemTimeMs() + SWEEP.toMillis());
    NodeLedger updated = NodeLedger.newBuilder().setPods(pods).setUnconfirmed(unconfirmed).build();
    ledgers.put(node, updated);
    publish(node, known.getNode(), updated, known, null, timestamp);
    SchedulerMetrics.bindRequest(true);
    context.forward(
        SchedulerEvents.bind(
            request.getNamespace(),
            request.getPodName(),
            request.getPodUid(),
            node,
            id("bind", request.getPodUid(), node, request.getAttempt()),
            timestamp));
  }

  private void observe(String node, ResourceEvent event, Pod pod, long timestamp) {
    String podKey = new ResourceKey("pods", "", event.getNamespace(), event.getName()).toString();
    NodeLedger ledger = ledger(node);
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    boolean gone =
        event.getType() == EventType.DELETED || "Succeeded".equals(phase) || "Failed".equals(phase);
    Map<String, Map<String, Long>> pods = new HashMap<>(ledger.getPods());
    Map<String, Long> unconfirmed = new HashMap<>(ledger.getUnconfirmed());
    Pod before = boundPods.get(podKey);
    if (gone) {
      if (before != null) {
        boundPods.delete(podKey);
      }
    } else {
      boundPods.put(podKey, pod);
    }
    // What the schedulers' preemption reads of the pod (priority, labels, being deleted) changed.
    boolean changed =
        !gone
            && (before == null
                || !placed(podKey, before, Map.of()).equals(placed(podKey, pod, Map.of())));
    if (gone) {
      changed = pods.remove(podKey) != null;
      unconfirmed.remove(podKey);
    } else if (pods.containsKey(podKey)) {
      boolean confirmed = unconfirmed.remove(podKey) != null;
      changed |= confirmed;
      if (confirmed && event.getType() == EventType.MODIFIED && pod.getSpec() != null) {
        context.forward(
            SchedulerEvents.command(
                Intent.create(
                    "events",
                    "",
                    SchedulerEvents.about(
                        pod,
                        "Normal",
                        "Scheduled",
                        "Successfully assigned "
                            + event.getNamespace()
                            + "/"
                            + event.getName()
                            + " to "
                            + node,
                        Instant.ofEpochMilli(timestamp))),
                id("scheduled", pod.getMetadata().getUid(), node, 0),
                timestamp));
      }
    } else {
      pods.put(podKey, PodRequests.of(pod).toMap());
      changed = true;
    }
    if (!changed) {
      return;
    }
    NodeLedger updated = NodeLedger.newBuilder().setPods(pods).setUnconfirmed(unconfirmed).build();
    ledgers.put(node, updated);
    NodeUsage known = nodes.get(node);
    publish(node, known == null ? null : known.getNode(), updated, known, podKey, timestamp);
  }

  /** Places whose BIND never showed up in the pod's events are given back. */
  private void releaseUnconfirmed(long nowMs) {
    List<KeyValue<String, NodeLedger>> expired = new ArrayList<>();
    boolean awaiting = false;
    try (KeyValueIterator<String, NodeLedger> it = ledgers.all()) {
      while (it.hasNext()) {
        KeyValue<String, NodeLedger> entry = it.next();
        awaiting |=
            entry.value.getUnconfirmed().values().stream()
                .anyMatch(at -> nowMs - at <= CONFIRM_WITHIN.toMillis());
        if (entry.value.getUnconfirmed().values().stream()
            .anyMatch(at -> nowMs - at > CONFIRM_WITHIN.toMillis())) {
          expired.add(entry);
        }
      }
    }
    for (KeyValue<String, NodeLedger> entry : expired) {
      Map<String, Map<String, Long>> pods = new HashMap<>(entry.value.getPods());
      Map<String, Long> unconfirmed = new HashMap<>();
      entry
          .value
          .getUnconfirmed()
          .forEach(
              (pod, at) -> {
                if (nowMs - at > CONFIRM_WITHIN.toMillis()) {
                  pods.remove(pod);
                } else {
                  unconfirmed.put(pod, at);
                }
              });
      NodeLedger updated =
          NodeLedger.newBuilder().setPods(pods).setUnconfirmed(unconfirmed).build();
      ledgers.put(entry.key, updated);
      NodeUsage known = nodes.get(entry.key);
      publish(entry.key, known == null ? null : known.getNode(), updated, known, null, nowMs);
    }
    if (awaiting) {
      sweep.at(nowMs + SWEEP.toMillis());
    }
  }

  /**
   * Publishes the node's usage after a change of its object or its ledger; {@code known} is what
   * was published before (null: nothing), {@code changed} the pod whose object just changed.
   */
  private void publish(
      String node,
      Node object,
      NodeLedger ledger,
      NodeUsage known,
      String changed,
      long timestamp) {
    NodeUsage usage = usage(node, object, ledger, known, changed);
    nodes.put(node, usage);
    context.forward(new Record<>(node, usage, timestamp));
  }

  private void reject(BindRequest request, String reason, long timestamp) {
    SchedulerMetrics.bindRequest(false);
    context.forward(
        new Record<>(
            request.getPodKey(),
            BindRejection.newBuilder().setRequest(request).setReason(reason).build(),
            timestamp));
  }

  private NodeLedger ledger(String node) {
    NodeLedger ledger = ledgers.get(node);
    return ledger == null ? NodeLedger.newBuilder().build() : ledger;
  }

  /**
   * A node as the schedulers see it: its object, the sums of its ledger, and the pods of its ledger
   * whose object this binder has seen, in key order (so the same ledger gives the same record). A
   * pod's entry is taken from {@code known} when it is there with the same requests and is not
   * {@code changed}: only a pod whose object changed, or that {@code known} lacks, is read from the
   * bound pods: decoding all of a node's pods for every bind and every status of one of them was
   * over a third of the binder's time in a 1,000-pod rollout.
   */
  private NodeUsage usage(
      String node, Node object, NodeLedger ledger, NodeUsage known, String changed) {
    Map<String, PlacedPod> published = new HashMap<>();
    if (known != null) {
      known.getPods().forEach(pod -> published.put(pod.getKey(), pod));
      published.remove(changed);
    }
    List<PlacedPod> placed = new ArrayList<>();
    new TreeMap<>(ledger.getPods())
        .forEach(
            (key, requests) -> {
              PlacedPod same = published.get(key);
              if (same != null && same.getRequests().equals(requests)) {
                placed.add(same);
                return;
              }
              Pod pod = boundPods.get(key);
              if (pod != null) {
                placed.add(placed(key, pod, requests));
              }
            });
    return NodeUsage.newBuilder()
        .setNodeName(node)
        .setNode(object)
        .setAllocated(allocated(ledger).toMap())
        .setPods(placed)
        .build();
  }

  /** What preemption reads of a pod bound here. */
  static PlacedPod placed(String key, Pod pod, Map<String, Long> requests) {
    var meta = pod.getMetadata();
    Instant started =
        pod.getStatus() != null && pod.getStatus().getStartTime() != null
            ? pod.getStatus().getStartTime()
            : meta.getCreationTimestamp();
    Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return PlacedPod.newBuilder()
        .setKey(key)
        .setUid(meta.getUid() == null ? "" : meta.getUid())
        .setNamespace(meta.getNamespace() == null ? "" : meta.getNamespace())
        .setName(meta.getName())
        .setPriority(priority == null ? 0 : priority)
        .setLabels(meta.getLabels() == null ? Map.of() : meta.getLabels())
        .setStartTime(started == null ? 0 : started.toEpochMilli())
        .setTerminating(meta.getDeletionTimestamp() != null)
        .setRequests(requests)
        .build();
  }

  /**
   * A scheduler's preemption: each victim named that is still bound here, not already being
   * deleted, and of lower priority than the preemptor gets the condition DisruptionTarget
   * (PreemptionByScheduler), is deleted with its own grace period, and gets the Event {@code
   * Preempted}, as kube-scheduler's {@code prepareCandidate} does. Its place stays taken until the
   * pod is gone: the preemptor is bound, through an ordinary bind request, only once it is.
   */
  private void preempt(String node, BindRequest request, long timestamp) {
    NodeLedger ledger = ledger(node);
    int priority = request.getPriority() == null ? 0 : request.getPriority();
    for (String key : request.getPreempt()) {
      Pod victim = boundPods.get(key);
      if (victim == null
          || !ledger.getPods().containsKey(key)
          || victim.getMetadata().getDeletionTimestamp() != null
          || placed(key, victim, Map.of()).getPriority() >= priority) {
        continue;
      }
      Instant now = Instant.ofEpochMilli(timestamp);
      String uid = victim.getMetadata().getUid();
      Pod disrupted = KubeObjects.copy(victim);
      PodStatus status = disrupted.getStatus() == null ? new PodStatus() : disrupted.getStatus();
      List<PodCondition> conditions = new ArrayList<>();
      if (status.getConditions() != null) {
        status.getConditions().stream()
            .filter(c -> !"DisruptionTarget".equals(c.getType()))
            .forEach(conditions::add);
      }
      conditions.add(
          PodCondition.newBuilder()
              .setType("DisruptionTarget")
              .setStatus("True")
              .setReason("PreemptionByScheduler")
              .setMessage(
                  SchedulerEvents.COMPONENT + ": preempting to accommodate a higher priority pod")
              .setLastTransitionTime(now.truncatedTo(ChronoUnit.SECONDS))
              .build());
      status.setConditions(conditions);
      disrupted.setStatus(status);
      int attempt = request.getAttempt();
      context.forward(
          SchedulerEvents.command(
              Intent.updateStatus("pods", "", disrupted),
              id("preempt-condition/" + request.getPodUid(), uid, node, attempt),
              timestamp));
      context.forward(
          SchedulerEvents.command(
              Intent.delete("pods", "", victim, null),
              id("preempt/" + request.getPodUid(), uid, node, attempt),
              timestamp));
      context.forward(
          SchedulerEvents.command(
              Intent.create(
                  "events",
                  "",
                  SchedulerEvents.about(
                      victim,
                      "Normal",
                      "Preempted",
                      "Preempted by pod " + request.getPodUid() + " on node " + node,
                      now)),
              id("preempted/" + request.getPodUid(), uid, node, attempt),
              timestamp));
    }
  }

  /** The sums, real and non-zero, over the pods of a ledger. */
  static PodRequests allocated(NodeLedger ledger) {
    PodRequests sum = PodRequests.NONE;
    for (Map<String, Long> requests : ledger.getPods().values()) {
      sum = sum.plus(PodRequests.fromMap(requests));
    }
    return sum;
  }

  private static String id(String what, String podUid, String node, int attempt) {
    return UUID.nameUUIDFromBytes(
            (what + "/" + podUid + "/" + node + "/" + attempt).getBytes(StandardCharsets.UTF_8))
        .toString();
  }
}
