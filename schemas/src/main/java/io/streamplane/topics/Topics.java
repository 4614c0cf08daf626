package io.streamplane.topics;

import io.streamplane.api.Pod;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.BindRejection;
import io.streamplane.log.BindRequest;
import io.streamplane.log.CommandResult;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.serde.AvroSerde;
import io.streamplane.schema.serde.SchemaCatalog;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The catalogue of a cluster's topics: one typed, immutable description per topic, with serdes
 * built from the injected schema catalog. See docs/architecture.md for who writes and reads each.
 */
public final class Topics {

  public static final String COMMANDS = "commands";
  public static final String EVENTS = "events";
  public static final String RESULTS = "results";
  public static final String BINDINGS = "bindings";
  public static final String AUDIT = "audit";
  public static final String SCHEMAS = "schemas";
  public static final String BIND_REQUESTS = "bind-requests";
  public static final String BIND_REJECTIONS = "bind-rejections";
  public static final String NODE_USAGE = "node-usage";
  public static final String CONTROLLER_REQUESTS = "controller-requests";
  public static final String STORAGE_OBJECTS = "storage-objects";

  private static final long RESULTS_RETENTION_MS = Duration.ofHours(1).toMillis();
  private static final long AUDIT_RETENTION_MS = Duration.ofDays(30).toMillis();
  private static final long CONTROLLER_REQUESTS_RETENTION_MS = Duration.ofDays(1).toMillis();

  private final TopicLayout layout;
  private final SchemaCatalog catalog;
  private final Topic<String, ResourceCommand> commands;
  private final Topic<String, ResourceEvent> events;
  private final Topic<String, CommandResult> results;
  private final Topic<String, Pod> bindings;
  private final Topic<String, AuditEvent> audit;
  private final Topic<String, String> schemas;
  private final Topic<String, BindRequest> bindRequests;
  private final Topic<String, BindRejection> bindRejections;
  private final Topic<String, NodeUsage> nodeUsage;
  private final Topic<String, ResourceCommand> controllerRequests;
  private final Topic<String, ResourceEvent> storageObjects;

  public Topics(TopicLayout layout, SchemaCatalog catalog) {
    this.layout = layout;
    this.catalog = catalog;
    Serde<String> keys = Serdes.String();
    this.commands =
        new Topic<>(
            spec(COMMANDS, layout.logPartitions(), keptForever()),
            keys,
            new AvroSerde<>(ResourceCommand.class, catalog));
    this.events =
        new Topic<>(
            spec(EVENTS, layout.logPartitions(), keptForever()),
            keys,
            new AvroSerde<>(ResourceEvent.class, catalog));
    this.results =
        new Topic<>(
            spec(RESULTS, layout.logPartitions(), deletedAfter(RESULTS_RETENTION_MS)),
            keys,
            new AvroSerde<>(CommandResult.class, catalog));
    this.bindings =
        new Topic<>(
            spec(BINDINGS, layout.bindingsPartitions(), compacted()),
            keys,
            new AvroSerde<>(Pod.class, catalog));
    this.audit =
        new Topic<>(
            spec(AUDIT, layout.auditPartitions(), deletedAfter(AUDIT_RETENTION_MS)),
            keys,
            new AvroSerde<>(AuditEvent.class, catalog));
    this.schemas = new Topic<>(schemasSpec(layout), keys, Serdes.String());
    this.bindRequests =
        new Topic<>(
            spec(BIND_REQUESTS, layout.logPartitions(), deletedAfter(RESULTS_RETENTION_MS)),
            keys,
            new AvroSerde<>(BindRequest.class, catalog));
    this.bindRejections =
        new Topic<>(
            spec(BIND_REJECTIONS, layout.logPartitions(), deletedAfter(RESULTS_RETENTION_MS)),
            keys,
            new AvroSerde<>(BindRejection.class, catalog));
    this.nodeUsage =
        new Topic<>(
            spec(NODE_USAGE, layout.logPartitions(), compacted()),
            keys,
            new AvroSerde<>(NodeUsage.class, catalog));
    this.controllerRequests =
        new Topic<>(
            spec(
                CONTROLLER_REQUESTS,
                layout.logPartitions(),
                deletedAfter(CONTROLLER_REQUESTS_RETENTION_MS)),
            keys,
            new AvroSerde<>(ResourceCommand.class, catalog));
    this.storageObjects =
        new Topic<>(
            spec(STORAGE_OBJECTS, layout.logPartitions(), compacted()),
            keys,
            new AvroSerde<>(ResourceEvent.class, catalog));
  }

