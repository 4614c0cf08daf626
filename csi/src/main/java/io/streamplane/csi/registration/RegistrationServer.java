package io.streamplane.csi.registration;

import io.grpc.stub.StreamObserver;
import io.streamplane.csi.registration.v1.InfoRequest;
import io.streamplane.csi.registration.v1.PluginInfo;
import io.streamplane.csi.registration.v1.RegistrationGrpc;
import io.streamplane.csi.registration.v1.RegistrationStatus;
import io.streamplane.csi.registration.v1.RegistrationStatusResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin side of the kubelet's plugin registration (what node-driver-registrar serves): on a
 * socket in the node's {@code plugins_registry} directory, GetInfo tells a CSI plugin's name and
 * the socket of its CSI services; NotifyRegistrationStatus hears whether the node registered it.
 *
 * <p>Contract: {@link #status} is the last status the node sent, null before any.
 */
public final class RegistrationServer extends RegistrationGrpc.RegistrationImplBase {

  /** The plugin type of CSI drivers in the registration API. */
  public static final String CSI_PLUGIN = "CSIPlugin";

  /** The CSI versions a Streamplane driver speaks. */
  public static final List<String> VERSIONS = List.of("1.0.0");

  private static final Logger LOG = LoggerFactory.getLogger(RegistrationServer.class);

  private final String driverName;
  private final Path csiSocket;
  private final AtomicReference<RegistrationStatus> status = new AtomicReference<>();

  public RegistrationServer(String driverName, Path csiSocket) {
    this.driverName = driverName;
    this.csiSocket = csiSocket.toAbsolutePath();
  }

  /** The socket a driver's registration is served on: {@code <dir>/<driver>-reg.sock}. */
  public static Path socketIn(Path registryDir, String driverName) {
    return registryDir.resolve(driverName + "-reg.sock");
  }

  public RegistrationStatus status() {
    return status.get();
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> observer) {
    observer.onNext(
        PluginInfo.newBuilder()
            .setType(CSI_PLUGIN)
            .setName(driverName)
            .setEndpoint(csiSocket.toString())
            .addAllSupportedVersions(VERSIONS)
            .build());
    observer.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus request, StreamObserver<RegistrationStatusResponse> observer) {
    status.set(request);
    if (request.getPluginRegistered()) {
      LOG.info("the node registered {}", driverName);
    } else {
      LOG.warn("the node refused {}: {}", driverName, request.getError());
    }
    observer.onNext(RegistrationStatusResponse.getDefaultInstance());
    observer.onCompleted();
  }
}
