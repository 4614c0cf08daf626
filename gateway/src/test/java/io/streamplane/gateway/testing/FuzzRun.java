package io.streamplane.gateway.testing;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A seeded run of generated requests: each case is sent and judged, and what went wrong is
 * collected with the case's description. The seed is printed first, so that a failing run can be
 * repeated with {@code -Dstreamplane.fuzz.seed=<seed>}; the answers' codes are printed last.
 */
public final class FuzzRun {

  private FuzzRun() {}

  /** One case sent: the answer's status code and what is wrong with the answer (null: nothing). */
  public record Tried(int code, String problem) {}

  /** Sends one case and judges its answer. */
  @FunctionalInterface
  public interface Trial<C> {
    Tried send(C c) throws IOException;
  }

  /** The seed of a run: {@code streamplane.fuzz.seed}, or a new one. */
  public static long seed() {
    return Long.getLong("streamplane.fuzz.seed", System.nanoTime());
  }

  /**
   * Sends {@code count} cases made by {@code generate} from {@code seed}; returns the failures,
   * each as {@code #<index> <description>: <problem>}. An answer that did not come within the
   * client's timeout, or not at all, is a failure too.
   */
  public static <C> List<String> run(
      String name,
      long seed,
      int count,
      Function<Random, C> generate,
      Trial<C> trial,
      Function<C, String> describe) {
    System.out.println(
        name
            + " seed="
            + seed
            + " requests="
            + count
            + " (replay: -Dstreamplane.fuzz.seed="
            + seed
            + ")");
    Random random = new Random(seed);
    List<C> cases = new ArrayList<>();
    while (cases.size() < count) {
      cases.add(generate.apply(random));
    }
    List<String> failures = new ArrayList<>();
    Map<Integer, Integer> codes = new TreeMap<>();
    long started = System.nanoTime();
    for (int i = 0; i < cases.size(); i++) {
      C c = cases.get(i);
      String problem;
      try {
        Tried tried = trial.send(c);
        codes.merge(tried.code(), 1, Integer::sum);
        problem = tried.problem();
      } catch (SocketTimeoutException e) {
        problem = "no answer within the client's timeout";
      } catch (IOException e) {
        problem = "no answer: " + e;
      }
      if (problem != null) {
        failures.add("#" + i + " " + describe.apply(c) + ": " + problem);
      }
    }
    System.out.println(
        name
            + " answers by code: "
            + codes
            + " in "
            + (System.nanoTime() - started) / 1_000_000
            + " ms");
    return failures;
  }
}
