package io.streamplane.scheduler.queue;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.CSINode;
import io.streamplane.api.CSIStorageCapacity;
import io.streamplane.api.Node;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodStatus;
import io.streamplane.api.StorageClass;
import io.streamplane.controller.Intent;
import io.streamplane.log.BindRejection;
import io.streamplane.log.BindRequest;
import io.streamplane.log.EventType;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.PlacedPod;
import io.streamplane.log.QueuedPod;
import io.streamplane.log.ResourceEvent;
import io.streamplane.scheduler.SchedulerEvents;
import io.streamplane.scheduler.SchedulerMetrics;
import io.streamplane.scheduler.framework.NodeInfo;
import io.streamplane.scheduler.framework.NodeVolumeLimits;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Preemption;
import io.streamplane.scheduler.framework.ScheduleResult;
import io.streamplane.scheduler.framework.Scheduler;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.framework.VolumeBinding;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.streams.WallClockTimer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A scheduler's queue of pending pods, for the pod-key partitions this instance owns: pods enter
 * from {@code events} when unbound and meant for this scheduler, leave when bound or deleted, and
 * are tried, by priority then age, against the global view of nodes (the binder's {@code
 * node-usage}, slightly stale) every few milliseconds of wall-clock time.
 *
 * <p>A placement is only a proposal: a {@link BindRequest} to the binder of that node, which alone
 * decides. A pod that fits nowhere gets a {@code FailedScheduling} Event and a PodScheduled =False
 * condition, and is tried again after an exponential backoff (1 s doubling to 10 s) — or at once
 * when the view of the nodes changes, or when the binder rejects it. Several schedulers race
 * safely: the binder never over-commits a node.
 *
 * <p>Placements made by this scheduler instance but not yet visible in its view are counted on
 * their nodes ({@link AssumedPods}, shared by all the instance's queue tasks), with their non-zero
 * requests, so that a burst of replicas — even best-effort ones — spreads over the nodes instead of
 * piling onto the one the stale view makes look emptiest.
 *
 * <p>A pod that fits nowhere may preempt ({@link io.streamplane.scheduler.framework.Preemption},
 * over the pods the view's {@code NodeUsage.pods} shows): the scheduler sets the pod's {@code
 * status.nominatedNodeName} with its FailedScheduling condition, and sends the node's binder a
 * {@link BindRequest} naming the victims, which the binder evicts. The pod is proposed again, as
 * any failed pod, when the view changes — the victims gone — and the binder still grants it only a
 * place that is free. Until then, the pods of this task nominated to a node count there for pods of
 * lower or equal priority, as kube-scheduler's nominated pods do.
 */
public final class SchedulingQueue
    implements Processor<String, SpecificRecord, String, SpecificRecord> {

  public static final String QUEUE = "scheduling-queue";
  public static final String NODES = "nodes";

  /** The global store of claims, volumes and StorageClasses ({@code storage-objects}). */
  public static final String VOLUMES = "storage-objects";

  /** The PodDisruptionBudgets of this task's pod partitions, which preemption honours. */
  public static final String BUDGETS = "scheduling-budgets";

  static final Duration TICK = Duration.ofMillis(50);
  static final Duration BIND_WAIT = Duration.ofSeconds(10);
  static final Duration MAX_BIND_WAIT = Duration.ofSeconds(160);
  static final Duration INITIAL_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  static final int MAX_PER_TICK = 1000;
  static final Duration VIEW_REFRESH = Duration.ofMillis(500);

  private final SchedulerConfig config;
  private final String schedulerId;
  private ProcessorContext<String, SpecificRecord> context;
  private WallClockTimer timer;
  private KeyValueStore<String, QueuedPod> queue;
  private ReadOnlyKeyValueStore<String, NodeUsage> nodes;
  private VolumeBinding.Objects volumeObjects;
  private KeyValueStore<String, PodDisruptionBudget> budgetStore;
  private final AssumedPods assumed;
  private final Budgets budgets;

  /** A queued pod nominated to a node by its preemption, counted there for lesser pods. */
  private record Nominee(String node, int priority, PodRequests requests) {}

  private final Map<String, Nominee> nominees = new HashMap<>();

  /** The pods each node of the view holds, by node name (with the view). */
  private Map<String, List<PlacedPod>> placed = Map.of();

  /** In-memory index of the queue store (pod key → notBefore), so a tick decodes only due pods. */
  private Map<String, Long> dueAt;

  private Set<String> failed;

  /**
   * When each queued pod entered this task's queue (wall clock, ms), for the scheduling-duration
   * metric; pods restored from the store after a restart have none.
   */
  private final Map<String, Long> enqueuedAt = new HashMap<>();

  private SchedulerMetrics.PendingPods pendingPods;

  /** The decoded view of the nodes, refreshed at most every {@link #VIEW_REFRESH}. */
  private List<NodeInfo> view;

  private long viewRefreshedAt;
  private long viewFingerprint;
  private long sequence;

  /**
   * @param assumed the pods this scheduler instance has proposed, shared by all its queue tasks
   * @param budgets the PodDisruptionBudgets known to this scheduler instance, shared by its tasks
   */
  public SchedulingQueue(
      SchedulerConfig config, String schedulerId, AssumedPods assumed, Budgets budgets) {
    this.config = config;
    this.schedulerId = schedulerId;
    this.assumed = assumed;
    this.budgets = budgets;
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.queue = context.getStateStore(QUEUE);
    this.nodes = context.getStateStore(NODES);
    this.volumeObjects = volumeObjects(context.getStateStore(VOLUMES));
    this.budgetStore = context.getStateStore(BUDGETS);
    try (KeyValueIterator<String, PodDisruptionBudget> it = budgetStore.all()) {
      it.forEachRemaining(entry -> budgets.put(entry.key, entry.value));
    }
    this.pendingPods = SchedulerMetrics.pendingPods();
    this.timer = new WallClockTimer(context, this::tick);
    index();
    wakeForNextDue(context.currentSystemTimeMs());
  }

  /**
   * Ticks while pods wait: at the earliest moment one is due, and every {@link #VIEW_REFRESH} while
   * pods that failed wait for the view to change; an empty queue has no tick at all (a punctuation
   * costs a transaction, and a scheduler at rest writes nothing).
   */
  private void wakeForNextDue(long nowMs) {
    long next = Long.MAX_VALUE;
    for (long due : dueAt.values()) {
      next = Math.min(next, due);
    }
    if (!failed.isEmpty()) {
      next = Math.min(next, nowMs + VIEW_REFRESH.toMillis());
    }
    if (next != Long.MAX_VALUE) {
      timer.at(Math.max(next, nowMs + TICK.toMillis()));
    }
  }

  @Override
  public void close() {
    if (pendingPods != null) {
      pendingPods.close();
    }
  }

  @Override
  public void process(Record<String, SpecificRecord> record) {
    if (record.value() instanceof ResourceEvent event && KindObjects.of(event) instanceof Pod pod) {
      QueuedPod queued = queue.get(record.key());
      if (event.getType() != EventType.DELETED && pending(pod)) {
        QueuedPod.Builder entry =
            queued == null
                ? QueuedPod.newBuilder()
                    .setNotBefore(0)
                    .setEnqueuedAt(context.currentSystemTimeMs())
                : QueuedPod.newBuilder(queued);
        if (queued == null) {
          enqueuedAt.put(record.key(), context.currentSystemTimeMs());
        }
        save(record.key(), entry.setPod(pod).build());
      } else {
        boolean bound = event.getType() != EventType.DELETED && holdsAPlace(pod);
        if (bound) {
          assumed.bound(record.key(), context.currentSystemTimeMs());
        } else {
          assumed.forget(record.key());
        }
        Long since = enqueuedAt.get(record.key());
        if (bound && queued != null && since != null) {
          SchedulerMetrics.podScheduled(
              queued.getAttempts(), (context.currentSystemTimeMs() - since) / 1000.0);
        }
        if (queued != null) {
          forget(record.key());
        }
      }
    } else if (record.value() instanceof ResourceEvent event
        && KindObjects.of(event) instanceof PodDisruptionBudget budget) {
      if (event.getType() == EventType.DELETED) {
        budgetStore.delete(record.key());
        budgets.remove(record.key());
      } else {
        budgetStore.put(record.key(), budget);
        budgets.put(record.key(), budget);
      }
    } else if (record.value() instanceof BindRejection rejection) {
      QueuedPod queued = queue.get(record.key());
      assumed.rejected(record.key(), rejection.getRequest().getNodeName());
      if (queued != null) {
        // Retry at once: the view that made the proposal was stale, a fresher one is coming.
        save(
            record.key(),
            QueuedPod.newBuilder(queued)
                .setNotBefore(0)
                .setLastFailure(rejection.getReason())
                .build());
      }
    }
  }

  /** Bound and not finished: its node's ledger counts it. */
  private static boolean holdsAPlace(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() != null
        && !"Succeeded".equals(phase)
        && !"Failed".equals(phase);
  }

  /** Unbound, not being deleted, not finished, and meant for this scheduler. */
  boolean pending(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getNodeName() != null) {
      return false;
    }
    if (pod.getMetadata() == null || pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return false;
    }
    return config.responsibleFor(pod);
  }

  private void tick(long nowMs) {
    try {
      schedule(nowMs);
    } finally {
      wakeForNextDue(nowMs);
    }
  }

  private void schedule(long nowMs) {
    if (dueAt.isEmpty()) {
      pendingPods.set(0, 0);
      return;
    }
    boolean viewChanged = false;
    if (view == null || nowMs - viewRefreshedAt >= VIEW_REFRESH.toMillis()) {
      view = nodeView();
      viewRefreshedAt = nowMs;
      long fingerprint = fingerprint(view, placed);
      viewChanged = fingerprint != viewFingerprint;
      viewFingerprint = fingerprint;
    }
    List<KeyValue<String, QueuedPod>> due = new ArrayList<>();
    for (Map.Entry<String, Long> entry : dueAt.entrySet()) {
      boolean retryOnNewView =
          viewChanged && failed.contains(entry.getKey()) && !assumed.proposed(entry.getKey());
      if (entry.getValue() <= nowMs || retryOnNewView) {
        QueuedPod queued = queue.get(entry.getKey());
        if (queued != null) {
          due.add(KeyValue.pair(entry.getKey(), queued));
        }
      }
    }
    if (due.isEmpty()) {
      countPending(nowMs);
      return;
    }
    due.sort(ORDER);
    // The view with what this instance has proposed and the view cannot show yet; each placement
    // of this tick is added as it is made, so the next pod sees it.
    List<NodeInfo> seen = assumed.applyTo(view, viewRefreshedAt, nowMs);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < seen.size(); i++) {
      index.put(seen.get(i).name(), i);
    }
    for (KeyValue<String, QueuedPod> entry : due.subList(0, Math.min(due.size(), MAX_PER_TICK))) {
      attempt(entry.key, entry.value, seen, index, nowMs);
    }
    countPending(nowMs);
  }

  /** Active: due now; unschedulable: failed its last attempt and waits. Proposed: not pending. */
  private void countPending(long nowMs) {
    long active = 0;
    long unschedulable = 0;
    for (Map.Entry<String, Long> entry : dueAt.entrySet()) {
      if (entry.getValue() <= nowMs) {
        active++;
      } else if (failed.contains(entry.getKey()) && !assumed.proposed(entry.getKey())) {
        unschedulable++;
      }
    }
    pendingPods.set(active, unschedulable);
  }

  /** Rebuilds the in-memory index of the queue from its store (after a start or a restore). */
  private void index() {
    dueAt = new HashMap<>();
    failed = new HashSet<>();
    try (KeyValueIterator<String, QueuedPod> it = queue.all()) {
      while (it.hasNext()) {
        KeyValue<String, QueuedPod> entry = it.next();
        remember(entry.key, entry.value);
      }
    }
  }

  private void save(String podKey, QueuedPod queued) {
    queue.put(podKey, queued);
    remember(podKey, queued);
    timer.at(Math.max(queued.getNotBefore(), context.currentSystemTimeMs() + TICK.toMillis()));
  }

  private void remember(String podKey, QueuedPod queued) {
    dueAt.put(podKey, queued.getNotBefore());
    Pod pod = queued.getPod();
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (nominated == null || nominated.isEmpty()) {
      nominees.remove(podKey);
    } else {
      nominees.put(podKey, new Nominee(nominated, priority(pod), PodRequests.of(pod)));
    }
    if (queued.getLastFailure() != null) {
      failed.add(podKey);
    } else {
      failed.remove(podKey);
    }
  }

  private void forget(String podKey) {
    queue.delete(podKey);
    enqueuedAt.remove(podKey);
    dueAt.remove(podKey);
    failed.remove(podKey);
    nominees.remove(podKey);
    if (dueAt.isEmpty()) {
      pendingPods.set(0, 0); // no tick follows an empty queue
    }
  }

  /**
   * How long a proposal waits for its pod to show up bound before it is proposed again: {@link
   * #BIND_WAIT}, doubling with each earlier attempt up to {@link #MAX_BIND_WAIT}. A binder that
   * accepts writes the BIND in the same transaction, so a proposal is not lost; the wait only
   * covers a binder that does not answer. A fixed wait made an overloaded cluster, whose binds took
   * longer than it, propose every pending pod again and again, and the extra proposals kept it
   * overloaded.
   */
  static Duration bindWait(int earlierAttempts) {
    Duration wait = BIND_WAIT.multipliedBy(1L << Math.min(earlierAttempts, 4));
    return wait.compareTo(MAX_BIND_WAIT) < 0 ? wait : MAX_BIND_WAIT;
  }

  private void attempt(
      String podKey,
      QueuedPod queued,
      List<NodeInfo> seen,
      Map<String, Integer> index,
      long nowMs) {
    Pod pod = queued.getPod();
    long started = System.nanoTime();
    ScheduleResult result;
    VolumeBinding volumes;
    NodeVolumeLimits limits;
    try {
      volumes = VolumeBinding.of(pod, volumeObjects);
      limits = NodeVolumeLimits.of(pod, volumeObjects);
      result =
          Scheduler.schedule(
              pod,
              withNominees(podKey, pod, seen, index),
              placed,
              budgets.all(),
              config,
              seed(podKey, queued),
              volumes,
              limits);
    } catch (RuntimeException e) {
      SchedulerMetrics.attempted(config.schedulerName(), "error", seconds(started));
      throw e;
    }
    SchedulerMetrics.attempted(
        config.schedulerName(),
        result.scheduled() ? "scheduled" : "unschedulable",
        seconds(started));
    if (result.scheduled()) {
      long proposeAgainAt = nowMs + bindWait(queued.getAttempts()).toMillis();
      assumed.assume(podKey, result.nodeName(), result.requests(), proposeAgainAt);
      int at = index.get(result.nodeName());
      seen.set(at, seen.get(at).withPod(result.requests()));
      save(
          podKey,
          QueuedPod.newBuilder(queued)
              .setAttempts(queued.getAttempts() + 1)
              .setNotBefore(proposeAgainAt)
              .build());
      BindRequest request =
          BindRequest.newBuilder()
              .setPodKey(podKey)
              .setPodUid(pod.getMetadata().getUid())
              .setNamespace(pod.getMetadata().getNamespace())
              .setPodName(pod.getMetadata().getName())
              .setNodeName(result.nodeName())
              .setRequests(result.requests().toMap())
              .setVolumeLimits(limits.limitsOn(result.nodeName()))
              .setSchedulerId(schedulerId)
              .setAttempt(queued.getAttempts() + 1)
              .build();
      context.forward(new Record<>(result.nodeName(), request, nowMs));
      preBind(pod, volumes, seen.get(at).node(), nowMs);
      return;
    }
    SchedulerMetrics.preemptionAttempted(
        result.preemption() == null ? 0 : result.preemption().victims().size());
    String nominate = nomination(pod, result);
    if (result.preemption() != null) {
      BindRequest preempt =
          BindRequest.newBuilder()
              .setPodKey(podKey)
              .setPodUid(pod.getMetadata().getUid())
              .setNamespace(pod.getMetadata().getNamespace())
              .setPodName(pod.getMetadata().getName())
              .setNodeName(nominate)
              .setRequests(result.requests().toMap())
              .setSchedulerId(schedulerId)
              .setAttempt(queued.getAttempts() + 1)
              .setPreempt(result.preemption().victims().stream().map(PlacedPod::getKey).toList())
              .setPriority(priority(pod))
              .build();
      context.forward(new Record<>(nominate, preempt, nowMs));
    }
    int attempts = queued.getAttempts() + 1;
    long backoff =
        Math.min(MAX_BACKOFF.toMillis(), INITIAL_BACKOFF.toMillis() << Math.min(attempts - 1, 10));
    save(
        podKey,
        QueuedPod.newBuilder(queued)
            .setAttempts(attempts)
            .setNotBefore(nowMs + backoff)
            .setLastFailure(result.failureMessage())
            .build());
    String nominatedNow = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (!result.failureMessage().equals(queued.getLastFailure())
        || !Objects.equals(emptyToNull(nominatedNow), nominate)) {
      report(pod, result.failureMessage(), nominate, nowMs);
    }
  }

  /**
   * VolumeBinding's PreBind for the node proposed: the volumes matched to the pod's
   * WaitForFirstConsumer claims are bound to them, the claims to provision are annotated with the
   * node. Each write carries the resourceVersion it was read at.
   */
  private void preBind(Pod pod, VolumeBinding volumes, Node node, long nowMs) {
    VolumeBinding.Bindings bindings = volumes.bindings(node);
    if (bindings == null) {
      return;
    }
    for (PersistentVolume pv : bindings.volumes()) {
      context.forward(
          SchedulerEvents.command(Intent.update("persistentvolumes", "", pv), nextId(pod), nowMs));
    }
    for (PersistentVolumeClaim claim : bindings.claims()) {
      context.forward(
          SchedulerEvents.command(
              Intent.update("persistentvolumeclaims", "", claim), nextId(pod), nowMs));
    }
  }

  /** Store keys of {@link #VOLUMES}: {@code <resource>/<namespace>/<name>}. */
  public static String volumeKey(String resource, String namespace, String name) {
    return resource + "/" + namespace + "/" + name;
  }

  private static VolumeBinding.Objects volumeObjects(
      ReadOnlyKeyValueStore<String, ResourceEvent> store) {
    return new VolumeBinding.Objects() {
      @Override
      public PersistentVolumeClaim claim(String namespace, String name) {
        return object(store, volumeKey("persistentvolumeclaims", namespace, name));
      }

      @Override
      public PersistentVolume volume(String name) {
        return object(store, volumeKey("persistentvolumes", "", name));
      }

      @Override
      public StorageClass storageClass(String name) {
        return object(store, volumeKey("storageclasses", "", name));
      }

      @Override
      public CSIDriver csiDriver(String name) {
        return object(store, volumeKey("csidrivers", "", name));
      }

      @Override
      public CSINode csiNode(String name) {
        return object(store, volumeKey("csinodes", "", name));
      }

      @Override
      public List<CSIStorageCapacity> storageCapacities() {
        List<CSIStorageCapacity> all = new ArrayList<>();
        try (KeyValueIterator<String, ResourceEvent> it =
            store.range("csistoragecapacities/", "csistoragecapacities/\uffff")) {
          it.forEachRemaining(e -> all.add((CSIStorageCapacity) KindObjects.of(e.value)));
        }
        return all;
      }

      @Override
      public List<PersistentVolume> volumes() {
        List<PersistentVolume> all = new ArrayList<>();
        try (KeyValueIterator<String, ResourceEvent> it =
            store.range("persistentvolumes/", "persistentvolumes/\uffff")) {
          it.forEachRemaining(e -> all.add((PersistentVolume) KindObjects.of(e.value)));
        }
        return all;
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static <T> T object(ReadOnlyKeyValueStore<String, ResourceEvent> store, String key) {
    ResourceEvent event = store.get(key);
    return event == null ? null : (T) KindObjects.of(event);
  }

  /**
   * The node the pod is nominated to after a failed attempt: the one it preempts on; none when
   * preemption found no candidate; unchanged while it waits for victims still terminating (as
   * kube-scheduler's PostFilter result says).
   */
  private static String nomination(Pod pod, ScheduleResult result) {
    if (result.preemption() != null) {
      return result.preemption().nodeName();
    }
    String current = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    return result.failureMessage().endsWith(Preemption.NOT_ELIGIBLE_TERMINATING)
        ? emptyToNull(current)
        : null;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static int priority(Pod pod) {
    Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return priority == null ? 0 : priority;
  }

  /**
   * The view for {@code pod}: with the pods of this task nominated to a node counted there when
   * their priority is at least the pod's (kube-scheduler's {@code addNominatedPods}), so that a
   * place preempted for a pod is not taken by a lesser one meanwhile.
   */
  private List<NodeInfo> withNominees(
      String podKey, Pod pod, List<NodeInfo> seen, Map<String, Integer> index) {
    if (nominees.isEmpty()) {
      return seen;
    }
    int priority = priority(pod);
    List<NodeInfo> view = null;
    for (Map.Entry<String, Nominee> entry : nominees.entrySet()) {
      Nominee nominee = entry.getValue();
      Integer at = index.get(nominee.node());
      if (entry.getKey().equals(podKey) || nominee.priority() < priority || at == null) {
        continue;
      }
      if (view == null) {
        view = new ArrayList<>(seen);
      }
      view.set(at, view.get(at).withPod(nominee.requests()));
    }
    return view == null ? seen : view;
  }

  /** FailedScheduling: an Event, and the PodScheduled condition kubectl describe shows. */
  private void report(Pod pod, String message, String nominatedNodeName, long nowMs) {
    Instant now = Instant.ofEpochMilli(nowMs);
    context.forward(
        SchedulerEvents.command(
            Intent.create(
                "events",
                "",
                SchedulerEvents.about(pod, "Warning", "FailedScheduling", message, now)),
            nextId(pod),
            nowMs));
    Pod unschedulable = KubeObjects.copy(pod);
    PodStatus status =
        unschedulable.getStatus() == null ? new PodStatus() : unschedulable.getStatus();
    List<PodCondition> conditions = new ArrayList<>();
    if (status.getConditions() != null) {
      status.getConditions().stream()
          .filter(c -> !"PodScheduled".equals(c.getType()))
          .forEach(conditions::add);
    }
    conditions.add(
        PodCondition.newBuilder()
            .setType("PodScheduled")
            .setStatus("False")
            .setReason("Unschedulable")
            .setMessage(message)
            .setLastTransitionTime(now.truncatedTo(ChronoUnit.SECONDS))
            .build());
    status.setConditions(conditions);
    status.setNominatedNodeName(nominatedNodeName);
    unschedulable.setStatus(status);
    context.forward(
        SchedulerEvents.command(
            Intent.updateStatus("pods", "", unschedulable), nextId(pod), nowMs));
  }

  /** The nodes of the view; {@link #placed} is set to the pods they hold. */
  private List<NodeInfo> nodeView() {
    List<NodeInfo> view = new ArrayList<>();
    Map<String, List<PlacedPod>> pods = new HashMap<>();
    try (KeyValueIterator<String, NodeUsage> it = nodes.all()) {
      while (it.hasNext()) {
        NodeUsage usage = it.next().value;
        if (usage != null && usage.getNode() != null) {
          view.add(NodeInfo.of(usage.getNode(), PodRequests.fromMap(usage.getAllocated())));
          if (!usage.getPods().isEmpty()) {
            pods.put(usage.getNodeName(), usage.getPods());
          }
        }
      }
    }
    placed = pods;
    return view;
  }

  private static long fingerprint(List<NodeInfo> view) {
    long hash = view.size();
    for (NodeInfo node : view) {
      hash = hash * 31 + node.node().getMetadata().getName().hashCode();
      hash = hash * 31 + node.requested().hashCode();
      hash = hash * 31 + node.allocatable().hashCode();
      hash = hash * 31 + String.valueOf(node.node().getSpec()).hashCode();
    }
    return hash;
  }

  /** The view's fingerprint, with what preemption reads of the pods (a victim now terminating). */
  private long fingerprint(List<NodeInfo> view, Map<String, List<PlacedPod>> pods) {
    long hash = fingerprint(view);
    for (List<PlacedPod> onNode : new TreeMap<>(pods).values()) {
      for (PlacedPod p : onNode) {
        hash = hash * 31 + p.getKey().hashCode();
        hash = hash * 31 + (p.getTerminating() ? 1 : 0);
      }
    }
    return hash;
  }

  private static double seconds(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1e9;
  }

  private static long seed(String podKey, QueuedPod queued) {
    return podKey.hashCode() * 31L + queued.getAttempts();
  }

  private String nextId(Pod pod) {
    return UUID.nameUUIDFromBytes(
            (schedulerId + "/" + pod.getMetadata().getUid() + "/" + sequence++)
                .getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  /**
   * kube-scheduler's PrioritySort: higher priority first, then the pod that entered the queue first
   * (pods queued before that time was kept count as entering at their creation).
   */
  private static final Comparator<KeyValue<String, QueuedPod>> ORDER =
      Comparator.<KeyValue<String, QueuedPod>>comparingInt(e -> -priority(e.value.getPod()))
          .thenComparingLong(SchedulingQueue::enteredAt)
          .thenComparing(e -> e.key);

  static long enteredAt(KeyValue<String, QueuedPod> e) {
    if (e.value.getEnqueuedAt() > 0) {
      return e.value.getEnqueuedAt();
    }
    Instant created = e.value.getPod().getMetadata().getCreationTimestamp();
    return created == null ? 0 : created.toEpochMilli();
  }
}
