package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.ScenarioRunner;
import io.streamplane.bench.scenario.Settings;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A bench subcommand: its options make a {@link Scenario}, which the runner runs and reports. */
abstract class ScenarioCommand implements Callable<Integer> {

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,@%+-]+");

  @Mixin BenchOptions bench;

  @Spec CommandSpec spec;

  /** The scenario the options describe; an IllegalArgumentException is a usage error. */
  abstract Scenario scenario();

  @Override
  public Integer call() {
    Scenario scenario;
    try {
      scenario = scenario();
    } catch (IllegalArgumentException e) {
      System.err.println("streamplane bench " + spec.name() + ": " + e.getMessage());
      return 2;
    }
    Settings settings =
        new Settings(
            bench.kubeconfig, bench.context, bench.output, bench.name, bench.json, commandLine());
    return new ScenarioRunner(settings, System.out, System.err).run(scenario);
  }

  /** The command line as typed, quoted for a POSIX shell, for the report. */
  private String commandLine() {
    List<String> args = spec.commandLine().getParseResult().originalArgs();
    return "./streamplane "
        + args.stream()
            .map(a -> PLAIN.matcher(a).matches() ? a : "'" + a.replace("'", "'\\''") + "'")
            .collect(Collectors.joining(" "));
  }
}