  public TopicLayout layout() {
    return layout;
  }

  /** The schema catalog the serdes use; for state stores of Streamplane's own record types. */
  public SchemaCatalog catalog() {
    return catalog;
  }

  /** Resource commands, keyed by resource key; written by gateways, controllers, schedulers. */
  public Topic<String, ResourceCommand> commands() {
    return commands;
  }

  /** Resource events, keyed by resource key; written by the store only. The source of truth. */
  public Topic<String, ResourceEvent> events() {
    return events;
  }

  /** Command outcomes, keyed by command id, on the partition the requester reads. */
  public Topic<String, CommandResult> results() {
    return results;
  }

  /** Bound pods by node (key {@code node/podKey}); compacted; what node workers consume. */
  public Topic<String, Pod> bindings() {
    return bindings;
  }

  /** One record per request stage, keyed by audit id. */
  public Topic<String, AuditEvent> audit() {
    return audit;
  }

  /** Avro schemas by fingerprint (hex); compacted. */
  public Topic<String, String> schemas() {
    return schemas;
  }

  /** Scheduling proposals, keyed by node name; read by the binder. */
  public Topic<String, BindRequest> bindRequests() {
    return bindRequests;
  }

  /** Proposals the binder refused, keyed by pod key (co-partitioned with events). */
  public Topic<String, BindRejection> bindRejections() {
    return bindRejections;
  }

  /** Each node and its allocated requests, by node name; compacted; the schedulers' view. */
  public Topic<String, NodeUsage> nodeUsage() {
    return nodeUsage;
  }

  /**
   * The writes the controllers ask for, keyed by resource key: the gateways execute them through
   * their registry (decoding, defaulting, admission), so they reach {@code commands} as admitted as
   * a client's. Kept a day: a request no gateway executed by then is decided again by its
   * controller, which resyncs.
   */
  public Topic<String, ResourceCommand> controllerRequests() {
    return controllerRequests;
  }

  /**
   * The PersistentVolumeClaims, PersistentVolumes and StorageClasses as their last event, by {@code
   * <resource>/<namespace>/<name>}; compacted, a tombstone once deleted. Written by the schedulers
   * from the events of their partitions; every scheduler reads all of it (its volume binding's
   * view).
   */
  public Topic<String, ResourceEvent> storageObjects() {
    return storageObjects;
  }

  public List<TopicSpec> all() {
    return List.of(
        commands.spec(),
        events.spec(),
        results.spec(),
        bindings.spec(),
        audit.spec(),
        schemas.spec(),
        bindRequests.spec(),
        bindRejections.spec(),
        nodeUsage.spec(),
        controllerRequests.spec(),
        storageObjects.spec());
  }

  /** The schemas topic's spec for a layout, needed before a catalog (and so Topics) exists. */
  public static TopicSpec schemasSpec(TopicLayout layout) {
    return spec(layout, SCHEMAS, 1, compacted());
  }

  private TopicSpec spec(String topic, int partitions, Map<String, String> configs) {
    return spec(layout, topic, partitions, configs);
  }

  private static TopicSpec spec(
      TopicLayout layout, String topic, int partitions, Map<String, String> configs) {
    Map<String, String> all = new HashMap<>(configs);
    if (layout.minInSyncReplicas() > 1) {
      all.put(
          TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(layout.minInSyncReplicas()));
    }
    return new TopicSpec(layout.topicName(topic), partitions, layout.replicationFactor(), all);
  }

  private static Map<String, String> keptForever() {
    return Map.of(
        TopicConfig.CLEANUP_POLICY_CONFIG,
        TopicConfig.CLEANUP_POLICY_DELETE,
        TopicConfig.RETENTION_MS_CONFIG,
        "-1");
  }

  private static Map<String, String> deletedAfter(long retentionMs) {
    return Map.of(
        TopicConfig.CLEANUP_POLICY_CONFIG,
        TopicConfig.CLEANUP_POLICY_DELETE,
        TopicConfig.RETENTION_MS_CONFIG,
        Long.toString(retentionMs));
  }

  private static Map<String, String> compacted() {
    return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
  }
}
