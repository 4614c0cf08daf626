package io.streamplane.controller;

import io.streamplane.api.Deployment;
import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.controller.deployment.DeploymentReconciler;
import io.streamplane.controller.gc.GarbageCollector;
import io.streamplane.controller.namespace.NamespaceReconciler;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The shell of the controllers: keeps the objects of each namespace in a state store, and after
 * every change in a namespace runs each reconciler over the namespace's view, forwarding their
 * intents as commands. Command ids and timestamps derive from the input record, so a replay sends
 * the same commands.
 *
 * <p>Store layout: {@code <namespace>/<resource>.<group>/<name>} → the last event of the object,
 * and {@code <namespace>/~deleted/<uid>} → the DELETED event of an owner, kept while something
 * still refers to it (the garbage collector needs to know an owner is gone, not merely unseen).
 *
 * <p>Limits: each change re-examines its whole namespace, so the cost per event grows with the
 * namespace's size.
 */
final class NamespaceControllers
    implements Processor<String, ResourceEvent, String, ResourceCommand> {

  private static final String DELETED = "~deleted";
  private static final Duration WALL_CLOCK_INTERVAL = Duration.ofSeconds(5);
  private static final Duration EXPECTATIONS_EXPIRE = Duration.ofSeconds(30);
  private static final Duration REMEMBER_DELETED = Duration.ofMinutes(10);
  private static final UserInfo REPLICASET_CONTROLLER =
      ControllerActors.serviceAccount("replicaset-controller");
  private static final UserInfo DEPLOYMENT_CONTROLLER =
      ControllerActors.serviceAccount("deployment-controller");
  private static final UserInfo GARBAGE_COLLECTOR =
      ControllerActors.serviceAccount("generic-garbage-collector");
  private static final UserInfo NAMESPACE_CONTROLLER =
      ControllerActors.serviceAccount("namespace-controller");

  private ProcessorContext<String, ResourceCommand> context;
  private KeyValueStore<String, ResourceEvent> objects;
  private KeyValueStore<String, String> expectations;

  @Override
  public void init(ProcessorContext<String, ResourceCommand> context) {
    this.context = context;
    this.objects = context.getStateStore(ControllersTopology.OBJECTS);
    this.expectations = context.getStateStore(ControllersTopology.EXPECTATIONS);
    context.schedule(WALL_CLOCK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::onWallClock);
  }

  /**
   * The namespace an event belongs to: its own for namespaced objects, its name for a Namespace.
   */
  static String namespaceOf(ResourceEvent event) {
    if (event.getObject() instanceof Namespace) {
      return event.getName();
    }
    return event.getNamespace() == null || event.getNamespace().isEmpty()
        ? null
        : event.getNamespace();
  }

  @Override
  public void process(Record<String, ResourceEvent> record) {
    String namespace = record.key();
    ResourceEvent event = record.value();
    String key = key(namespace, event);
    if (event.getType() == EventType.DELETED) {
      objects.delete(key);
      String uid = KubeObjects.meta((SpecificRecord) event.getObject()).getUid();
      if (uid != null && !(event.getObject() instanceof Namespace)) {
        objects.put(namespace + "/" + DELETED + "/" + uid, deletedAt(event, record.timestamp()));
      }
    } else {
      objects.put(key, event);
    }
    if (!triggersReconcile(namespace, event)) {
      return;
    }
    RecordMetadata position = context.recordMetadata().orElse(null);
    String seed =
        (position == null
                ? "?"
                : position.topic() + "/" + position.partition() + "/" + position.offset())
            + "/"
            + record.timestamp();
    reconcile(namespace, Instant.ofEpochMilli(record.timestamp()), seed);
  }

  /**
   * Whether a change can matter to a controller: the kinds they manage, anything owned or owning
   * (the garbage collector), anything being deleted, and everything in a Terminating namespace.
   * Leases and Events, written every few seconds by every node, change nothing else, and skipping
   * them keeps the cost of a busy namespace like kube-node-lease flat.
   */
  private boolean triggersReconcile(String namespace, ResourceEvent event) {
    Object object = event.getObject();
    if (object instanceof Deployment
        || object instanceof ReplicaSet
        || object instanceof Pod
        || object instanceof Namespace
        || event.getType() == EventType.DELETED) {
      return true;
    }
    var meta = KubeObjects.meta((SpecificRecord) object);
    if (meta.getDeletionTimestamp() != null || !Owners.refs(meta).isEmpty()) {
      return true;
    }
    ResourceEvent ns = objects.get(namespace + "/namespaces./" + namespace);
    return ns != null
        && ns.getObject() instanceof Namespace n
        && n.getMetadata() != null
        && n.getMetadata().getDeletionTimestamp() != null;
  }

  /** Runs every reconciler over the namespace's view and forwards their intents as commands. */
  private void reconcile(String namespace, Instant now, String idSeed) {
    NamespaceView view = view(namespace);
    List<Decision> decisions = new ArrayList<>();
    if (view.namespace() == null || !view.terminating()) {
      for (Deployment deployment : view.all(Deployment.class)) {
        decisions.addAll(deploymentDecisions(deployment, view, now));
      }
      List<Pod> pods = view.all(Pod.class);
      for (ReplicaSet rs : view.all(ReplicaSet.class)) {
        ReplicaSetReconciler.reconcile(rs, pods, now)
            .forEach(i -> decisions.add(new Decision(i, REPLICASET_CONTROLLER)));
      }
    }
    GarbageCollector.collect(view).forEach(i -> decisions.add(new Decision(i, GARBAGE_COLLECTOR)));
    if (view.namespace() != null) {
      NamespaceReconciler.reconcile(view)
          .forEach(i -> decisions.add(new Decision(i, NAMESPACE_CONTROLLER)));
    }
    forget(namespace, view, now);
    for (int i = 0; i < decisions.size(); i++) {
      Decision decision = decisions.get(i);
      ResourceCommand command = decision.intent().toCommand(commandId(idSeed, i), decision.actor());
      context.forward(
          new Record<>(ResourceKey.of(command).toString(), command, now.toEpochMilli()));
    }
  }

  /**
   * The wall-clock punctuator: what only the passing of time changes — a rollout's progress
   * deadline, a pod becoming available after minReadySeconds — is decided here, for the namespaces
   * with a Deployment or ReplicaSet still in motion. Like every decision it acts only by writing
   * commands.
   */
  private void onWallClock(long wallClockMs) {
    Set<String> unsettled = new TreeSet<>();
    try (KeyValueIterator<String, ResourceEvent> it = objects.all()) {
      while (it.hasNext()) {
        KeyValue<String, ResourceEvent> entry = it.next();
        if (inMotion(entry.value.getObject())) {
          unsettled.add(entry.key.substring(0, entry.key.indexOf('/')));
        }
      }
    }
    for (String namespace : unsettled) {
      reconcile(
          namespace, Instant.ofEpochMilli(wallClockMs), "clock/" + namespace + "/" + wallClockMs);
    }
  }

  private static boolean inMotion(Object object) {
    if (object instanceof Deployment deployment) {
      if (deployment.getSpec() == null
          || deployment.getSpec().getProgressDeadlineSeconds() == null) {
        return false;
      }
      var conditions =
          deployment.getStatus() == null ? null : deployment.getStatus().getConditions();
      if (conditions == null) {
        return true;
      }
      return conditions.stream()
          .noneMatch(
              c ->
                  "Progressing".equals(c.getType())
                      && ("NewReplicaSetAvailable".equals(c.getReason())
                          || "ProgressDeadlineExceeded".equals(c.getReason())));
    }
    if (object instanceof ReplicaSet rs && rs.getSpec() != null && rs.getStatus() != null) {
      Integer minReady = rs.getSpec().getMinReadySeconds();
      return minReady != null
          && minReady > 0
          && !Objects.equals(
              rs.getStatus().getReadyReplicas(), rs.getStatus().getAvailableReplicas());
    }
    return false;
  }

  private record Decision(Intent intent, UserInfo actor) {}

  /**
   * The deployment controller, guarded by expectations as Kubernetes' is: after writing changes to
   * a Deployment's ReplicaSets, it decides on that Deployment again only once the events show those
   * changes (or after {@link #EXPECTATIONS_EXPIRE}, for a write that failed). Deciding from a view
   * that misses its own last writes could otherwise exceed maxSurge across ReplicaSets.
   */
  private List<Decision> deploymentDecisions(
      Deployment deployment, NamespaceView view, Instant now) {
    String expectationKey = view.name() + "/" + deployment.getMetadata().getName();
    if (!expectationsMet(expectations.get(expectationKey), view, now)) {
      return List.of();
    }
    List<Decision> decisions = decideDeployment(deployment, view, now);
    StringBuilder expected = new StringBuilder();
    for (Decision decision : decisions) {
      Intent intent = decision.intent();
      if (intent.resource().equals("replicasets")) {
        String version =
            intent.object() == null ? "" : KubeObjects.meta(intent.object()).getResourceVersion();
        expected
            .append(intent.verb())
            .append('|')
            .append(intent.name())
            .append('|')
            .append(version == null ? "" : version)
            .append('|')
            .append(now.toEpochMilli())
            .append('\n');
      }
    }
    if (expected.isEmpty()) {
      expectations.delete(expectationKey);
    } else {
      expectations.put(expectationKey, expected.toString());
    }
    return decisions;
  }

  private static boolean expectationsMet(String expected, NamespaceView view, Instant now) {
    if (expected == null) {
      return true;
    }
    Map<String, ReplicaSet> byName = new HashMap<>();
    view.all(ReplicaSet.class).forEach(rs -> byName.put(rs.getMetadata().getName(), rs));
    for (String line : expected.split("\n")) {
      String[] parts = line.split("\\|", -1);
      if (parts.length < 4
          || now.toEpochMilli() - Long.parseLong(parts[3]) > EXPECTATIONS_EXPIRE.toMillis()) {
        continue;
      }
      ReplicaSet rs = byName.get(parts[1]);
      boolean met =
          switch (parts[0]) {
            case "CREATE" -> rs != null;
            case "DELETE" -> rs == null || rs.getMetadata().getDeletionTimestamp() != null;
            default -> rs == null || !parts[2].equals(rs.getMetadata().getResourceVersion());
          };
      if (!met) {
        return false;
      }
    }
    return true;
  }

  private static List<Decision> decideDeployment(
      Deployment deployment, NamespaceView view, Instant now) {
    String uid = deployment.getMetadata().getUid();
    List<ReplicaSet> owned =
        view.all(ReplicaSet.class).stream()
            .filter(rs -> Owners.controlledBy(rs.getMetadata(), uid))
            .toList();
    Set<String> rsUids = new HashSet<>();
    owned.forEach(rs -> rsUids.add(rs.getMetadata().getUid()));
    List<Pod> pods =
        view.all(Pod.class).stream()
            .filter(
                p -> {
                  var controller = Owners.controllerOf(p.getMetadata());
                  return controller != null && rsUids.contains(controller.getUid());
                })
            .toList();
    DeploymentReconciler.Decision decision =
        DeploymentReconciler.reconcile(deployment, owned, pods, now);
    List<Decision> decisions = new ArrayList<>();
    decision.intents().forEach(i -> decisions.add(new Decision(i, DEPLOYMENT_CONTROLLER)));
    if (decision.status() != null && !KubeObjects.same(decision.status(), deployment.getStatus())) {
      Deployment updated = KubeObjects.copy(deployment);
      updated.setStatus(decision.status());
      decisions.add(
          new Decision(Intent.updateStatus("deployments", "apps", updated), DEPLOYMENT_CONTROLLER));
    }
    return decisions;
  }

  private NamespaceView view(String namespace) {
    Namespace ns = null;
    List<ResourceEvent> inNamespace = new ArrayList<>();
    Set<String> deleted = new HashSet<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan(namespace + "/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        KeyValue<String, ResourceEvent> entry = it.next();
        if (entry.key.startsWith(namespace + "/" + DELETED + "/")) {
          deleted.add(entry.key.substring((namespace + "/" + DELETED + "/").length()));
        } else if (entry.value.getObject() instanceof Namespace n) {
          ns = n;
        } else {
          inNamespace.add(entry.value);
        }
      }
    }
    return new NamespaceView(namespace, ns, inNamespace, deleted);
  }

  /**
   * Drops the memory of deleted owners that nothing refers to any more and that were deleted more
   * than {@link #REMEMBER_DELETED} ago: a dependent created just before its owner's deletion (a pod
   * a ReplicaSet asked for) can arrive after it, and must still find its owner gone.
   */
  private void forget(String namespace, NamespaceView view, Instant now) {
    Set<String> referenced = new HashSet<>();
    for (ResourceEvent event : view.objects()) {
      Owners.refs(KubeObjects.meta((SpecificRecord) event.getObject()))
          .forEach(ref -> referenced.add(ref.getUid()));
    }
    Instant horizon = now.minus(REMEMBER_DELETED);
    List<String> stale = new ArrayList<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan(namespace + "/" + DELETED + "/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        KeyValue<String, ResourceEvent> entry = it.next();
        Instant deleted =
            KubeObjects.meta((SpecificRecord) entry.value.getObject()).getDeletionTimestamp();
        if (!referenced.contains(entry.key.substring(entry.key.lastIndexOf('/') + 1))
            && (deleted == null || deleted.isBefore(horizon))) {
          stale.add(entry.key);
        }
      }
    }
    stale.forEach(objects::delete);
  }

  /** The DELETED event with the time of the deletion in the object's deletionTimestamp. */
  private static ResourceEvent deletedAt(ResourceEvent event, long timestamp) {
    SpecificRecord object = (SpecificRecord) event.getObject();
    ObjectMeta meta = KubeObjects.meta(object);
    if (meta.getDeletionTimestamp() != null) {
      return event;
    }
    SpecificRecord marked =
        KubeObjects.withMeta(
            object,
            ObjectMeta.newBuilder(meta)
                .setDeletionTimestamp(Instant.ofEpochMilli(timestamp))
                .build());
    return ResourceEvent.newBuilder(event).setObject(marked).build();
  }

  private static String key(String namespace, ResourceEvent event) {
    return namespace + "/" + event.getResource() + "." + event.getGroup() + "/" + event.getName();
  }

  /** Same input record, same decision index: the same id on every replay. */
  private static String commandId(String seed, int index) {
    return UUID.nameUUIDFromBytes((seed + "/" + index).getBytes(StandardCharsets.UTF_8)).toString();
  }
}
