package io.streamplane.node.runtime.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.Capabilities;
import io.streamplane.api.Container;
import io.streamplane.api.EmptyDirVolumeSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSecurityContext;
import io.streamplane.api.PodSpec;
import io.streamplane.api.SecurityContext;
import io.streamplane.api.Volume;
import io.streamplane.api.VolumeMount;
import io.streamplane.node.logs.ContainerLogReader;
import io.streamplane.node.logs.LogOptions;
import io.streamplane.node.runtime.ContainerCommand;
import io.streamplane.node.runtime.PodInputs;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import io.streamplane.node.runtime.RuntimeContainer.State;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a pod of the process runtime cannot reach: the node's files, the host's root, the host's
 * processes; and the identity its security context asks for. Needs root, as the runtime does.
 */
class PodSandboxIsolationTest {

  @TempDir Path root;
  private ProcessRuntime runtime;

  @BeforeEach
  void setUp() {
    runtime = new ProcessRuntime(root, ImageCatalog.defaults(), Clock.systemUTC(), true);
    assertThat(runtime.sandboxUnavailable()).as("the node can sandbox pods").isEmpty();
  }

  @AfterEach
  void tearDown() {
    runtime.close();
  }

  @Test
  void aContainerCannotReadTheClusterKeyOutsideItsVolumes() throws Exception {
    Path key = Files.createDirectories(root.resolve("pki")).resolve("ca.key");
    Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n");
    Container c = busybox("reader", "head -c 40 " + key + "; echo; id -u");

    PodSandbox sandbox = start(pod("keyreader", c));
    String log = awaitExit(sandbox);

    assertThat(log)
        .contains("cannot open '" + key + "'")
        .contains("No such file or directory")
        .doesNotContain("PRIVATE KEY");
    assertThat(log.lines()).contains("0");
  }

  @Test
  void writesToTheRootStayInTheContainersLayerAndGoWithThePod() throws Exception {
    String name = "/written-by-a-pod-" + UUID.randomUUID();
    Container c = busybox("writer", "echo x > " + name + " && cat " + name);

    PodSandbox sandbox = start(pod("writer", c));
    String log = awaitExit(sandbox);

    assertThat(log).isEqualTo("x\n");
    assertThat(runtime.status(sandbox).containers().get(0).exitCode()).isZero();
    assertThat(Path.of(name)).doesNotExist();
    Path layer = root.resolve("default_writer_" + uid).resolve("writer").resolve("rootfs");
    assertThat(layer.resolve("upper/root" + name)).exists();
    runtime.stop(sandbox, Duration.ZERO).get(10, TimeUnit.SECONDS);
    assertThat(layer).doesNotExist();
  }

  @Test
  void aContainerSeesAndSignalsOnlyItsOwnProcesses() throws Exception {
    Process host = new ProcessBuilder("sleep", "60").start();
    try {
      Container c =
          busybox(
              "looker",
              "kill -TERM "
                  + host.pid()
                  + "; echo kill=$?; ps -e -o comm= > /tmp/ps; sort /tmp/ps | tr '\\n' ' '");

      PodSandbox sandbox = start(pod("looker", c));
      String log = awaitExit(sandbox);

      assertThat(log).contains("No such process").contains("kill=1");
      assertThat(log.lines().reduce((a, b) -> b).orElse(""))
          .as("PID 1 and the container's shell, which ran ps")
          .isEqualTo("ps sh sh ");
      assertThat(host.isAlive()).isTrue();
    } finally {
      host.destroyForcibly();
    }
  }

  @Test
  void runAsNonRootWithARootImageIsRefusedWithKubeletsReason() throws Exception {
    Container c = busybox("app", "true");
    Pod pod = pod("nonroot", c);
    pod.getSpec().setSecurityContext(PodSecurityContext.newBuilder().setRunAsNonRoot(true).build());

    PodSandbox sandbox = start(pod);

    RuntimeContainer app = runtime.status(sandbox).containers().get(0);
    assertThat(app.state()).isEqualTo(State.CREATED);
    assertThat(app.reason()).isEqualTo("CreateContainerConfigError");
    assertThat(app.message())
        .isEqualTo(
            "container has runAsNonRoot and image will run as root (pod: \"nonroot_default("
                + uid
                + ")\", container: app)");
  }

  @Test
  void runAsUserGroupAndFsGroupAreTheProcesssIdentityAndOwnTheVolumes() throws Exception {
    Container c = busybox("app", "id -u; id -g; id -G; touch /data/f && stat -c %g /data/f");
    c.setVolumeMounts(
        List.of(VolumeMount.newBuilder().setName("data").setMountPath("/data").build()));
    c.setSecurityContext(SecurityContext.newBuilder().setRunAsNonRoot(true).build());
    Pod pod = pod("user", c);
    pod.getSpec()
        .setSecurityContext(
            PodSecurityContext.newBuilder()
                .setRunAsUser(1000L)
                .setRunAsGroup(3000L)
                .setFsGroup(2000L)
                .build());
    pod.getSpec()
        .setVolumes(
            List.of(
                Volume.newBuilder()
                    .setName("data")
                    .setEmptyDir(EmptyDirVolumeSource.newBuilder().build())
                    .build()));

    PodSandbox sandbox = start(pod);
    String log = awaitExit(sandbox);

    assertThat(log.lines().toList()).containsExactly("1000", "3000", "3000 2000", "2000");
  }

