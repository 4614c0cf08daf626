package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The official Python client (Debian's {@code python3-kubernetes}, run by {@code /usr/bin/python3})
 * driven by the script {@code clients/python_client.py} against one cluster's kubeconfig; the
 * script's commands are listed in its docstring.
 */
final class PythonClient {

  private static final Path PYTHON = Path.of("/usr/bin/python3");

  private final Path home;
  private final Path script;
  private final Path kubeconfig;

  /** Copies the script into {@code home}, where its output files go too. */
  PythonClient(Path home, Path kubeconfig) throws IOException {
    this.home = home;
    this.kubeconfig = kubeconfig;
    this.script = home.resolve("python_client.py");
    try (InputStream source = PythonClient.class.getResourceAsStream("/clients/python_client.py")) {
      Files.copy(source, script);
    }
  }

  /** Runs one command to its end (at most a minute). */
  Kubectl.Result run(String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile(home, "python", ".out");
    Process process = start(out, args);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the python client to finish").isTrue();
    String err = new String(process.getErrorStream().readAllBytes());
    return new Kubectl.Result(process.exitValue(), Files.readString(out), err);
  }

  /** Starts one command, its standard output going to {@code out}. */
  Process start(Path out, String... args) throws IOException {
    assertThat(PYTHON).as("Debian's python3 with python3-kubernetes").exists();
    List<String> command = new ArrayList<>(List.of(PYTHON.toString(), script.toString()));
    command.add(kubeconfig.toString());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectOutput(out.toFile())
        .redirectError(ProcessBuilder.Redirect.PIPE)
        .start();
  }
}
