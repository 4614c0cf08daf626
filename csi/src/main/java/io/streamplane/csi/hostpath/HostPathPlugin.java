package io.streamplane.csi.hostpath;

import io.grpc.BindableService;
import io.grpc.Server;
import io.streamplane.csi.UnixSockets;
import io.streamplane.csi.registration.RegistrationServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The host-path driver as a running plugin: its CSI services on {@code csiSocket} and, when a
 * registry directory is given, its registration on {@code <registry>/<driver>-reg.sock}, which the
 * node's plugin watcher finds (what node-driver-registrar does beside a driver).
 *
 * <p>Contract: the CSI socket is served before the registration socket appears, so a node that
 * finds the registration can call the driver at once. {@link #close} removes both sockets.
 */
public final class HostPathPlugin implements AutoCloseable {

  private final HostPathDriver driver;
  private final Path csiSocket;
  private final Server csi;
  private final RegistrationServer registration;
  private final Path registrationSocket;
  private final Server registrationServer;

  private HostPathPlugin(HostPathDriver driver, Path csiSocket, Path registryDir) {
    this.driver = driver;
    this.csiSocket = csiSocket;
    this.csi = UnixSockets.serve(csiSocket, driver.services().toArray(new BindableService[0]));
    if (registryDir == null) {
      this.registration = null;
      this.registrationSocket = null;
      this.registrationServer = null;
    } else {
      this.registration = new RegistrationServer(driver.config().driverName(), csiSocket);
      this.registrationSocket =
          RegistrationServer.socketIn(registryDir, driver.config().driverName());
      this.registrationServer = UnixSockets.serve(registrationSocket, registration);
    }
  }

  /**
   * Starts the driver of {@code config} on {@code csiSocket}, registered in {@code registryDir}.
   */
  public static HostPathPlugin start(HostPathConfig config, Path csiSocket, Path registryDir)
      throws IOException {
    return new HostPathPlugin(new HostPathDriver(config), csiSocket, registryDir);
  }

  public HostPathDriver driver() {
    return driver;
  }

  public Path csiSocket() {
    return csiSocket;
  }

  /** The registration side, null when not registered with a node. */
  public RegistrationServer registration() {
    return registration;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (registrationServer != null) {
      registrationServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      Files.deleteIfExists(registrationSocket);
    }
    csi.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    Files.deleteIfExists(csiSocket);
  }
}
