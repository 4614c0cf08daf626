package io.streamplane.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real {@code /usr/bin/kubectl} against a cluster's kubeconfig, as a user would. */
final class Kubectl {

  static final Path BINARY = Path.of("/usr/bin/kubectl");

  /** What one kubectl invocation printed and how it ended. */
  record Result(int exitCode, String out, String err) {
    Result expectSuccess() {
      if (exitCode != 0) {
        throw new AssertionError("kubectl failed (" + exitCode + "):\n" + out + err);
      }
      return this;
    }
  }

  private final Path kubeconfig;

  Kubectl(Path kubeconfig) {
    this.kubeconfig = kubeconfig;
  }

  Result run(String... args) throws IOException, InterruptedException {
    return runWithInput(null, args);
  }

  Result runWithInput(String stdin, String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile("kubectl", ".out");
    Path err = Files.createTempFile("kubectl", ".err");
    try {
      Process process =
          new ProcessBuilder(command(args))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (stdin != null) {
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      process.getOutputStream().close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish in 60 s");
      }
      return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** Starts a long-running kubectl (e.g. {@code get -w}) whose output goes to {@code out}. */
  Process start(Path out, String... args) throws IOException {
    return new ProcessBuilder(command(args))
        .redirectOutput(out.toFile())
        .redirectErrorStream(true)
        .start();
  }

  /** The command line of one kubectl invocation. */
  List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    command.add(BINARY.toString());
    command.add("--kubeconfig=" + kubeconfig);
    command.addAll(List.of(args));
    return command;
  }
}
