package io.streamplane.bench.recovery;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lines of the processes' logs that tell where a recovery spent its time, counted: tasks whose
 * state Kafka Streams declared corrupted, state discarded after an unclean stop, tasks waiting for
 * their group's committed offsets (a transaction left open), producers fenced, and restorations
 * from changelogs.
 */
final class StallSignatures {

  /** A kind of line: what it means, and a text every such line contains. */
  record Signature(String meaning, String text) {}

  /** How often a signature appeared, and its first line. */
  record Count(String meaning, int count, String first) {}

  static final List<Signature> SIGNATURES =
      List.of(
          new Signature(
              "task waited for its committed offsets (a transaction left open)",
              "before the last committed offset"),
          new Signature(
              "task state declared corrupted (no checkpoint under exactly-once)",
              "did not find checkpoint offsets"),
          new Signature(
              "state of an unclean stop discarded at start", "did not stop cleanly; discarded"),
          new Signature("producer fenced", "ProducerFencedException"),
          new Signature("task migrated (lost its partitions)", "TaskMigratedException"),
          new Signature("request timed out", "org.apache.kafka.common.errors.TimeoutException"));

  private StallSignatures() {}

  /** Counts every signature in {@code lines}; only those found are answered. */
  static List<Count> count(List<String> lines) {
    Map<Signature, int[]> counts = new LinkedHashMap<>();
    Map<Signature, String> first = new LinkedHashMap<>();
    for (String line : lines) {
      for (Signature s : SIGNATURES) {
        if (line.contains(s.text())) {
          counts.computeIfAbsent(s, k -> new int[1])[0]++;
          first.putIfAbsent(s, line.length() > 300 ? line.substring(0, 300) + "..." : line);
        }
      }
    }
    List<Count> found = new ArrayList<>();
    for (Signature s : SIGNATURES) {
      if (counts.containsKey(s)) {
        found.add(new Count(s.meaning(), counts.get(s)[0], first.get(s)));
      }
    }
    return found;
  }

  /** The lines of {@code log} from byte {@code offset} on; none when it cannot be read. */
  static List<String> linesFrom(Path log, long offset) {
    if (!Files.isRegularFile(log)) {
      return List.of();
    }
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      long start = Math.min(offset, file.length());
      byte[] bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 8, file.length() - start)];
      file.seek(start);
      file.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      return List.of();
    }
  }
}
