package io.streamplane.bench.measure;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Calls {@code sample} with the seconds since its start, at once and then every {@code interval},
 * on a daemon thread, and once more when closed: the points of a scenario's time series.
 */
public final class Sampler implements AutoCloseable {

  /** Receives the seconds since the sampler started. */
  public interface Sample {
    void at(double seconds);
  }

  private final ScheduledExecutorService executor;
  private final Sample sample;
  private final long started;

  private Sampler(Duration interval, Sample sample) {
    this.sample = sample;
    this.started = System.nanoTime();
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "bench-sampler");
              t.setDaemon(true);
              return t;
            });
    executor.scheduleAtFixedRate(this::tick, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  public static Sampler every(Duration interval, Sample sample) {
    return new Sampler(interval, sample);
  }

  private synchronized void tick() {
    try {
      sample.at((System.nanoTime() - started) / 1e9);
    } catch (RuntimeException e) {
      // A failed sample leaves a gap in the series; the next one may work.
    }
  }

  @Override
  public void close() throws InterruptedException {
    executor.shutdown();
    executor.awaitTermination(5, TimeUnit.SECONDS);
    tick();
  }
}