  @Test
  void readOnlyRootFilesystemRefusesWritesToTheRoot() throws Exception {
    Container c = busybox("ro", "echo x > /x; echo root=$?; echo y > /tmp/y; echo tmp=$?");
    c.setSecurityContext(SecurityContext.newBuilder().setReadOnlyRootFilesystem(true).build());

    PodSandbox sandbox = start(pod("ro", c));
    String log = awaitExit(sandbox);

    assertThat(log).contains("Read-only file system").contains("root=2").contains("tmp=0");
  }

  @Test
  void droppedCapabilitiesAndNoPrivilegeEscalationReachTheProcess() throws Exception {
    Container c = busybox("caps", "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status");
    c.setSecurityContext(
        SecurityContext.newBuilder()
            .setAllowPrivilegeEscalation(false)
            .setCapabilities(Capabilities.newBuilder().setDrop(List.of("ALL")).build())
            .build());

    PodSandbox sandbox = start(pod("caps", c));
    String log = awaitExit(sandbox);

    assertThat(log.lines().map(l -> l.replaceAll("\\s+", " ")).toList())
        .containsExactly("CapEff: 0000000000000000", "CapBnd: 0000000000000000", "NoNewPrivs: 1");
  }

  @Test
  void execEntersTheContainersSandbox() throws Exception {
    Container c = busybox("app", "sleep 30");
    c.setWorkingDir("/srv/app");
    PodSandbox sandbox = start(pod("exec-in", c));

    ContainerCommand ps =
        runtime.execStream(
            "default",
            "exec-in",
            "app",
            List.of("/bin/sh", "-c", "hostname; pwd; ls " + root + "; ps -e -o pid=,comm="),
            false);
    String out = new String(ps.stdout().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(ps.stderr().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(ps.waitFor()).isZero();
    assertThat(err).contains("cannot access '" + root + "': No such file or directory");
    List<String> lines = out.lines().map(String::trim).toList();
    assertThat(lines.subList(0, 2)).containsExactly("exec-in", "/srv/app");
    assertThat(lines.subList(2, lines.size()))
        .map(l -> l.replaceAll("^\\d+\\s+", ""))
        .as("PID 1, the container's shell and its sleep, the exec'd shell and its ps")
        .containsExactlyInAnyOrder("sh", "sh", "sleep", "sh", "ps");
    assertThat(lines.get(2)).isEqualTo("1 sh");
    runtime.stop(sandbox, Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS);
  }

  @Test
  void anExecOnATerminalGetsATerminalOfTheContainer() throws Exception {
    PodSandbox sandbox = start(pod("exec-tty", busybox("app", "sleep 30")));

    ContainerCommand tty =
        runtime.execStream("default", "exec-tty", "app", List.of("/bin/sh", "-c", "tty"), true);
    tty.stdin().close();
    String out = new String(tty.stdout().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(tty.waitFor()).as(out).isZero();
    assertThat(out.trim()).isEqualTo("/dev/pts/0");
    runtime.stop(sandbox, Duration.ofSeconds(1)).get(10, TimeUnit.SECONDS);
  }

  private String uid;

  private Pod pod(String name, Container container) {
    uid = UUID.randomUUID().toString();
    Pod pod = new Pod();
    pod.setMetadata(
        ObjectMeta.newBuilder().setName(name).setNamespace("default").setUid(uid).build());
    PodSpec spec = new PodSpec();
    spec.setInitContainers(List.of());
    spec.setContainers(List.of(container));
    pod.setSpec(spec);
    return pod;
  }

  private static Container busybox(String name, String script) {
    Container c = new Container();
    c.setName(name);
    c.setImage("busybox");
    c.setCommand(List.of("/bin/sh", "-c", script));
    return c;
  }

  private PodSandbox start(Pod pod) throws Exception {
    return runtime.start(pod, "127.0.0.1", PodInputs.NONE).get(30, TimeUnit.SECONDS);
  }

  /** Waits for the only container to exit; what it wrote. */
  private String awaitExit(PodSandbox sandbox) throws IOException {
    await("the container to exit")
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.status(sandbox).containers().get(0).state() == State.EXITED);
    Path log = runtime.logFile(sandbox, sandbox.containers().get(0).name()).orElseThrow();
    String[] last = {""};
    await("all its output")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              String now = read(log);
              boolean settled = !now.isEmpty() && now.equals(last[0]);
              last[0] = now;
              return settled;
            });
    return last[0];
  }

  private static String read(Path log) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ContainerLogReader.copy(log, LogOptions.all(), () -> false, out);
    return out.toString(StandardCharsets.UTF_8);
  }
}
