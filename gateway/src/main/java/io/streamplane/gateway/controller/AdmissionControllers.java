package io.streamplane.gateway.controller;

import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.metrics.GatewayMetrics;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The controllers the admission plugins rely on, run by every gateway over its own cache: the
 * ServiceAccount controller with the root-CA publisher ({@link ServiceAccountController}: a {@code
 * default} ServiceAccount and a {@code kube-root-ca.crt} ConfigMap in every namespace, which the
 * ServiceAccount plugin needs) and the ResourceQuota controller ({@link ResourceQuotaController}:
 * each quota's usage in its status, which the ResourceQuota plugin charges). Each reacts to the
 * changes of what it reads and resyncs every namespace every {@code resync}. And the repair loop of
 * the service allocator ({@link ServiceAllocationRepair}), every {@link #REPAIR_INTERVAL}, and the
 * controllers of CustomResourceDefinitions ({@link CustomResourceDefinitionController}), which also
 * keep the kinds they define served by this gateway.
 *
 * <p>They run in the gateway rather than with the controllers of streams-apps because they read the
 * same cache as the plugins and write through the API's own admission chain, as
 * kube-controller-manager's do through kube-apiserver.
 */
public final class AdmissionControllers implements AutoCloseable {

  /** The field manager of their writes, as kube-controller-manager's. */
  static final String MANAGER = "kube-controller-manager";

  private static final Duration RETRY = Duration.ofSeconds(1);

  /** How often the cluster IP claims are checked against the Services. */
  static final Duration REPAIR_INTERVAL = Duration.ofSeconds(10);

  private final List<NamespaceQueue> queues;
  private final ServiceAccountController accounts;
  private final NamespaceQueue accountQueue;
  private final WatchCache cache;
  private final java.util.concurrent.ScheduledExecutorService repair;
  private final WatchCache.Registration deletions;
  private final CustomResourceDefinitionController definitions;

  private AdmissionControllers(
      List<NamespaceQueue> queues,
      ServiceAccountController accounts,
      NamespaceQueue accountQueue,
      WatchCache cache,
      java.util.concurrent.ScheduledExecutorService repair,
      WatchCache.Registration deletions,
      CustomResourceDefinitionController definitions) {
    this.queues = queues;
    this.accounts = accounts;
    this.accountQueue = accountQueue;
    this.cache = cache;
    this.repair = repair;
    this.deletions = deletions;
    this.definitions = definitions;
  }

  /** Publishes {@code pem} (null: nothing) as {@code kube-root-ca.crt} in every namespace. */
  public void publishRootCa(String pem) {
    accounts.rootCa(pem);
    cache
        .list("", "namespaces", null, o -> true)
        .items()
        .forEach(ns -> accountQueue.add(ns.path("metadata").path("name").asText()));
  }

  /**
   * {@code rootCa}: the cluster CA's PEM to publish in every namespace, or null for none; {@code
   * systemWrites}: how the repair loop claims and releases cluster IPs and node ports.
   */
  public static AdmissionControllers start(
      WatchCache cache,
      ResourceService service,
      io.streamplane.gateway.admission.SystemWrites systemWrites,
      ResourceRegistry registry,
      UserInfo actor,
      String rootCa,
      Duration resync) {
    WriteOptions options = new WriteOptions(actor, false, "Strict", null, MANAGER, null, null);
    ServiceAccountController accounts =
        new ServiceAccountController(
            cache,
            service,
            registry.byResource("", "serviceaccounts").orElseThrow(),
            registry.byResource("", "configmaps").orElseThrow(),
            options,
            rootCa);
    NamespaceQueue accountQueue =
        new NamespaceQueue("serviceaccounts-controller", cache, accounts::sync, RETRY)
            .watch("", "namespaces")
            .watch("", "serviceaccounts")
            .watch("", "configmaps")
            .start(resync);
    List<ResourceType> counted =
        registry.all().stream().filter(t -> t.stored() && !t.isView() && t.namespaced()).toList();
    ResourceQuotaController quotas =
        new ResourceQuotaController(
            cache,
            service,
            registry.byResource("", "resourcequotas").orElseThrow(),
            counted,
            options,
            Clock.systemUTC());
    NamespaceQueue quotaQueue =
        new NamespaceQueue("resourcequota-controller", cache, quotas::sync, RETRY);
    for (ResourceType type : counted) {
      if (type.group().isEmpty() && type.plural().equals("resourcequotas")) {
        quotaQueue.watch(type.group(), type.plural(), ResourceQuotaController::needsSync);
      } else if (type.group().isEmpty() && type.plural().equals("pods")) {
        quotaQueue.watch(type.group(), type.plural(), ResourceQuotaController::podReleases);
      } else if (!type.plural().equals("events")) {
        quotaQueue.watch(type.group(), type.plural(), ResourceQuotaController::releases);
      }
    }
    quotaQueue.start(resync);
    java.util.concurrent.ScheduledExecutorService repair =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "service-allocation-repair");
              t.setDaemon(true);
              return t;
            });
    ServiceAllocationRepair allocations =
        new ServiceAllocationRepair(
            cache, systemWrites, Clock.systemUTC(), ServiceAllocationRepair.configuredGrace());
    repair.scheduleWithFixedDelay(
        () -> {
          try {
            long started = System.currentTimeMillis();
            allocations.repair();
            GatewayMetrics.roundCompleted("service-allocation-repair", started);
          } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(ServiceAllocationRepair.class)
                .warn("the service allocation repair failed: {}", e.toString());
          }
        },
        REPAIR_INTERVAL.toMillis(),
        REPAIR_INTERVAL.toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS);
    WatchCache.Registration deletions =
        cache.watch(
            "",
            "services",
            null,
            change -> change.type().equals("DELETED"),
            change -> repair.execute(() -> allocations.releaseDeleted(change.object())));
    CustomResourceDefinitionController definitions =
        new CustomResourceDefinitionController(cache, service, registry, options, Clock.systemUTC())
            .start();
    return new AdmissionControllers(
        List.of(accountQueue, quotaQueue),
        accounts,
        accountQueue,
        cache,
        repair,
        deletions,
        definitions);
  }

  @Override
  public void close() {
    definitions.close();
    deletions.close();
    repair.shutdownNow();
    queues.forEach(NamespaceQueue::close);
  }
}
