package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HealthChecksTest {

  private final AtomicBoolean written = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final HealthChecks checks =
      new HealthChecks()
          .add("ping", Optional::empty)
          .add(
              "poststarthook/rbac/bootstrap-roles",
              HealthChecks.postStartHook(written::get, "the default policy is not written yet"))
          .addReadyOnly(
              "shutdown", () -> closing.get() ? Optional.of("shutting down") : Optional.empty());

  @Test
  void aPendingPostStartHookFailsReadyzAndLivezListingEveryCheckWithItsReasonWithheld() {
    HealthChecks.Answer ready = checks.answer("/readyz", false, Set.of()).orElseThrow();
    assertThat(ready.code()).isEqualTo(500);
    assertThat(ready.body())
        .isEqualTo(
            "[+]ping ok\n"
                + "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n"
                + "[+]shutdown ok\n"
                + "readyz check failed\n");
    assertThat(checks.answer("/livez", false, Set.of()).orElseThrow().body())
        .doesNotContain("shutdown")
        .endsWith("livez check failed\n");
    assertThat(checks.answer("/readyz/poststarthook/rbac/bootstrap-roles", false, Set.of()))
        .contains(
            new HealthChecks.Answer(
                500, "internal server error: the default policy is not written yet\n"));
    assertThat(checks.notReady())
        .containsExactly(
            java.util.Map.entry(
                "poststarthook/rbac/bootstrap-roles", "the default policy is not written yet"));
  }

  @Test
  void aHookThatRanPassesEverAfterAndVerboseListsTheChecks() {
    written.set(true);
    assertThat(checks.answer("/readyz", false, Set.of()))
        .contains(new HealthChecks.Answer(200, "ok"));
    written.set(false); // a default deleted later: the hook has run, readiness stays
    assertThat(checks.answer("/readyz", true, Set.of()).orElseThrow())
        .isEqualTo(
            new HealthChecks.Answer(
                200,
                "[+]ping ok\n"
                    + "[+]poststarthook/rbac/bootstrap-roles ok\n"
                    + "[+]shutdown ok\n"
                    + "readyz check passed\n"));
    assertThat(checks.notReady()).isEmpty();
  }

  @Test
  void shuttingDownFailsReadyzOnlyAndExcludedOrUnknownChecksAreLeftOutOrNotFound() {
    written.set(true);
    closing.set(true);
    assertThat(checks.answer("/readyz", false, Set.of()).orElseThrow().code()).isEqualTo(500);
    assertThat(checks.answer("/livez", false, Set.of()))
        .contains(new HealthChecks.Answer(200, "ok"));
    assertThat(checks.answer("/healthz", false, Set.of()))
        .contains(new HealthChecks.Answer(200, "ok"));
    assertThat(checks.answer("/readyz", false, Set.of("shutdown")))
        .contains(new HealthChecks.Answer(200, "ok"));
    assertThat(checks.answer("/readyz/no-such-check", false, Set.of())).isEmpty();
    assertThat(checks.answer("/livez/shutdown", false, Set.of())).isEmpty();
  }
}
