package io.streamplane.node.runtime.simulated;

import io.streamplane.api.Container;
import io.streamplane.api.Pod;
import io.streamplane.node.runtime.PodRuntime.ContainerUsage;
import io.streamplane.schema.objects.Quantities;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a simulated container uses, so that {@code kubectl top} and the HorizontalPodAutoscaler have
 * figures to read from nodes that run no process. Each container uses, every second, what the pod's
 * annotation {@value #ANNOTATION} says ({@code cpu=250m,memory=64Mi}: each container of the pod
 * uses 250 millicores and 64 MiB; {@code web.cpu=900m} sets the figure of the container {@code web}
 * alone), else what the container requests, else nothing. The annotation is read from the pod as
 * the node last saw it, so {@code kubectl annotate pod} changes a running pod's use.
 *
 * <p>CPU is reported as the kubelet reports it, a cumulative count of core-nanoseconds: each call
 * adds the rate in force since the previous call times the time passed, so a consumer that takes
 * the rate between two readings (as metrics-server does) reads the annotated figure. Thread-safe.
 */
final class SimulatedUsage {

  /** The annotation that sets a simulated pod's use of CPU and memory. */
  static final String ANNOTATION = "streamplane.io/simulated-usage";

  private static final Set<String> RESOURCES = Set.of("cpu", "memory");

  /** One container's running total: core-nanoseconds so far, at what rate, since when. */
  private record Meter(long cpuNanos, long nanoCores, Instant at) {}

  private final Map<String, Meter> meters = new HashMap<>();

  /** The use of each container of {@code containers} ({@code sandboxId} keeps their totals). */
  synchronized Map<String, ContainerUsage> read(
      String sandboxId, Pod pod, List<String> containers, Instant now) {
    Map<String, ContainerUsage> usage = new LinkedHashMap<>();
    for (String name : containers) {
      Rate rate = rate(pod, name);
      String key = sandboxId + "/" + name;
      Meter meter = meters.get(key);
      long total =
          meter == null
              ? 0
              : meter.cpuNanos()
                  + Math.max(0, now.toEpochMilli() - meter.at().toEpochMilli())
                      * meter.nanoCores()
                      / 1000;
      meters.put(key, new Meter(total, rate.nanoCores(), now));
      usage.put(name, new ContainerUsage(total, rate.memoryBytes(), now));
    }
    return usage;
  }

  /** Forgets the totals of a sandbox that stopped. */
  synchronized void forget(String sandboxId) {
    meters.keySet().removeIf(k -> k.startsWith(sandboxId + "/"));
  }

  /** A container's use per second: CPU in nanocores, memory in bytes. */
  record Rate(long nanoCores, long memoryBytes) {}

  /**
   * The rate of container {@code name} of {@code pod}: the annotation's figures (the container's
   * own entry before the pod's), else the container's requests. Entries that do not parse are
   * ignored.
   */
  static Rate rate(Pod pod, String name) {
    Map<String, String> figures = new HashMap<>(requests(pod, name));
    Map<String, String> annotations =
        pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
    String annotation = annotations == null ? null : annotations.get(ANNOTATION);
    if (annotation != null) {
      Map<String, String> own = new HashMap<>();
      for (String entry : annotation.split(",")) {
        String[] kv = entry.trim().split("=", 2);
        if (kv.length != 2) {
          continue;
        }
        String key = kv[0].trim();
        int dot = key.lastIndexOf('.');
        String container = dot < 0 ? null : key.substring(0, dot);
        String resource = dot < 0 ? key : key.substring(dot + 1);
        if (!RESOURCES.contains(resource) || !parses(kv[1].trim())) {
          continue;
        }
        if (container == null) {
          figures.put(resource, kv[1].trim());
        } else if (container.equals(name)) {
          own.put(resource, kv[1].trim());
        }
      }
      figures.putAll(own);
    }
    long nanoCores =
        figures.containsKey("cpu")
            ? Quantities.parse(figures.get("cpu"))
                .movePointRight(9)
                .setScale(0, java.math.RoundingMode.CEILING)
                .longValueExact()
            : 0;
    long memory = figures.containsKey("memory") ? Quantities.value(figures.get("memory")) : 0;
    return new Rate(nanoCores, memory);
  }

  private static Map<String, String> requests(Pod pod, String name) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return Map.of();
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (name.equals(c.getName())
          && c.getResources() != null
          && c.getResources().getRequests() != null) {
        Map<String, String> requests = new HashMap<>();
        c.getResources()
            .getRequests()
            .forEach(
                (k, v) -> {
                  if (RESOURCES.contains(k) && v != null && parses(v)) {
                    requests.put(k, v);
                  }
                });
        return requests;
      }
    }
    return Map.of();
  }

  private static boolean parses(String quantity) {
    try {
      Quantities.parse(quantity);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
