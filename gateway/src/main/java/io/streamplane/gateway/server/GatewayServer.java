package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PriorityClass;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.ServiceAllocation;
import io.streamplane.gateway.admission.SystemWrites;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Discovery;
import io.streamplane.gateway.api.OpenApiV3;
import io.streamplane.gateway.api.table.TableConverter;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.audit.Auditor;
import io.streamplane.gateway.audit.KafkaAuditSink;
import io.streamplane.gateway.authn.ServiceAccountTokens;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.BootstrapPolicy;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.controller.AdmissionControllers;
import io.streamplane.gateway.controller.CertificateSigningController;
import io.streamplane.gateway.controller.ControllerRequests;
import io.streamplane.gateway.controller.ControllerRequestsConsumer;
import io.streamplane.gateway.controller.GatewayPeers;
import io.streamplane.gateway.history.HistoryIndex;
import io.streamplane.gateway.metrics.GatewayMetrics;
import io.streamplane.gateway.pki.CertificateAuthority;
import io.streamplane.gateway.pki.Pem;
import io.streamplane.gateway.podautoscaler.HorizontalPodAutoscalerController;
import io.streamplane.gateway.resourcemetrics.MetricsScraper;
import io.streamplane.gateway.resourcemetrics.MetricsStorage;
import io.streamplane.gateway.resourcemetrics.ResourceMetricsApi;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.gateway.write.CommandClient;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.kinds.scheduling.PriorityClassStrategy;
import io.streamplane.log.UserInfo;
import io.streamplane.metrics.ProcessMetrics;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.eclipse.jetty.http.spi.JettyHttpServer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway: the Kubernetes API on {@code host:port}, over a {@link WatchCache} of {@code events}
 * and a {@link CommandClient} on {@code commands}/{@code results}. Several gateways may serve one
 * cluster; each reads its own partition of {@code results} ({@code replyPartition}). {@code
 * /metrics} on the same port serves every metric of the process, the JVM's included.
 *
 * <p>The HTTP server is Jetty. Every request first passes the filters of the {@link HandlerChain}
 * (request info, metrics, authentication, audit, impersonation, authorization); then {@link
 * PodStreams} takes the requests that upgrade the connection to WebSocket ({@code pods/exec},
 * {@code pods/attach}, {@code pods/portforward}), which the JDK's own server cannot do, and {@link
 * ApiHandler}, a {@code com.sun.net.httpserver} handler run by Jetty's {@code jetty-http-spi},
 * answers the rest. A blocking thread per request: watches and followed logs hold theirs while they
 * stream.
 */
