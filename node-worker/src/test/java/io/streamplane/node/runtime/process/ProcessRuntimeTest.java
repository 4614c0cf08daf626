package io.streamplane.node.runtime.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.ConfigMapEnvSource;
import io.streamplane.api.ConfigMapVolumeSource;
import io.streamplane.api.Container;
import io.streamplane.api.ContainerPort;
import io.streamplane.api.EmptyDirVolumeSource;
import io.streamplane.api.EnvFromSource;
import io.streamplane.api.EnvVar;
import io.streamplane.api.EnvVarSource;
import io.streamplane.api.HostPathVolumeSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.api.Secret;
import io.streamplane.api.SecretKeySelector;
import io.streamplane.api.SecretVolumeSource;
import io.streamplane.api.Volume;
import io.streamplane.api.VolumeMount;
import io.streamplane.node.logs.ContainerLogReader;
import io.streamplane.node.logs.LogOptions;
import io.streamplane.node.runtime.PodInputs;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import io.streamplane.node.runtime.RuntimeContainer.State;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessRuntimeTest {

  @TempDir Path root;
  private ProcessRuntime runtime;

  @BeforeEach
  void setUp() {
    runtime = new ProcessRuntime(root);
  }

  @AfterEach
  void tearDown() {
    runtime.close();
  }

  @Test
  void aShellContainerRunsLogsAndStopsWithinItsGrace() throws Exception {
    Container c = container("sh", "busybox:1.36");
    c.setCommand(List.of("/bin/sh", "-c", "echo hello; sleep 30"));
    PodSandbox sandbox = start(pod("p1", List.of(), List.of(c)));

    RuntimeContainer sh = sandbox.containers().get(0);
    assertThat(sh.state()).isEqualTo(RuntimeContainer.State.RUNNING);
    assertThat(sh.startedAt()).isNotNull();
    assertThat(sh.containerID()).startsWith("process://");
    assertThat(sh.imageID()).startsWith("busybox:1.36@sha256:");
    Path log = runtime.logFile(sandbox, "sh").orElseThrow();
    assertThat(log.getFileName()).hasToString("0.log");
    assertThat(log.getParent().getFileName()).hasToString("sh");
    assertThat(log.getParent().getParent().getFileName().toString()).startsWith("default_p1_");
    await().atMost(Duration.ofSeconds(10)).until(() -> read(log).contains("hello"));
    assertThat(runtime.status(sandbox).allRunning()).isTrue();

    long begun = System.nanoTime();
    runtime.stop(sandbox, Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - begun)).isLessThan(Duration.ofSeconds(5));
    long pid = Long.parseLong(sh.containerID().substring("process://".length()));
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(runtime.running()).isZero();
  }

  @Test
  void aStoppedContainerIsReportedTerminatedUntilTheSandboxIsForgotten() throws Exception {
    Container c = container("sh", "busybox");
    c.setCommand(List.of("/bin/sh", "-c", "exec sleep 30"));
    PodSandbox sandbox = start(pod("p2", List.of(), List.of(c)));
    long pid = Long.parseLong(sandbox.containers().get(0).containerID().substring(10));

    // the id names the container's PID 1, which ignores a SIGTERM it has no handler for
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                runtime.status(sandbox).containers().get(0).state()
                    == RuntimeContainer.State.EXITED);
    RuntimeContainer sh = runtime.status(sandbox).containers().get(0);
    assertThat(sh.exitCode()).isNotZero();
    assertThat(sh.reason()).isEqualTo("Error");
    assertThat(sh.finishedAt()).isAfterOrEqualTo(sh.startedAt());
  }

  @Test
  void aCommandExitingThreeIsTerminatedWithError() throws Exception {
    Container fails = container("fails", "busybox");
    fails.setCommand(List.of("/bin/sh", "-c"));
    fails.setArgs(List.of("exit 3"));
    Container done = container("done", "busybox");
    done.setCommand(List.of("/bin/true"));
    PodSandbox sandbox = start(pod("p3", List.of(), List.of(fails, done)));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                runtime.status(sandbox).containers().stream()
                    .allMatch(c -> c.state() == RuntimeContainer.State.EXITED));
    List<RuntimeContainer> containers = runtime.status(sandbox).containers();
    assertThat(containers.get(0).exitCode()).isEqualTo(3);
    assertThat(containers.get(0).reason()).isEqualTo("Error");
    assertThat(containers.get(0).finishedAt()).isNotNull();
    assertThat(containers.get(1).exitCode()).isZero();
    assertThat(containers.get(1).reason()).isEqualTo("Completed");
  }

  @Test
  void anUnknownImageWithoutCommandWaitsWithErrImagePull() throws Exception {
    PodSandbox sandbox = start(pod("p4", List.of(), List.of(container("app", "example/app:1.0"))));

    RuntimeContainer app = runtime.status(sandbox).containers().get(0);
    assertThat(app.state()).isEqualTo(RuntimeContainer.State.CREATED);
    assertThat(app.reason()).isEqualTo("ErrImagePull");
    assertThat(app.message())
        .isEqualTo(
            "image \"example/app:1.0\" is not in the node's image catalog and the container has"
                + " no command");
    assertThat(app.containerID()).isNull();
  }

  @Test
  void envReferencesExpandToEarlierVariables() throws Exception {
    Container c = container("env", "busybox");
    c.setEnv(
        List.of(
            env("A", "alpha"),
            env("B", "$(A)-beta"),
            env("C", "$$(A) $(LATER) $(POD_IP)"),
            env("LATER", "x")));
    c.setCommand(List.of("/bin/sh", "-c", "echo \"B=$B C=$C H=$HOSTNAME IP=$POD_IP\"; echo $(B)"));
    PodSandbox sandbox = start(pod("p5", List.of(), List.of(c)));

    Path log = runtime.logFile(sandbox, "env").orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> read(log).lines().count() == 2);
    assertThat(read(log).lines().toList())
        .containsExactly("B=alpha-beta C=$(A) $(LATER) $(POD_IP) H=p5 IP=127.0.0.1", "alpha-beta");
  }

  @Test
  void nginxAnswersOnThePodIpAndPortAndLogsTheRequest() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Container web = container("web", "docker.io/library/nginx:1.27");
    web.setPorts(List.of(ContainerPort.newBuilder().setContainerPort(port).build()));
    PodSandbox sandbox = start(pod("web-1", List.of(), List.of(web)));
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
            .header("User-Agent", "process-runtime-test")
            .build();

    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> client.send(get, HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
    HttpResponse<String> response = client.send(get, HttpResponse.BodyHandlers.ofString());

    assertThat(response.body()).contains("Welcome to nginx!");
    Path log = runtime.logFile(sandbox, "web").orElseThrow();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> read(log).contains("\"GET / HTTP/1.1\" 200"));
    assertThat(read(log)).contains("127.0.0.1 - - [").contains("\"process-runtime-test\"");
    assertThat(runtime.status(sandbox).allRunning()).isTrue();
  }

  @Test
  void initContainersRunInOrderBeforeTheContainers() throws Exception {
    Container first = container("first", "busybox");
    first.setCommand(List.of("/bin/sh", "-c", "echo one > ready"));
    Container second = container("second", "busybox");
    second.setCommand(List.of("/bin/sh", "-c", "test -f ready && echo two >> ready"));
    Container main = container("main", "busybox");
    main.setCommand(List.of("/bin/sh", "-c", "cat ready && test \"$(cat ready)\" = \"one\ntwo\""));
    for (Container c : List.of(first, second, main)) {
      c.setVolumeMounts(List.of(mount("shared", Path.of("/shared"), false)));
      c.setWorkingDir("/shared"); // containers share only volumes, each has its own root
    }
    Pod pod = pod("p6", List.of(first, second), List.of(main));
    pod.getSpec().setVolumes(List.of(emptyDir("shared")));
    PodSandbox sandbox = start(pod);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                runtime.status(sandbox).containers().get(0).state()
                    == RuntimeContainer.State.EXITED);
    assertThat(runtime.status(sandbox).containers()).hasSize(1);
    assertThat(runtime.status(sandbox).initContainers())
        .extracting(RuntimeContainer::reason)
        .containsExactly("Completed", "Completed");
    assertThat(runtime.status(sandbox).containers().get(0).exitCode()).isZero();
  }

  @Test
  void aFailingInitContainerHoldsTheContainersUntilARestartOfItSucceeds() throws Exception {
    Path flags = Files.createDirectories(root.resolve("flags"));
    Path flag = flags.resolve("init-may-pass");
    Container init = container("init", "busybox");
    init.setCommand(List.of("/bin/sh", "-c", "test -f /flags/init-may-pass"));
    init.setVolumeMounts(List.of(mount("flags", Path.of("/flags"), true)));
    Container main = container("main", "busybox");
    main.setCommand(List.of("/bin/sh", "-c", "sleep 30"));
    Pod pod = pod("p7", List.of(init), List.of(main));
    pod.getSpec()
        .setVolumes(
            List.of(
                Volume.newBuilder()
                    .setName("flags")
                    .setHostPath(
                        HostPathVolumeSource.newBuilder().setPath(flags.toString()).build())
                    .build()));
    PodSandbox sandbox = start(pod);

    await("the init container to fail")
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.status(sandbox).initContainers().get(0).state() == State.EXITED);
    PodSandbox failed = runtime.status(sandbox);
    assertThat(failed.initContainers().get(0).exitCode()).isEqualTo(1);
    assertThat(failed.containers().get(0).state()).isEqualTo(State.CREATED);
    assertThat(failed.containers().get(0).reason()).isEqualTo("PodInitializing");

    Files.createFile(flag);
    runtime.restartContainer(sandbox, "init").get(10, TimeUnit.SECONDS);
    await("the container to start once the init container passed")
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.status(sandbox).containers().get(0).state() == State.RUNNING);
    RuntimeContainer passed = runtime.status(sandbox).initContainers().get(0);
    assertThat(passed.exitCode()).isZero();
    assertThat(passed.restartCount()).isEqualTo(1);
    assertThat(passed.lastTermination().exitCode()).isEqualTo(1);
  }

  @Test
  void versionAndOsImage() {
    assertThat(runtime.version()).isEqualTo("process://0.1");
    assertThat(runtime.osImage()).isNotBlank();
    assertThat(ImageCatalog.bareName("registry.k8s.io/library/nginx:1.27@sha256:ab"))
        .isEqualTo("nginx");
  }

  private PodSandbox start(Pod pod) throws Exception {
    return runtime.start(pod, "127.0.0.1", PodInputs.NONE).get(30, TimeUnit.SECONDS);
  }

  @Test
  void aRestartedContainerCountsTheRestartKeepsTheEndedRunAndLogsToTheNextFile() throws Exception {
    Container c = container("crash", "busybox");
    c.setCommand(List.of("/bin/sh", "-c", "echo run; exit 7"));
    PodSandbox sandbox = start(pod("p-restart", List.of(), List.of(c)));
    await("the first run to exit")
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.status(sandbox).containers().get(0).state() == State.EXITED);

    runtime.restartContainer(sandbox, "crash").get(10, TimeUnit.SECONDS);
    await("the second run to exit")
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.status(sandbox).containers().get(0).state() == State.EXITED);

    RuntimeContainer crash = runtime.status(sandbox).containers().get(0);
    assertThat(crash.restartCount()).isEqualTo(1);
    assertThat(crash.exitCode()).isEqualTo(7);
    assertThat(crash.lastTermination().exitCode()).isEqualTo(7);
    assertThat(crash.lastTermination().containerID()).isNotEqualTo(crash.containerID());
    Path log = runtime.logFile(sandbox, "crash").orElseThrow();
    assertThat(log.getFileName()).hasToString("1.log");
    assertThat(read(log.resolveSibling("0.log"))).isEqualTo("run\n");
    assertThat(read(log)).isEqualTo("run\n");
  }

  @Test
  void execRunsInTheContainersEnvironmentAndAnswersTheExitCode() throws Exception {
    Container c = container("app", "busybox");
    c.setCommand(List.of("/bin/sh", "-c", "sleep 30"));
    c.setEnv(List.of(env("GREETING", "hi")));
    PodSandbox sandbox = start(pod("p-exec", List.of(), List.of(c)));

    List<String> check = List.of("/bin/sh", "-c", "test \"$GREETING\" = hi");
    assertThat(runtime.exec(sandbox, "app", check, Duration.ofSeconds(5)).get()).isZero();
    List<String> fail = List.of("/bin/sh", "-c", "exit 3");
    assertThat(runtime.exec(sandbox, "app", fail, Duration.ofSeconds(5)).get()).isEqualTo(3);
  }

  @Test
  void aNewRuntimeOnTheSameRootKillsWhatADeadRuntimeLeftRunning() throws Exception {
    Container c = container("app", "busybox");
    c.setCommand(List.of("/bin/sh", "-c", "sleep 60"));
    PodSandbox sandbox = start(pod("p-left", List.of(), List.of(c)));
    long pid =
        Long.parseLong(sandbox.containers().get(0).containerID().substring("process://".length()));
    ProcessHandle left = ProcessHandle.of(pid).orElseThrow();

    // the first runtime "dies": it is never closed, its process keeps running
    try (ProcessRuntime next = new ProcessRuntime(root)) {
      await("the leftover process to be killed")
          .atMost(Duration.ofSeconds(10))
          .until(() -> !left.isAlive());
      assertThat(next.running()).isZero();
    }
  }

  @Test
  void configMapAndSecretReachTheContainerAsEnvironmentAndMountedFiles() throws Exception {
    Container c = container("app", "busybox");
    c.setCommand(
        List.of(
            "/bin/sh",
            "-c",
            "echo \"$PREFIX_mode $PASSWORD $KUBERNETES_SERVICE_HOST\"; cat /etc/app/conf/mode;"
                + " cat /etc/app/creds/password; echo; echo kept > /work/x; cat /work/x"));
    c.setEnvFrom(
        List.of(
            EnvFromSource.newBuilder()
                .setPrefix("PREFIX_")
                .setConfigMapRef(ConfigMapEnvSource.newBuilder().setName("conf").build())
                .build()));
    c.setEnv(
        List.of(
            EnvVar.newBuilder()
                .setName("PASSWORD")
                .setValueFrom(
                    EnvVarSource.newBuilder()
                        .setSecretKeyRef(
                            SecretKeySelector.newBuilder()
                                .setName("creds")
                                .setKey("password")
                                .build())
                        .build())
                .build()));
    Path mounts = root.resolve("mount-targets");
    c.setVolumeMounts(
        List.of(
            mount("conf", mounts.resolve("conf"), true),
            mount("creds", mounts.resolve("creds"), true),
            mount("work", Path.of("/work"), false)));
    c.setCommand(
        c.getCommand().stream().map(arg -> arg.replace("/etc/app", mounts.toString())).toList());
    Pod pod = pod("p-inputs", List.of(), List.of(c));
    pod.getSpec()
        .setVolumes(
            List.of(
                Volume.newBuilder()
                    .setName("conf")
                    .setConfigMap(ConfigMapVolumeSource.newBuilder().setName("conf").build())
                    .build(),
                Volume.newBuilder()
                    .setName("creds")
                    .setSecret(SecretVolumeSource.newBuilder().setSecretName("creds").build())
                    .build(),
                Volume.newBuilder()
                    .setName("work")
                    .setEmptyDir(EmptyDirVolumeSource.newBuilder().build())
                    .build()));
    PodInputs inputs =
        new PodInputs(
            Map.of("conf", ConfigMap.newBuilder().setData(Map.of("mode", "fast\n")).build()),
            Map.of(
                "creds",
                Secret.newBuilder()
                    .setData(
                        Map.of(
                            "password", ByteBuffer.wrap("s3cret".getBytes(StandardCharsets.UTF_8))))
                    .build()),
            Map.of("KUBERNETES_SERVICE_HOST", "127.0.0.1"));

    PodSandbox sandbox = runtime.start(pod, "127.0.0.1", inputs).get(30, TimeUnit.SECONDS);
    Path log = runtime.logFile(sandbox, "app").orElseThrow();
    await("the container to exit")
        .atMost(Duration.ofSeconds(10))
        .until(() -> runtime.status(sandbox).containers().get(0).state() == State.EXITED);
    assertThat(read(log).lines().toList())
        .containsExactly("fast", " s3cret 127.0.0.1", "fast", "s3cret", "kept");
    assertThat(Files.exists(Path.of("/work/x")))
        .as("the emptyDir is mounted only in the container's mount namespace")
        .isFalse();
  }

  @Test
  void aContainerExceedingItsMemoryLimitIsOomKilled() throws Exception {
    Container c = container("hog", "busybox");
    c.setCommand(
        List.of("/bin/sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived"));
    c.setResources(
        ResourceRequirements.newBuilder()
            .setLimits(Map.of("memory", "32Mi", "cpu", "500m"))
            .build());
    PodSandbox sandbox = start(pod("p-oom", List.of(), List.of(c)));
    await("the hog to be killed")
        .atMost(Duration.ofSeconds(30))
        .until(() -> runtime.status(sandbox).containers().get(0).state() == State.EXITED);

    RuntimeContainer hog = runtime.status(sandbox).containers().get(0);
    assertThat(hog.reason()).isEqualTo("OOMKilled");
    assertThat(hog.exitCode()).isEqualTo(137);
    assertThat(read(runtime.logFile(sandbox, "hog").orElseThrow())).doesNotContain("survived");
  }

  private static Volume emptyDir(String name) {
    return Volume.newBuilder()
        .setName(name)
        .setEmptyDir(EmptyDirVolumeSource.newBuilder().build())
        .build();
  }

  private static VolumeMount mount(String name, Path path, boolean readOnly) {
    return VolumeMount.newBuilder()
        .setName(name)
        .setMountPath(path.toString())
        .setReadOnly(readOnly)
        .build();
  }

  private static Pod pod(String name, List<Container> init, List<Container> containers) {
    Pod pod = new Pod();
    pod.setMetadata(
        ObjectMeta.newBuilder()
            .setName(name)
            .setNamespace("default")
            .setUid(UUID.randomUUID().toString())
            .build());
    PodSpec spec = new PodSpec();
    spec.setInitContainers(init);
    spec.setContainers(containers);
    pod.setSpec(spec);
    return pod;
  }

  private static Container container(String name, String image) {
    Container c = new Container();
    c.setName(name);
    c.setImage(image);
    return c;
  }

  private static EnvVar env(String name, String value) {
    EnvVar var = new EnvVar();
    var.setName(name);
    var.setValue(value);
    return var;
  }

  /** The text a container wrote to its log (the CRI records' payload, as kubectl logs shows it). */
  private static String read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return "";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ContainerLogReader.copy(file, LogOptions.all(), () -> false, out);
    return out.toString(StandardCharsets.UTF_8);
  }
}
