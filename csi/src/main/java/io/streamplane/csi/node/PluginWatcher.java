package io.streamplane.csi.node;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.streamplane.csi.UnixSockets;
import io.streamplane.csi.registration.RegistrationServer;
import io.streamplane.csi.registration.v1.InfoRequest;
import io.streamplane.csi.registration.v1.PluginInfo;
import io.streamplane.csi.registration.v1.RegistrationGrpc;
import io.streamplane.csi.registration.v1.RegistrationStatus;
import io.streamplane.csi.v1.NodeGetCapabilitiesRequest;
import io.streamplane.csi.v1.NodeGetInfoRequest;
import io.streamplane.csi.v1.NodeGetInfoResponse;
import io.streamplane.csi.v1.NodeGrpc;
import io.streamplane.csi.v1.NodeServiceCapability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's plugin watcher (the kubelet's pluginwatcher and CSI plugin handler): finds the
 * registration sockets plugins place in {@code <node root>/plugins_registry/}, asks each GetInfo,
 * and registers a CSI plugin — connects to its endpoint, asks NodeGetInfo and NodeGetCapabilities,
 * hands the registration to {@link Listener#registered} (which records the driver in the node's
 * CSINode) — then tells the plugin the outcome with NotifyRegistrationStatus. A socket that
 * disappears deregisters its driver.
 *
 * <p>Contract: the directory is scanned every {@code period}; a socket is tried again at each scan
 * until it registers (a plugin that is not yet serving, or a listener that failed, is retried). A
 * plugin of another type, or speaking no CSI version this node speaks, is refused with the reason
 * in its status. Thread-safe: {@link #driver} may be called from any thread.
 */
public final class PluginWatcher implements AutoCloseable {

  /** What the node does with a driver once registered, or gone. */
  public interface Listener {
    void registered(CsiDriverRegistration driver) throws Exception;

    void deregistered(String driverName) throws Exception;
  }

  private static final Logger LOG = LoggerFactory.getLogger(PluginWatcher.class);

  private final Path registry;
  private final Listener listener;
  private final ScheduledExecutorService scheduler;
  private final Map<String, CsiDriverRegistration> drivers = new ConcurrentHashMap<>();
  private final Map<Path, String> sockets = new HashMap<>();

  public PluginWatcher(Path registry, Listener listener, long periodMillis) throws IOException {
    this.registry = registry;
    this.listener = listener;
    Files.createDirectories(registry);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "csi-plugin-watcher");
              thread.setDaemon(true);
              return thread;
            });
    scheduler.scheduleWithFixedDelay(this::scan, 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** The registration directory: {@code <node root>/plugins_registry}. */
  public static Path registryIn(Path nodeRoot) {
    return nodeRoot.resolve("plugins_registry");
  }

  /** The registered driver named {@code name}. */
  public Optional<CsiDriverRegistration> driver(String name) {
    return Optional.ofNullable(drivers.get(name));
  }

  private void scan() {
    Set<Path> present = new HashSet<>();
    try (Stream<Path> files = Files.list(registry)) {
      files.filter(p -> p.getFileName().toString().endsWith(".sock")).forEach(present::add);
    } catch (IOException e) {
      LOG.warn("cannot list {}: {}", registry, e.toString());
      return;
    }
    for (Path socket : present) {
      if (!sockets.containsKey(socket)) {
        String name = register(socket);
        if (name != null) {
          sockets.put(socket, name);
        }
      }
    }
    for (Path gone : Set.copyOf(sockets.keySet())) {
      if (!present.contains(gone)) {
        String name = sockets.remove(gone);
        CsiDriverRegistration driver = drivers.remove(name);
        if (driver == null) {
          continue; // a refused plugin: nothing was registered
        }
        driver.channel().shutdownNow();
        try {
          listener.deregistered(name);
          LOG.info("deregistered CSI driver {}", name);
        } catch (Exception e) {
          LOG.warn("deregistering {} failed: {}", name, e.toString());
        }
      }
    }
  }

  /** The registered driver's name, or null when it is to be tried again. */
  private String register(Path socket) {
    ManagedChannel registration = UnixSockets.connect(socket);
    try {
      RegistrationGrpc.RegistrationBlockingStub plugin =
          RegistrationGrpc.newBlockingStub(registration).withDeadlineAfter(5, TimeUnit.SECONDS);
      PluginInfo info = plugin.getInfo(InfoRequest.getDefaultInstance());
      String refusal = refusal(info);
      if (refusal != null) {
        LOG.warn("plugin at {} refused: {}", socket, refusal);
        notify(registration, false, refusal);
        return socket.toString(); // not tried again until it is replaced
      }
      Path endpoint = info.getEndpoint().isEmpty() ? socket : Path.of(info.getEndpoint());
      ManagedChannel channel = UnixSockets.connect(endpoint);
      CsiDriverRegistration driver;
      try {
        NodeGrpc.NodeBlockingStub node =
            NodeGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
        NodeGetInfoResponse nodeInfo = node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
        boolean stages =
            node
                .nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList()
                .stream()
                .anyMatch(
                    c ->
                        c.getRpc().getType()
                            == NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME);
        driver =
            new CsiDriverRegistration(
                info.getName(),
                endpoint,
                channel,
                nodeInfo.getNodeId(),
                Map.copyOf(nodeInfo.getAccessibleTopology().getSegmentsMap()),
                nodeInfo.getMaxVolumesPerNode(),
                stages);
        listener.registered(driver);
      } catch (Exception e) {
        channel.shutdownNow();
        LOG.info("registering the plugin at {} failed, will retry: {}", socket, e.toString());
        notify(registration, false, e.toString());
        return null;
      }
      CsiDriverRegistration previous = drivers.put(driver.name(), driver);
      if (previous != null) {
        previous.channel().shutdownNow();
      }
      notify(registration, true, "");
      LOG.info(
          "registered CSI driver {} at {} (node id {})", driver.name(), endpoint, driver.nodeId());
      return driver.name();
    } catch (StatusRuntimeException e) {
      LOG.debug("plugin at {} not answering yet: {}", socket, e.getStatus());
      return null;
    } finally {
      registration.shutdownNow();
    }
  }

  /** Why a plugin is refused, or null. */
  static String refusal(PluginInfo info) {
    if (!RegistrationServer.CSI_PLUGIN.equals(info.getType())) {
      return "plugin type " + info.getType() + " is not supported by this node";
    }
    if (info.getName().isEmpty()) {
      return "the plugin has no name";
    }
    boolean speaksOne =
        info.getSupportedVersionsList().stream()
            .anyMatch(v -> v.startsWith("1.") || v.equals("v1") || v.startsWith("v1."));
    if (!speaksOne) {
      return "none of the versions "
          + info.getSupportedVersionsList()
          + " of "
          + info.getName()
          + " is supported by this node (1.x)";
    }
    return null;
  }

  private static void notify(ManagedChannel registration, boolean registered, String error) {
    try {
      RegistrationGrpc.newBlockingStub(registration)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .notifyRegistrationStatus(
              RegistrationStatus.newBuilder()
                  .setPluginRegistered(registered)
                  .setError(error)
                  .build());
    } catch (StatusRuntimeException e) {
      LOG.debug("could not tell the plugin its registration status: {}", e.getStatus());
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    drivers.values().forEach(d -> d.channel().shutdownNow());
    drivers.clear();
  }
}
