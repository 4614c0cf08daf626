package io.streamplane.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CpuProfileTest {

  @Test
  void eachHopsCpuIsSplitByItsSamplesAndTheRestIsTheEndedThreads() {
    ThreadCpu before =
        new ThreadCpu(Map.of(1L, 1.0, 2L, 5.0), Map.of(1L, "gateway-1", 2L, "data-plane-kafk"), 7);
    ThreadCpu after =
        new ThreadCpu(
            Map.of(1L, 1.3, 2L, 5.1, 3L, 0.05),
            Map.of(1L, "gateway-1", 2L, "data-plane-kafk", 3L, "rocksdb:low"),
            7.65);
    CpuProfile.Breakdown b =
        CpuProfile.breakdown(
            new CpuProfile.Window(
                "create", 1_000, Instant.EPOCH, Instant.ofEpochSecond(2), before, after),
            // The OS name is cut to 15 characters; the recording names the thread in full.
            Map.of(2L, "data-plane-kafka-request-handler-0"),
            Map.of("gateway", Map.of("JSON", 3L, "admission", 1L)));

    assertThat(b.microsPerRequest()).isCloseTo(650, within(1e-6));
    assertThat(b.hops())
        .extracting(CpuProfile.Hop::name)
        .containsExactly("gateway", CpuProfile.ENDED, "broker", "RocksDB background");
    CpuProfile.Hop gateway = b.hops().get(0);
    assertThat(gateway.microsPerRequest()).isCloseTo(300, within(1e-6));
    assertThat(gateway.stages())
        .extracting(CpuProfile.Stage::name, s -> Math.round(s.microsPerRequest()))
        .containsExactly(tuple("JSON", 225L), tuple("admission", 75L));
    assertThat(b.hops().get(1).microsPerRequest()).isCloseTo(200, within(1e-6));
    assertThat(b.hops().get(2).stages())
        .extracting(CpuProfile.Stage::name)
        .containsExactly(CpuProfile.UNSAMPLED);
  }

  @Test
  void theReportGivesMicrosPerRequestUnderLoadAndShareOfACoreAtRest() {
    CpuProfile.Breakdown b =
        CpuProfile.breakdown(
            new CpuProfile.Window(
                "create",
                1_000,
                Instant.EPOCH,
                Instant.ofEpochSecond(2),
                new ThreadCpu(Map.of(1L, 1.0), Map.of(1L, "gateway-1"), 1.0),
                new ThreadCpu(Map.of(1L, 1.3), Map.of(1L, "gateway-1"), 1.3)),
            Map.of(),
            Map.of("gateway", Map.of("JSON", 3L, "admission", 1L)));

    assertThat(CpuReport.markdown(7, List.of(b), CpuReport.Measure.MICROS_PER_REQUEST))
        .contains("| gateway | 300 |")
        .contains("| gateway | JSON | 225 |");
    // 0.3 s of CPU in a 2 s window: 15% of one core.
    assertThat(CpuReport.markdown(7, List.of(b), CpuReport.Measure.PERCENT_OF_A_CORE))
        .contains("| gateway | 15.00 |")
        .contains("| gateway | admission | 3.75 |");
  }

  @Test
  void aRealRecordingOfThisJvmFindsTheJsonWorkOfAGatewayThread() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong parsed = new AtomicLong();
    ObjectMapper json = new ObjectMapper();
    Thread worker =
        new Thread(
            () -> {
              while (!stop.get()) {
                try {
                  json.readTree("{\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"b\"}}}");
                  parsed.incrementAndGet();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }
            },
            "gateway-99");
    List<CpuProfile.Breakdown> breakdowns;
    try (Profiler profiler = Profiler.start(ProcessHandle.current().pid(), Duration.ZERO)) {
      worker.start();
      profiler.begin("parse");
      // A fixed amount of work rather than of time: the machine may be busy with other things.
      long until = parsed.get() + 500_000;
      while (parsed.get() < until) {
        Thread.sleep(10);
      }
      profiler.end(100);
      breakdowns = profiler.finish();
    } finally {
      stop.set(true);
      worker.join();
    }

    CpuProfile.Hop gateway =
        breakdowns.get(0).hops().stream()
            .filter(h -> h.name().equals("gateway"))
            .findFirst()
            .orElseThrow();
    assertThat(gateway.cpuSeconds()).isPositive();
    assertThat(gateway.samples()).isPositive();
    assertThat(gateway.stages().get(0).name()).isEqualTo("JSON");
  }
}
