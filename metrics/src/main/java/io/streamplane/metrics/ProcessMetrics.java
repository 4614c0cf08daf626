package io.streamplane.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The JVM's and the process's own metrics ({@code jvm_*}: memory, garbage collection, threads,
 * classes; {@code process_*}: CPU time, resident memory, open files, start time) in the default
 * registry.
 *
 * <p>Contract: registered once per JVM however many roles ask, so {@code up}, which runs every role
 * in one process, exposes them once.
 */
public final class ProcessMetrics {

  private static final AtomicBoolean REGISTERED = new AtomicBoolean();

  private ProcessMetrics() {}

  /** Registers the JVM and process metrics in {@link PrometheusRegistry#defaultRegistry}. */
  public static void register() {
    if (REGISTERED.compareAndSet(false, true)) {
      JvmMetrics.builder().register(PrometheusRegistry.defaultRegistry);
    }
  }
}
