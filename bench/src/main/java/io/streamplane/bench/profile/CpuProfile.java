package io.streamplane.bench.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The CPU a JVM spent on a window of requests, per request: each hop's CPU measured from its
 * threads' {@code /proc} times ({@link ThreadCpu}), split into stages by the share of the hop's
 * Java stack samples each stage got in a Flight Recorder recording ({@link Stages}).
 *
 * <p>Limits, said in every report: the JVM samples only threads running Java code, so time in
 * native code (RocksDB's C++ under a JNI call, socket system calls) is measured in its hop's CPU
 * but spread over the hop's stages by their Java samples; a thread counts as running Java code also
 * while it waits for a core, so on a machine with more runnable threads than cores the split leans
 * towards the busiest stages' waits. Threads the OS does not name as Java ones (GC, RocksDB's
 * background threads) have CPU and no samples.
 */
public final class CpuProfile {

  /** The stage of a hop whose threads used CPU and got no Java sample. */
  public static final String UNSAMPLED = "native or not sampled";

  /** The hop of the CPU of threads that ended within the window. */
  public static final String ENDED = "threads that ended";

  /** A window of requests: the phase of a run, and the threads' CPU at its start and end. */
  public record Window(
      String name, int requests, Instant start, Instant end, ThreadCpu before, ThreadCpu after) {}

  /** A stage of a hop: its CPU seconds in the window, µs per request, the Java samples it got. */
  public record Stage(String name, double cpuSeconds, double microsPerRequest, long samples) {}

  /** A hop: CPU µs per request, CPU seconds in the window, its stages, most expensive first. */
  public record Hop(
      String name, double microsPerRequest, double cpuSeconds, long samples, List<Stage> stages) {}

  /** A window's breakdown, hops most expensive first. */
  public record Breakdown(
      String window,
      int requests,
      double seconds,
      double cpuSeconds,
      double microsPerRequest,
      long samples,
      List<Hop> hops) {}

  private CpuProfile() {}

  /** Reads the recording once and breaks down every window. */
  public static List<Breakdown> of(Path recording, List<Window> windows) throws IOException {
    Map<Long, String> javaNames = new HashMap<>();
    List<Map<String, Map<String, Long>>> samples = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      samples.add(new HashMap<>());
    }
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent event = file.readEvent();
        String type = event.getEventType().getName();
        if (type.equals("jdk.ExecutionSample")) {
          RecordedThread thread = event.getThread("sampledThread");
          if (thread == null || thread.getJavaName() == null) {
            continue;
          }
          javaNames.put(thread.getOSThreadId(), thread.getJavaName());
          int w = windowOf(windows, event.getStartTime());
          if (w >= 0) {
            samples
                .get(w)
                .computeIfAbsent(Stages.hop(thread.getJavaName()), h -> new HashMap<>())
                .merge(Stages.stage(frames(event.getStackTrace())), 1L, Long::sum);
          }
        } else if (type.equals("jdk.ThreadCPULoad") || type.equals("jdk.ThreadStart")) {
          RecordedThread thread =
              type.equals("jdk.ThreadStart") ? event.getThread("thread") : event.getThread();
          if (thread != null && thread.getJavaName() != null) {
            javaNames.put(thread.getOSThreadId(), thread.getJavaName());
          }
        }
      }
    }
    List<Breakdown> breakdowns = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      breakdowns.add(breakdown(windows.get(i), javaNames, samples.get(i)));
    }
    return breakdowns;
  }

  /**
   * One window's breakdown from its threads' CPU and its samples by hop and stage; {@code
   * javaNames} names threads by OS id, the others keep their OS name.
   */
  static Breakdown breakdown(
      Window window, Map<Long, String> javaNames, Map<String, Map<String, Long>> samples) {
    Map<String, Double> cpu = new TreeMap<>();
    double threadsTotal = 0;
    for (var used : window.after().since(window.before()).entrySet()) {
      long tid = used.getKey();
      String name =
          javaNames.getOrDefault(tid, window.after().names().getOrDefault(tid, "tid " + tid));
      cpu.merge(Stages.hop(name), used.getValue(), Double::sum);
      threadsTotal += used.getValue();
    }
    double total = window.after().totalSeconds() - window.before().totalSeconds();
    if (total - threadsTotal > 0.005) {
      cpu.merge(ENDED, total - threadsTotal, Double::sum);
    }
    double perRequest = 1e6 / Math.max(1, window.requests());
    List<Hop> hops = new ArrayList<>();
    long allSamples = 0;
    for (var e : cpu.entrySet()) {
      double micros = e.getValue() * perRequest;
      Map<String, Long> stages = samples.getOrDefault(e.getKey(), Map.of());
      long hopSamples = stages.values().stream().mapToLong(Long::longValue).sum();
      allSamples += hopSamples;
      List<Stage> split = new ArrayList<>();
      if (hopSamples == 0) {
        split.add(new Stage(UNSAMPLED, e.getValue(), micros, 0));
      } else {
        stages.forEach(
            (stage, n) -> {
              double share = n / (double) hopSamples;
              split.add(new Stage(stage, e.getValue() * share, micros * share, n));
            });
      }
      split.sort(Comparator.comparingDouble(Stage::microsPerRequest).reversed());
      hops.add(new Hop(e.getKey(), micros, e.getValue(), hopSamples, List.copyOf(split)));
    }
    hops.sort(Comparator.comparingDouble(Hop::microsPerRequest).reversed());
    return new Breakdown(
        window.name(),
        window.requests(),
        (window.end().toEpochMilli() - window.start().toEpochMilli()) / 1e3,
        total,
        total * perRequest,
        allSamples,
        List.copyOf(hops));
  }

  private static int windowOf(List<Window> windows, Instant t) {
    for (int i = 0; i < windows.size(); i++) {
      Window w = windows.get(i);
      if (!t.isBefore(w.start()) && t.isBefore(w.end())) {
        return i;
      }
    }
    return -1;
  }

  private static List<String> frames(RecordedStackTrace stack) {
    if (stack == null) {
      return List.of();
    }
    List<String> frames = new ArrayList<>(stack.getFrames().size());
    for (RecordedFrame f : stack.getFrames()) {
      if (f.getMethod() != null && f.getMethod().getType() != null) {
        frames.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
      }
    }
    return frames;
  }
}
