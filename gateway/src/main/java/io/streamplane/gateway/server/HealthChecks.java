package io.streamplane.gateway.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-apiserver's {@code /livez}, {@code /readyz} and {@code /healthz}: named checks, each
 * answered alone at {@code /readyz/<name>}, and all of them at {@code /readyz}: {@code ok}, or with
 * {@code ?verbose} one {@code [+]name ok} line per check and {@code readyz check passed}; a failing
 * check makes it a 500 that lists every check, the failing ones as {@code [-]name failed: reason
 * withheld} (the reason is logged, as kube-apiserver logs it), and ends {@code readyz check
 * failed}. {@code ?exclude=name} leaves a check out.
 *
 * <p>{@code /livez} and {@code /healthz} run the checks that say the process works; {@code /readyz}
 * runs those and the ones that say it should be sent requests ({@link #addReadyOnly}). A post-start
 * hook ({@link #postStartHook}) passes from the first time its condition holds, as kube-apiserver's
 * hooks pass once they have run.
 */
public final class HealthChecks {

  private static final Logger LOG = LoggerFactory.getLogger(HealthChecks.class);

  /** One check: empty when it passes, otherwise why not. */
  public interface Check {
    Optional<String> failure();
  }

  private record Named(String name, Check check, boolean readyOnly) {}

  private final List<Named> checks = new CopyOnWriteArrayList<>();

  /** Adds a check that {@code /livez}, {@code /healthz} and {@code /readyz} run. */
  public HealthChecks add(String name, Check check) {
    checks.add(new Named(name, check, false));
    return this;
  }

  /** Adds a check that only {@code /readyz} runs. */
  public HealthChecks addReadyOnly(String name, Check check) {
    checks.add(new Named(name, check, true));
    return this;
  }

  /**
   * A post-start hook: fails ({@code pending}) until {@code done} first holds, and passes ever
   * after.
   */
  public static Check postStartHook(BooleanSupplier done, String pending) {
    AtomicBoolean passed = new AtomicBoolean();
    return () -> {
      if (passed.get() || done.getAsBoolean()) {
        passed.set(true);
        return Optional.empty();
      }
      return Optional.of(pending);
    };
  }

  /** The names and failures of the checks {@code /readyz} runs that fail now. */
  public Map<String, String> notReady() {
    Map<String, String> failing = new java.util.LinkedHashMap<>();
    for (Named named : checks) {
      named.check.failure().ifPresent(reason -> failing.put(named.name, reason));
    }
    return failing;
  }

  /** The answer to {@code path} ({@code /readyz}, {@code /livez/ping}, ...), or empty: no such. */
  Optional<Answer> answer(String path, boolean verbose, Set<String> excluded) {
    String[] parts = path.substring(1).split("/", 2);
    String endpoint = parts[0];
    boolean ready = endpoint.equals("readyz");
    List<Named> run = new ArrayList<>();
    for (Named named : checks) {
      if ((ready || !named.readyOnly) && !excluded.contains(named.name)) {
        run.add(named);
      }
    }
    if (parts.length == 2) {
      for (Named named : run) {
        if (named.name.equals(parts[1])) {
          Optional<String> failure = named.check.failure();
          return Optional.of(
              failure
                  .map(reason -> new Answer(500, "internal server error: " + reason + "\n"))
                  .orElse(new Answer(200, "ok")));
        }
      }
      return Optional.empty();
    }
    StringBuilder lines = new StringBuilder();
    boolean failed = false;
    for (Named named : run) {
      Optional<String> failure = named.check.failure();
      if (failure.isPresent()) {
        failed = true;
        LOG.info("{} check failed: {}: {}", endpoint, named.name, failure.get());
        lines.append("[-]").append(named.name).append(" failed: reason withheld\n");
      } else {
        lines.append("[+]").append(named.name).append(" ok\n");
      }
    }
    if (failed) {
      return Optional.of(new Answer(500, lines + endpoint + " check failed\n"));
    }
    return Optional.of(
        verbose ? new Answer(200, lines + endpoint + " check passed\n") : new Answer(200, "ok"));
  }

  /** A status code and a plain-text body. */
  record Answer(int code, String body) {}
}
