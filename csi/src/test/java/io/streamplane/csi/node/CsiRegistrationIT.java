package io.streamplane.csi.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.streamplane.csi.hostpath.HostPathConfig;
import io.streamplane.csi.hostpath.HostPathPlugin;
import io.streamplane.csi.hostpath.Mounts;
import io.streamplane.csi.v1.CapacityRange;
import io.streamplane.csi.v1.ControllerGrpc;
import io.streamplane.csi.v1.CreateVolumeRequest;
import io.streamplane.csi.v1.VolumeCapability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host-path driver registering with a node's plugin watcher over real Unix sockets, then the
 * node's volume manager staging, publishing and tearing down a volume through it.
 */
class CsiRegistrationIT {

  @TempDir Path dir;

  @Test
  void aDriverRegistersThenServesTheNodesMountsAndDeregistersWhenItStops() throws Exception {
    Path nodeRoot = dir.resolve("node");
    Path registry = PluginWatcher.registryIn(nodeRoot);
    List<String> events = new CopyOnWriteArrayList<>();
    PluginWatcher.Listener listener =
        new PluginWatcher.Listener() {
          @Override
          public void registered(CsiDriverRegistration driver) {
            events.add(
                "registered " + driver.name() + " " + driver.nodeId() + " " + driver.topology());
          }

          @Override
          public void deregistered(String driverName) {
            events.add("deregistered " + driverName);
          }
        };
    Path root = dir.resolve("volumes");
    HostPathConfig config =
        new HostPathConfig(
            HostPathConfig.DRIVER_NAME,
            "node-0",
            root,
            1L << 30,
            Mounts.Mode.SYMLINK,
            HostPathConfig.defaultFailMarker(root));
    try (PluginWatcher watcher = new PluginWatcher(registry, listener, 100)) {
      HostPathPlugin plugin = HostPathPlugin.start(config, dir.resolve("csi.sock"), registry);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> watcher.driver(HostPathConfig.DRIVER_NAME).isPresent());
      assertThat(events)
          .containsExactly(
              "registered hostpath.csi.streamplane.io node-0 "
                  + Map.of(HostPathConfig.TOPOLOGY_KEY, "node-0"));
      await().atMost(Duration.ofSeconds(10)).until(() -> plugin.registration().status() != null);
      assertThat(plugin.registration().status().getPluginRegistered()).isTrue();
      CsiDriverRegistration driver = watcher.driver(HostPathConfig.DRIVER_NAME).orElseThrow();
      assertThat(driver.stages()).isTrue();

      String handle =
          ControllerGrpc.newBlockingStub(driver.channel())
              .createVolume(
                  CreateVolumeRequest.newBuilder()
                      .setName("pvc-1")
                      .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(1 << 20))
                      .addVolumeCapabilities(
                          VolumeCapability.newBuilder()
                              .setMount(VolumeCapability.MountVolume.getDefaultInstance()))
                      .build())
              .getVolume()
              .getVolumeId();
      CsiVolumeManager manager = new CsiVolumeManager(nodeRoot, watcher::driver);
      CsiVolumeManager.VolumeSpec spec =
          new CsiVolumeManager.VolumeSpec(
              HostPathConfig.DRIVER_NAME, handle, "pvc-1", false, "", Map.of());

      Files.writeString(config.failPublishMarker(), "not today");
      assertThatThrownBy(() -> manager.setUp("uid-a", spec))
          .isInstanceOf(CsiVolumeManager.MountFailure.class)
          .hasMessage(
              "MountVolume.SetUp failed for volume \"pvc-1\" : rpc error: code = Internal desc ="
                  + " not today");
      Files.delete(config.failPublishMarker());

      assertThat(manager.volumesInUse()).isEmpty();
      Path a = manager.setUp("uid-a", spec);
      Path b = manager.setUp("uid-b", spec);
      assertThat(manager.volumesInUse())
          .containsExactly("kubernetes.io/csi/hostpath.csi.streamplane.io^" + handle);
      assertThat(a).isEqualTo(nodeRoot.resolve("pods/uid-a/volumes/kubernetes.io~csi/pvc-1/mount"));
      Files.writeString(a.resolve("file"), "shared");
      assertThat(b.resolve("file")).hasContent("shared");
      Path globalMount = manager.globalMount(HostPathConfig.DRIVER_NAME, handle);
      assertThat(globalMount.getParent().getParent())
          .isEqualTo(nodeRoot.resolve("plugins/kubernetes.io/csi/hostpath.csi.streamplane.io"));

      manager.tearDown("uid-a", spec);
      assertThat(a).doesNotExist();
      assertThat(globalMount).exists(); // uid-b still publishes it
      assertThat(manager.volumesInUse()).hasSize(1);
      manager.tearDown("uid-b", spec);
      assertThat(globalMount).doesNotExist();
      assertThat(manager.volumesInUse()).isEmpty();
      assertThat(plugin.driver().volumes().directory(handle).resolve("file")).hasContent("shared");

      plugin.close();
      // The watcher forgets the driver, then tells its listener: wait for both.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  watcher.driver(HostPathConfig.DRIVER_NAME).isEmpty()
                      && events.get(events.size() - 1).startsWith("deregistered"));
      assertThat(events).last().isEqualTo("deregistered hostpath.csi.streamplane.io");
      assertThatThrownBy(() -> manager.setUp("uid-c", spec))
          .hasMessageContaining("not found in the list of registered CSI drivers");
    }
  }
}