public final class GatewayServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);
  private static final int WATCH_WINDOW = 100_000;

  /** At most this many requests at once, watches included (each holds a thread). */
  private static final int MAX_THREADS = 10_000;

  /**
   * How long a connection may stay silent: kubelet's default stream idle timeout, so that a quiet
   * watch, an idle {@code kubectl exec} shell or a port-forward is not cut.
   */
  static final Duration IDLE_TIMEOUT = Duration.ofHours(4);

  /** How often the default RBAC policy and the aggregated ClusterRoles are checked. */
  public static final Duration BOOTSTRAP_POLICY_INTERVAL = Duration.ofSeconds(10);

  /**
   * How often the system namespaces are checked: as often as the default policy, where
   * kube-apiserver checks once a minute, so that nodes get {@code kube-node-lease} back well within
   * their grace period. A check reads four objects of the cache and writes nothing when they exist.
   */
  public static final Duration SYSTEM_NAMESPACES_INTERVAL = BOOTSTRAP_POLICY_INTERVAL;

  /** How often the admission controllers check every namespace besides reacting to changes. */
  public static final Duration ADMISSION_CONTROLLERS_RESYNC = Duration.ofMinutes(5);

  /**
   * The namespaces every cluster has, created by the first gateway as kube-apiserver does, and
   * created again when deleted ({@link #keepSystemNamespaces}).
   */
  public static final List<String> SYSTEM_NAMESPACES =
      List.of("default", "kube-system", "kube-public", "kube-node-lease");

  private static final String RBAC_GROUP = "rbac.authorization.k8s.io";
  private static final BootstrapPolicy BOOTSTRAP_POLICY = BootstrapPolicy.kubernetes();

  /** Whom a gateway without authentication serves every request as. */
  private static final UserInfo ADMIN =
      UserInfo.newBuilder()
          .setUsername("kubernetes-admin")
          .setGroups(List.of("system:masters", "system:authenticated"))
          .build();

  /** Whom the gateway's own writes (quota charges) are recorded as: kube-apiserver's loopback. */
  private static final UserInfo API_SERVER =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters", "system:authenticated"))
          .build();

  /** Whom the horizontal pod autoscaler's writes are recorded as, as kube-controller-manager's. */
  static final UserInfo HPA_CONTROLLER =
      UserInfo.newBuilder()
          .setUsername("system:serviceaccount:kube-system:horizontal-pod-autoscaler")
          .setGroups(
              List.of(
                  "system:serviceaccounts",
                  "system:serviceaccounts:kube-system",
                  "system:authenticated"))
          .build();

  /**
   * Whether this gateway runs the autoscalers: the live gateway whose address sorts first does, so
   * each autoscaler is decided in one place; alone, or before the group is known, this one does.
   */
  boolean leadsAutoscaling() {
    GatewayPeers known = peers;
    Optional<java.util.Set<String>> live = known == null ? Optional.empty() : known.addresses();
    if (live.isEmpty() || live.get().isEmpty()) {
      return true;
    }
    return new java.util.TreeSet<>(live.get()).first().equals(advertisedHost() + ":" + port());
  }

  /** Whom the admission controllers' writes are recorded as. */
  private static final UserInfo CONTROLLER_MANAGER =
      UserInfo.newBuilder()
          .setUsername("system:kube-controller-manager")
          .setGroups(List.of("system:authenticated"))
          .build();

  private final Server http;
  private final ServerConnector connector;
  private final boolean tls;
  private final WatchCache cache;
  private final HistoryIndex history;
  private Path temporaryHistory;

  /**
   * The service range, whose first and tenth addresses the kubernetes and kube-dns Services hold.
   */
  private String serviceRange = ServiceAllocation.DEFAULT_RANGE;

  private final CommandClient commands;
  private final ResourceService service;
  private final ResourceRegistry registry;
  private final HealthChecks health;
  private volatile boolean closing;
  private volatile AdmissionControllers controllers;
  private volatile ControllerRequestsConsumer controllerRequests;
  private volatile GatewayPeers peers;
  private volatile CertificateSigningController signer;
  private volatile MetricsScraper metricsScraper;
  private volatile MetricsStorage metricsStorage;
  private volatile HorizontalPodAutoscalerController autoscalers;
  private final Auditor auditor;

  /**
   * Writes the default policy's objects side by side: each write waits for the store, and one after
   * another the ~100 objects of a fresh cluster took tens of seconds while the store was busy with
   * other commands.
   */
  private final ExecutorService defaultsWriters =
      Executors.newFixedThreadPool(
          DEFAULTS_WRITERS,
          r -> {
            Thread thread = new Thread(r, "defaults-writer");
            thread.setDaemon(true);
            return thread;
          });

  private static final int DEFAULTS_WRITERS = 16;

  private final ScheduledExecutorService systemNamespaces =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "system-namespaces");
            thread.setDaemon(true);
            return thread;
          });

  private GatewayServer(
      Server http,
      ServerConnector connector,
      boolean tls,
      WatchCache cache,
      HistoryIndex history,
      CommandClient commands,
      ResourceService service,
      ResourceRegistry registry,
      Auditor auditor,
      HealthChecks health) {
    this.http = http;
    this.auditor = auditor;
    this.connector = connector;
    this.tls = tls;
    this.cache = cache;
    this.history = history;
    this.commands = commands;
    this.service = service;
    this.registry = registry;
    this.health = health;
    addHealthChecks();
  }

  /**
   * The checks of {@code /livez} and {@code /readyz}, named as kube-apiserver names its own where
   * they mean the same: the watch cache follows the log ({@code log}), and the post-start hooks
   * have run — the system namespaces, the default RBAC policy (aggregated ClusterRoles included)
   * and the system priority classes exist as this gateway's cache sees them, and so does the {@code
   * kubernetes} Service; {@code /readyz} fails too once the gateway is shutting down. A gateway
   * answers ready only when its authorizer sees Kubernetes' default policy.
   */
  private void addHealthChecks() {
    health
        .add("log", cache::problem)
        .add(
            "poststarthook/start-system-namespaces-controller",
            HealthChecks.postStartHook(
                () ->
                    SYSTEM_NAMESPACES.stream()
                        .allMatch(ns -> cache.get("", "namespaces", null, ns).isPresent()),
                "the system namespaces do not all exist yet"))
        .add(
            "poststarthook/rbac/bootstrap-roles",
            HealthChecks.postStartHook(
                this::bootstrapPolicyInPlace, "the default RBAC policy is not all written yet"))
        .add(
            "poststarthook/scheduling/bootstrap-system-priority-classes",
            HealthChecks.postStartHook(
                () ->
                    PriorityClassStrategy.systemPriorityClasses().stream()
                        .allMatch(
                            c ->
                                cache
                                    .get(
                                        "scheduling.k8s.io",
                                        "priorityclasses",
                                        null,
                                        c.getMetadata().getName())
                                    .isPresent()),
                "the system priority classes do not exist yet"))
        .add(
            "poststarthook/bootstrap-controller",
            HealthChecks.postStartHook(
                () -> cache.get("", "services", "default", "kubernetes").isPresent(),
                "the kubernetes Service does not exist yet"))
        .addReadyOnly(
            "shutdown",
            () ->
                closing
                    ? java.util.Optional.of("the gateway is shutting down")
                    : java.util.Optional.empty());
  }

  /** Whether every default RBAC object is in the cache as the bootstrap reconcile wants it. */
  private boolean bootstrapPolicyInPlace() {
    for (BootstrapPolicy.Item item : BOOTSTRAP_POLICY.items()) {
      String namespace = item.namespace().isEmpty() ? null : item.namespace();
      ObjectNode cached =
          cache.get(RBAC_GROUP, item.resource(), namespace, item.name()).orElse(null);
      if (BootstrapPolicy.reconcile(item.object(), cached).isPresent()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code /readyz} passes; otherwise the failing checks and why, as {@code
   * /readyz?verbose} withholds it.
   */
  public java.util.Map<String, String> notReady() {
    return health.notReady();
  }

  /**
   * Waits until {@code /readyz} passes, or {@code timeout}; returns what still fails then (empty:
   * ready).
   */
  public java.util.Map<String, String> awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    java.util.Map<String, String> failing = notReady();
    while (!failing.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(100);
      failing = notReady();
    }
    return failing;
  }

  /** A gateway whose history index lives in a temporary directory, removed when it closes. */
  public static GatewayServer start(
      String bootstrapServers, Topics topics, String host, int port, int replyPartition)
      throws IOException {
    Path temporary = Files.createTempDirectory("streamplane-history-");
    GatewayServer gateway = start(bootstrapServers, topics, host, port, replyPartition, temporary);
    gateway.temporaryHistory = temporary;
    return gateway;
  }

  /**
   * A gateway keeping its history index in {@code historyDirectory}, where a restart finds it and
   * reads on from where it stopped, audited by the default policy. It authenticates nobody: every
   * request acts as the admin ({@code system:masters}), who may impersonate other users, whose
   * requests the cluster's authorizers decide; writes pass the cluster's admission.
   */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory)
      throws IOException {
    return start(
        bootstrapServers,
        topics,
        host,
        port,
        replyPartition,
        historyDirectory,
        AuditPolicy.defaultPolicy());
  }

  /** The same, its requests audited as {@code auditPolicy} says. */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      AuditPolicy auditPolicy)
      throws IOException {
    return start(
        bootstrapServers,
        topics,
        host,
        port,
        replyPartition,
        historyDirectory,
        auditPolicy,
        AdmissionSettings.defaults());
  }

  /**
   * The same, with the admission {@code settings}: the seconds the DefaultTolerationSeconds plugin
   * gives pods of the not-ready and unreachable taints (kube-apiserver's {@code
   * --default-not-ready-toleration-seconds} and {@code --default-unreachable-toleration-seconds}),
   * and the service range ({@code --service-cluster-ip-range}).
   */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      AuditPolicy auditPolicy,
      AdmissionSettings settings)
      throws IOException {
    RequestChain unauthenticated = RequestChain.unauthenticated(ADMIN);
    return start(
        bootstrapServers,
        topics,
        host,
        port,
        replyPartition,
        historyDirectory,
        (cache, systemWrites) ->
            new RequestChain(
                unauthenticated.authentication(),
                new Authorization(ClusterChain.authorizers(cache)),
                ClusterChain.admission(cache, systemWrites, settings)),
        null,
        auditPolicy,
        settings.serviceRange());
  }

  /** A gateway whose requests pass {@code chain}, audited by the default policy. */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      RequestChain chain)
      throws IOException {
    return start(
        bootstrapServers,
        topics,
        host,
        port,
        replyPartition,
        historyDirectory,
        chain,
        AuditPolicy.defaultPolicy());
  }

  /**
   * A gateway whose requests pass {@code chain} and are audited to the {@code audit} topic at the
   * levels {@code auditPolicy} sets.
   */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      RequestChain chain,
      AuditPolicy auditPolicy)
      throws IOException {
    return start(
        bootstrapServers,
        topics,
        host,
        port,
        replyPartition,
        historyDirectory,
        (cache, systemWrites) -> chain,
        null,
        auditPolicy,
        ServiceAllocation.DEFAULT_RANGE);
  }

  /**
   * A gateway whose chain is made once its cache exists: admission plugins read the cache, and
   * ResourceQuota writes quota status through the gateway's own service (late-bound: the service
   * needs the chain).
   */
  private static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      BiFunction<WatchCache, SystemWrites, RequestChain> chainOf,
      GatewaySecurity security,
      AuditPolicy auditPolicy,
      String serviceRange)
      throws IOException {
    KubeJson json = new KubeJson();
    WatchCache cache = new WatchCache(bootstrapServers, topics, json, WATCH_WINDOW);
    HistoryIndex history = new HistoryIndex(bootstrapServers, topics, historyDirectory);
    CommandClient commands = new CommandClient(bootstrapServers, topics, replyPartition);
    ResourceRegistry registry = ResourceRegistry.kubernetes();
    WriteOptions charging =
        new WriteOptions(API_SERVER, false, "Strict", null, "kube-apiserver", null, null);
    // The plugins with side effects (the quota plugin charging a quota, the service allocator
    // claiming cluster IPs) write through a registry of their own that admits nothing: the API
    // server's own writes are not requests to admit, and so the plugins do not need the registry
    // they are part of.
    ResourceService system =
        new ResourceService(
            cache, history, commands, json, Duration.ofSeconds(30), Admission.none());
    SystemWrites systemWrites =
        new SystemWrites() {
          @Override
          public void writeStatus(
              String group, String resource, String namespace, ObjectNode object) {
            system.updateStatus(
                registry.byResource(group, resource).orElseThrow(),
                namespace,
                object.path("metadata").path("name").asText(),
                object,
                charging);
          }

          @Override
          public ObjectNode create(
              String group, String resource, String namespace, ObjectNode object) {
            return system
                .create(
                    registry.byResource(group, resource).orElseThrow(), namespace, object, charging)
                .object();
          }

          @Override
          public void delete(String group, String resource, String namespace, String name) {
            try {
              system.delete(
                  registry.byResource(group, resource).orElseThrow(),
                  namespace,
                  name,
                  JsonNodeFactory.instance.objectNode(),
                  charging);
            } catch (ApiException e) {
              if (e.code() != 404) {
                throw e;
              }
            }
          }
        };
    RequestChain chain = chainOf.apply(cache, systemWrites);
    ResourceService service =
        new ResourceService(
            cache, history, commands, json, Duration.ofSeconds(30), chain.admission());
    Auditor auditor =
        new Auditor(
            auditPolicy, new KafkaAuditSink(bootstrapServers, topics.audit()), Clock.systemUTC());
    GatewayServer gateway =
        serve(
            host, port, json, cache, history, commands, service, chain, auditor, security,
            registry);
    gateway.serviceRange = serviceRange;
    gateway.controllers =
        AdmissionControllers.start(
            cache,
            service,
            systemWrites,
            registry,
            CONTROLLER_MANAGER,
            null,
            ADMISSION_CONTROLLERS_RESYNC);
    gateway.controllerRequests =
        ControllerRequestsConsumer.start(
            bootstrapServers,
            topics,
            new ControllerRequests(service, registry, json, Clock.systemUTC()),
            gateway.advertisedHost() + ":" + gateway.port());
    gateway.peers = new GatewayPeers(bootstrapServers, topics);
    gateway.autoscalers =
        new HorizontalPodAutoscalerController(
                cache,
                service,
                registry,
                gateway.metricsStorage,
                new WriteOptions(
                    HPA_CONTROLLER, false, "Strict", null, "kube-controller-manager", null, null),
                Clock.systemUTC(),
                gateway::leadsAutoscaling)
            .start(HorizontalPodAutoscalerController.configuredSyncPeriod());
    if (security == null) {
      gateway.publishRootCa(unverifiedRootCa());
    }
    return gateway;
  }

  /**
   * A cluster's gateway: HTTPS when {@code security} has a serving certificate, every request
   * passing the cluster's chain ({@link ClusterChain}) with the authenticators {@code security}
   * configures, audited as {@code auditPolicy} says. The client CA is published to every namespace
   * as the ConfigMap {@code kube-root-ca.crt}.
   */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      GatewaySecurity security,
      AuditPolicy auditPolicy)
      throws IOException {
    return start(
        bootstrapServers,
        topics,
        host,
        port,
        replyPartition,
        historyDirectory,
        security,
        auditPolicy,
        AdmissionSettings.defaults());
  }

  /** The same, with Kubernetes' default toleration seconds (300) and service range. */
  public static GatewayServer start(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      int replyPartition,
      Path historyDirectory,
      GatewaySecurity security,
      AuditPolicy auditPolicy,
      AdmissionSettings settings)
      throws IOException {
    GatewayServer gateway =
        start(
            bootstrapServers,
            topics,
            host,
            port,
            replyPartition,
            historyDirectory,
            (cache, systemWrites) ->
                ClusterChain.of(cache, systemWrites, security, Clock.systemUTC(), settings),
            security,
            auditPolicy,
            settings.serviceRange());
    if (security.clientCaFile() != null) {
      gateway.publishRootCa(Files.readString(security.clientCaFile()));
    }
    return gateway;
  }

  /**
   * A read-only gateway over the cluster as it was at {@code until} (per partition of {@code
   * events}, the first offset not applied; see {@link WatchCache}): reads and watches as usual,
   * every write answered 405 MethodNotAllowed with {@code readOnlyReason}. It writes nothing to
   * Kafka, so it neither needs a reply partition nor keeps the system namespaces.
   */
  public static GatewayServer startReadOnly(
      String bootstrapServers,
      Topics topics,
      String host,
      int port,
      long[] until,
      String readOnlyReason)
      throws IOException {
    KubeJson json = new KubeJson();
    WatchCache cache = new WatchCache(bootstrapServers, topics, json, WATCH_WINDOW, until);
    ResourceService service =
        ResourceService.readOnly(cache, json, Duration.ofSeconds(30), readOnlyReason);
    return serve(
        host,
        port,
        json,
        cache,
        null,
        null,
        service,
        RequestChain.unauthenticated(ADMIN),
        Auditor.none(),
        null,
        ResourceRegistry.kubernetes());
  }

  /**
   * The {@code kube-root-ca.crt} of a gateway that authenticates nobody (every request is the
   * admin, over plain HTTP): a CA made at start that signed nothing, so that pods still mount their
   * token volume.
   */
  private static String unverifiedRootCa() {
    return Pem.encode(
        CertificateAuthority.create("streamplane-unverified-ca", Clock.systemUTC()).certificate());
  }

  /**
   * The TokenRequest issuer of a gateway that authenticates nobody: pods still get a token file to
   * mount, signed with a key made at start that nothing verifies.
   */
  private static ServiceAccountTokens unverifiedTokens() {
    KeyPair keys = CertificateAuthority.rsaKeyPair();
    return new ServiceAccountTokens(
        keys.getPrivate(),
        keys.getPublic(),
        ServiceAccountTokens.DEFAULT_ISSUER,
        List.of(ServiceAccountTokens.DEFAULT_ISSUER),
        Clock.systemUTC());
  }

  private static GatewayServer serve(
      String host,
      int port,
      KubeJson json,
      WatchCache cache,
      HistoryIndex history,
      CommandClient commands,
      ResourceService service,
      RequestChain chain,
      Auditor auditor,
      GatewaySecurity security,
      ResourceRegistry registry)
      throws IOException {
    ProcessMetrics.register();
    AuthenticationApi authenticationApi =
        new AuthenticationApi(
            registry,
            service,
            security == null ? Optional.of(unverifiedTokens()) : security.tokens(Clock.systemUTC()),
            chain.authentication(),
            Clock.systemUTC());
    ApiHandler handler =
        new ApiHandler(
            chain,
            registry,
            service,
            cache,
            new Discovery(registry, "streamplane", Instant.parse("2026-11-22T00:00:00Z")),
            new OpenApiV3(registry),
            new TableConverter(Clock.systemUTC()),
            authenticationApi);
    Server server = httpServer(handler, registry, service, chain, auditor);
    HttpConfiguration configuration = new HttpConfiguration();
    configuration.setSendServerVersion(false);
    boolean tls = security != null && security.tls();
    ServerConnector connector =
        tls
            ? TlsConnector.create(server, configuration, security)
            : new ServerConnector(server, new HttpConnectionFactory(configuration));
    connector.setHost(host);
    connector.setPort(port);
    connector.setAcceptQueueSize(128);
    connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    server.addConnector(connector);
    // The com.sun.net.httpserver view of the server, for ApiHandler; the server is ours to run.
    new JettyHttpServer(server, true, configuration).createContext("/", handler);
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException("cannot serve on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    GatewayServer gateway =
        new GatewayServer(
            server,
            connector,
            tls,
            cache,
            history,
            commands,
            service,
            registry,
            auditor,
            handler.health());
    if (commands != null) {
      // A gateway of the present measures the nodes; a read-only one serving the past has none.
      MetricsStorage metrics = new MetricsStorage();
      gateway.metricsStorage = metrics;
      handler.serveResourceMetrics(
          new ResourceMetricsApi(registry, cache, metrics, Clock.systemUTC()));
      gateway.metricsScraper =
          new MetricsScraper(
                  cache,
                  metrics,
                  PodLogs.NODES,
                  PodLogs::hostPort,
                  MetricsScraper.configuredResolution(),
                  Clock.systemUTC())
              .start();
    }
    return gateway;
  }

  /**
   * The gateway's Jetty server, without connectors: every request passes the {@link HandlerChain}
   * and then reaches {@link PodStreams} (exec, attach, port-forward), {@link Proxies} (nodes' and
   * pods' proxy), {@link WebSocketWatches} (watches that upgrade to WebSocket) or, through
   * jetty-http-spi's context at {@code /} (which the caller creates with {@link JettyHttpServer}),
   * {@code api}. WebSocket upgrades are enabled outermost, where Jetty looks for them; they only
   * happen when {@link PodStreams} or {@link WebSocketWatches} asks, inside the chain.
   */
  static Server httpServer(
      ApiHandler api,
      ResourceRegistry registry,
      ResourceService service,
      RequestChain chain,
      Auditor auditor) {
    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 8);
    threads.setName("gateway");
    Server server = new Server(threads);
    server.setErrorHandler(new StatusErrorHandler());
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    WebSocketUpgradeHandler upgrades =
        WebSocketUpgradeHandler.from(server, c -> PodStreams.configure(c, IDLE_TIMEOUT));
    PodStreams streams =
        new PodStreams(registry, service, upgrades.getServerWebSocketContainer(), IDLE_TIMEOUT);
    WebSocketWatches webSocketWatches =
        new WebSocketWatches(registry, api.watches(), upgrades.getServerWebSocketContainer());
    webSocketWatches.setHandler(contexts);
    Proxies proxies = new Proxies(registry, service);
    proxies.setHandler(webSocketWatches);
    streams.setHandler(proxies);
    upgrades.setHandler(HandlerChain.build(streams, chain, auditor, registry, Clock.systemUTC()));
    server.setHandler(upgrades);
    return server;
  }

  /**
   * Creates the system namespaces that do not exist yet; only then does it wait for the store, so a
   * restart serves reads before the store has taken over its partitions.
   */
  public void ensureSystemNamespaces(UserInfo actor) {
    ResourceType namespaces = registry.byResource("", "namespaces").orElseThrow();
    for (String name : SYSTEM_NAMESPACES) {
      try {
        service.get(namespaces, null, name);
        continue;
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
      ObjectNode namespace = JsonNodeFactory.instance.objectNode();
      namespace.putObject("metadata").put("name", name);
      try {
        service.create(
            namespaces,
            null,
            namespace,
            new WriteOptions(actor, false, "Strict", null, "streamplane-gateway", null, null));
      } catch (ApiException e) {
        if (e.code() != 409) {
          throw e;
        }
      }
    }
  }

  /**
   * kube-apiserver's system namespaces controller: checks now and then every {@code interval}
   * ({@link #SYSTEM_NAMESPACES_INTERVAL}) that the {@link #SYSTEM_NAMESPACES} exist and creates the
   * missing ones. {@code default}, {@code kube-system} and {@code kube-public} cannot be deleted;
   * {@code kube-node-lease} can, and comes back once the namespace controller has removed the old
   * one (while it is Terminating it still exists), so that nodes can renew their leases again.
   * Every gateway runs it; when two race, the store answers the second create AlreadyExists. A
   * failed check (the store not up yet) is logged and tried again at the next tick.
   */
  public void keepSystemNamespaces(UserInfo actor, Duration interval) {
    systemNamespaces.scheduleWithFixedDelay(
        () -> {
          try {
            ensureSystemNamespaces(actor);
          } catch (RuntimeException e) {
            LOG.warn("could not check the system namespaces: {}", e.toString());
          }
        },
        0,
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Publishes the cluster CA ({@code pem}) as the ConfigMap {@code kube-root-ca.crt} in every
   * namespace, which the projected token volume of every pod mounts as {@code ca.crt}; null stops
   * publishing. See {@link AdmissionControllers}.
   */
  public void publishRootCa(String pem) {
    if (controllers != null) {
      controllers.publishRootCa(pem);
    }
  }

  /**
   * Writes Kubernetes' default roles and bindings ({@link BootstrapPolicy}) that are missing or
   * lost a default permission, as kube-apiserver's RBAC post-start hook reconciles them, then runs
   * one round of the clusterrole-aggregation controller: every ClusterRole with an {@code
   * aggregationRule} is given the rules of the ClusterRoles it selects. Each object is tried on its
   * own: one that cannot be written yet (its namespace does not exist yet) is written at the next
   * round.
   */
  public void ensureBootstrapPolicy(UserInfo actor) {
    WriteOptions options =
        new WriteOptions(actor, false, "Strict", null, "streamplane-gateway", null, null);
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (BootstrapPolicy.Item item : BOOTSTRAP_POLICY.items()) {
      ResourceType type = registry.byResource(RBAC_GROUP, item.resource()).orElseThrow();
      String namespace = type.namespaced() ? item.namespace() : null;
      ObjectNode existing = null;
      try {
        existing = service.get(type, namespace, item.name());
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
      Optional<ObjectNode> wanted = BootstrapPolicy.reconcile(item.object(), existing);
      if (wanted.isEmpty()) {
        continue;
      }
      boolean create = existing == null;
      writes.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  if (create) {
                    service.create(type, namespace, wanted.get(), options);
                  } else {
                    service.update(type, namespace, item.name(), wanted.get(), options);
                  }
                } catch (ApiException e) {
                  if (e.code() != 409) {
                    LOG.warn(
                        "could not write the default {} {}: {}",
                        type.kind(),
                        item.name(),
                        e.getMessage());
                  }
                }
              },
              defaultsWriters));
    }
    try {
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get();
    } catch (InterruptedException e) {
      writes.forEach(write -> write.cancel(true));
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException e) {
      throw new IllegalStateException("a default policy write failed", e.getCause());
    }
    ResourceType clusterRoles = registry.byResource(RBAC_GROUP, "clusterroles").orElseThrow();
    List<ObjectNode> roles = cache.list(RBAC_GROUP, "clusterroles", null, role -> true).items();
    for (ObjectNode role : roles) {
      Optional<ArrayNode> rules = BootstrapPolicy.aggregatedRules(role, roles);
      if (rules.isPresent()) {
        ObjectNode aggregated = role.deepCopy();
        aggregated.set("rules", rules.get());
        try {
          service.update(
              clusterRoles, null, role.path("metadata").path("name").asText(), aggregated, options);
        } catch (ApiException e) {
          if (e.code() != 409) {
            LOG.warn(
                "could not aggregate ClusterRole {}: {}",
                role.path("metadata").path("name"),
                e.getMessage());
          }
        }
      }
    }
  }

  /**
   * Signs the approved CertificateSigningRequests of the signer {@code
   * kubernetes.io/kube-apiserver-client} with {@code ca} ({@link CertificateSigningController}), as
   * kube-controller-manager does with its {@code --cluster-signing-cert-file} and {@code
   * --cluster-signing-key-file}; stops with the gateway.
   */
  public void signCertificates(CertificateAuthority ca) {
    ResourceType type =
        registry.byResource("certificates.k8s.io", "certificatesigningrequests").orElseThrow();
    signer =
        CertificateSigningController.start(
            cache,
            service,
            type,
            ca,
            new WriteOptions(
                CONTROLLER_MANAGER, false, "Strict", null, "kube-controller-manager", null, null));
  }

  /**
   * Creates the system priority classes ({@code system-node-critical}, {@code
   * system-cluster-critical}) that do not exist, as kube-apiserver's scheduling post-start hook
   * does; one that exists is left as it is (the Priority admission plugin keeps it from being
   * deleted), so a cluster at rest writes nothing.
   */
  public void ensureSystemPriorityClasses(UserInfo actor) {
    ResourceType type = registry.byResource("scheduling.k8s.io", "priorityclasses").orElseThrow();
    KubeJson json = new KubeJson();
    for (PriorityClass system : PriorityClassStrategy.systemPriorityClasses()) {
      String name = system.getMetadata().getName();
      try {
        service.get(type, null, name);
        continue;
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
      try {
        service.create(
            type,
            null,
            json.toJson(system),
            new WriteOptions(actor, false, "Strict", null, "streamplane-gateway", null, null));
      } catch (ApiException e) {
        if (e.code() != 409) {
          LOG.warn("could not write the system PriorityClass {}: {}", name, e.getMessage());
        }
      }
    }
  }

  /**
   * The {@code kubernetes} Service of {@code default}, as kube-apiserver's endpoint reconciler
   * keeps it: the first address of the service range, port 443 ({@code https}) to the gateway's
   * port, and Endpoints that name the cluster's live gateways, as kube-apiserver's {@code lease}
   * reconciler names the API servers whose leases are current: here the members of the gateways'
   * Kafka consumer group ({@link GatewayPeers}) and this gateway, so a gateway that was killed is
   * removed at the next round after Kafka dropped it (10 s), and nothing is written while the
   * gateways stay the same.
   */
  public void ensureKubernetesService(UserInfo actor) {
    ResourceType services = registry.byResource("", "services").orElseThrow();
    ResourceType endpoints = registry.byResource("", "endpoints").orElseThrow();
    WriteOptions options =
        new WriteOptions(actor, false, "Strict", null, "streamplane-gateway", null, null);
    int port = port();
    JsonNodeFactory json = JsonNodeFactory.instance;
    if (find(services, "default", "kubernetes") == null) {
      ObjectNode service = json.objectNode();
      ObjectNode metadata = service.putObject("metadata");
      metadata.put("name", "kubernetes");
      metadata.putObject("labels").put("component", "apiserver").put("provider", "kubernetes");
      ObjectNode spec = service.putObject("spec");
      spec.put("type", "ClusterIP");
      spec.put("clusterIP", ServiceAllocation.firstAddress(serviceRange));
      spec.putArray("ports")
          .addObject()
          .put("name", "https")
          .put("port", 443)
          .put("protocol", "TCP")
          .put("targetPort", port);
      createQuietly(services, "default", service, options);
    }
    ObjectNode current = find(endpoints, "default", "kubernetes");
    Map<Integer, Set<String>> listed = byPort(current);
    // The gateways in Kafka's group now, and this one (which may not have joined it yet); when
    // Kafka cannot say, those listed stay.
    Set<String> live = new TreeSet<>();
    if (peers != null) {
      peers.addresses().ifPresent(live::addAll);
    }
    if (peers == null || live.isEmpty()) {
      listed.forEach((p, ips) -> ips.forEach(ip -> live.add(ip + ":" + p)));
    }
    live.add(advertisedHost() + ":" + port());
    Map<Integer, Set<String>> wanted = new TreeMap<>();
    for (String address : live) {
      int colon = address.lastIndexOf(':');
      wanted
          .computeIfAbsent(Integer.parseInt(address.substring(colon + 1)), p -> new TreeSet<>())
          .add(address.substring(0, colon));
    }
    if (wanted.equals(listed)) {
      return;
    }
    ObjectNode object = current == null ? json.objectNode() : current.deepCopy();
    ArrayNode subsets = object.putArray("subsets");
    wanted.forEach(
        (p, ips) -> {
          ObjectNode subset = subsets.addObject();
          ArrayNode addresses = subset.putArray("addresses");
          ips.forEach(ip -> addresses.addObject().put("ip", ip));
          subset
              .putArray("ports")
              .addObject()
              .put("name", "https")
              .put("port", p)
              .put("protocol", "TCP");
        });
    if (current == null) {
      object.putObject("metadata").put("name", "kubernetes");
      createQuietly(endpoints, "default", object, options);
    } else {
      try {
        service.update(endpoints, "default", "kubernetes", object, options);
      } catch (ApiException e) {
        LOG.warn("could not update the kubernetes Endpoints: {}", e.getMessage());
      }
    }
  }

  /** The addresses of an Endpoints object by port; empty for none. */
  private static Map<Integer, Set<String>> byPort(ObjectNode endpoints) {
    Map<Integer, Set<String>> byPort = new TreeMap<>();
    if (endpoints != null) {
      for (JsonNode subset : endpoints.path("subsets")) {
        for (JsonNode port : subset.path("ports")) {
          for (JsonNode address : subset.path("addresses")) {
            byPort
                .computeIfAbsent(port.path("port").asInt(), p -> new TreeSet<>())
                .add(address.path("ip").asText());
          }
        }
      }
    }
    return byPort;
  }

  /** The host this gateway's API is reached at: its bind address, or loopback for a wildcard. */
  private String advertisedHost() {
    return connector.getHost() == null || connector.getHost().equals("0.0.0.0")
        ? "127.0.0.1"
        : connector.getHost();
  }

  /**
   * The {@code kube-dns} Service of {@code kube-system}, as kubeadm installs it for CoreDNS: the
   * tenth address of the service range ({@link ServiceAllocation#clusterDnsAddress}, the nodes'
   * {@code clusterDNS}), ports {@code dns} (53/UDP), {@code dns-tcp} (53/TCP) and {@code metrics}
   * (9153/TCP), and Endpoints holding only {@code dns}, the cluster DNS server's address (a server
   * that moved is replaced, not added).
   */
  public void ensureClusterDns(UserInfo actor, java.net.InetSocketAddress dns) {
    ResourceType services = registry.byResource("", "services").orElseThrow();
    ResourceType endpoints = registry.byResource("", "endpoints").orElseThrow();
    WriteOptions options =
        new WriteOptions(actor, false, "Strict", null, "streamplane-gateway", null, null);
    JsonNodeFactory json = JsonNodeFactory.instance;
    if (find(services, "kube-system", "kube-dns") == null) {
      ObjectNode service = json.objectNode();
      ObjectNode metadata = service.putObject("metadata");
      metadata.put("name", "kube-dns");
      metadata
          .putObject("labels")
          .put("k8s-app", "kube-dns")
          .put("kubernetes.io/cluster-service", "true")
          .put("kubernetes.io/name", "CoreDNS");
      ObjectNode spec = service.putObject("spec");
      spec.put("type", "ClusterIP");
      spec.put("clusterIP", ServiceAllocation.clusterDnsAddress(serviceRange));
      var ports = spec.putArray("ports");
      ports
          .addObject()
          .put("name", "dns")
          .put("port", 53)
          .put("protocol", "UDP")
          .put("targetPort", 53);
      ports
          .addObject()
          .put("name", "dns-tcp")
          .put("port", 53)
          .put("protocol", "TCP")
          .put("targetPort", 53);
      ports
          .addObject()
          .put("name", "metrics")
          .put("port", 9153)
          .put("protocol", "TCP")
          .put("targetPort", 9153);
      createQuietly(services, "kube-system", service, options);
    }
    ObjectNode wanted = json.objectNode();
    wanted
        .putObject("metadata")
        .put("name", "kube-dns")
        .putObject("labels")
        .put("k8s-app", "kube-dns");
    ObjectNode subset = wanted.putArray("subsets").addObject();
    subset.putArray("addresses").addObject().put("ip", dns.getAddress().getHostAddress());
    var ports = subset.putArray("ports");
    ports.addObject().put("name", "dns").put("port", dns.getPort()).put("protocol", "UDP");
    ports.addObject().put("name", "dns-tcp").put("port", dns.getPort()).put("protocol", "TCP");
    ObjectNode current = find(endpoints, "kube-system", "kube-dns");
    if (current == null) {
      createQuietly(endpoints, "kube-system", wanted, options);
    } else if (!current.path("subsets").equals(wanted.path("subsets"))) {
      current.set("subsets", wanted.get("subsets"));
      try {
        service.update(endpoints, "kube-system", "kube-dns", current, options);
      } catch (ApiException e) {
        LOG.warn("could not point the kube-dns Endpoints at {}: {}", dns, e.getMessage());
      }
    }
  }

  private ObjectNode find(ResourceType type, String namespace, String name) {
    try {
      return service.get(type, namespace, name);
    } catch (ApiException e) {
      if (e.code() == 404) {
        return null;
      }
      throw e;
    }
  }

  private void createQuietly(
      ResourceType type, String namespace, ObjectNode object, WriteOptions options) {
    try {
      service.create(type, namespace, object, options);
    } catch (ApiException e) {
      if (e.code() != 409) {
        LOG.warn("could not write the kubernetes {}: {}", type.kind(), e.getMessage());
      }
    }
  }

  /**
   * kube-apiserver's post-start hooks: the default RBAC policy (aggregated ClusterRoles included)
   * and the system priority classes written, and this gateway's cache — and so its authorizer —
   * caught up with them, so that a cluster reported ready authorizes as Kubernetes' defaults say.
   */
  public void ensureDefaults(UserInfo actor, Duration timeout) {
    ensureBootstrapPolicy(actor);
    ensureSystemPriorityClasses(actor);
    ensureKubernetesService(actor);
    cache.catchUpWithLog(timeout);
  }

  /**
   * {@link #ensureBootstrapPolicy} and {@link #ensureSystemPriorityClasses} in {@code firstIn}
   * (zero, or an interval after {@link #ensureDefaults} wrote them) and then every {@code
   * interval}: the defaults come back when deleted or changed (unless annotated {@code
   * rbac.authorization.kubernetes.io/autoupdate: "false"}), and aggregated ClusterRoles follow the
   * roles they select. Every gateway runs it; a race between two ends in a conflict the next round
   * resolves.
   */
  public void keepBootstrapPolicy(UserInfo actor, Duration firstIn, Duration interval) {
    systemNamespaces.scheduleWithFixedDelay(
        () -> {
          long started = System.currentTimeMillis();
          try {
            ensureBootstrapPolicy(actor);
          } catch (RuntimeException e) {
            LOG.warn("could not check the default RBAC policy: {}", e.toString());
          }
          if (Thread.currentThread().isInterrupted()) {
            // The gateway is closing: the next round is nobody's.
            return;
          }
          try {
            ensureSystemPriorityClasses(actor);
          } catch (RuntimeException e) {
            LOG.warn("could not check the system priority classes: {}", e.toString());
          }
          try {
            ensureKubernetesService(actor);
          } catch (RuntimeException e) {
            LOG.warn("could not check the kubernetes Service: {}", e.toString());
          }
          GatewayMetrics.roundCompleted("defaults", started);
        },
        firstIn.toMillis(),
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  public int port() {
    return connector.getLocalPort();
  }

  public String url() {
    return (tls ? "https://" : "http://") + connector.getHost() + ":" + port();
  }

  @Override
  public void close() {
    closing = true;
    systemNamespaces.shutdownNow();
    defaultsWriters.shutdownNow();
    if (controllerRequests != null) {
      controllerRequests.close();
    }
    if (peers != null) {
      peers.close();
    }
    if (controllers != null) {
      controllers.close();
    }
    if (signer != null) {
      signer.close();
    }
    if (autoscalers != null) {
      autoscalers.close();
    }
    if (metricsScraper != null) {
      metricsScraper.close();
    }
    try {
      http.stop();
    } catch (Exception e) {
      LOG.warn("could not stop the HTTP server: {}", e.toString());
    }
    // After the server: every answered request has handed its last audit event over.
    auditor.close();
    if (commands != null) {
      commands.close();
    }
    cache.close();
    if (history != null) {
      history.close();
    }
    if (temporaryHistory != null) {
      try (Stream<Path> files = Files.walk(temporaryHistory)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException e) {
        LOG.warn("could not remove {}: {}", temporaryHistory, e.toString());
      }
    }
  }
}
