package io.streamplane.csi.hostpath;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The host-path driver's volumes on disk: each a directory {@code <root>/volumes/<id>} and its
 * record {@code <root>/meta/<id>.json} (the name the volume was created under and its capacity).
 * The capacity is an account, not a quota: a volume's directory may hold more than its capacity;
 * what the account bounds is the sum of the capacities, against the node's configured capacity.
 *
 * <p>Contract: the records are the truth and survive a restart of the driver. Not thread-safe: the
 * driver's services call it under one lock.
 */
public final class HostPathVolumes {

  /**
   * A volume's record.
   *
   * @param attachedTo the node the volume is published to by ControllerPublishVolume, or null
   */
  public record Record(
      String id, String name, long capacityBytes, boolean ephemeral, String attachedTo) {

    public Record withCapacity(long bytes) {
      return new Record(id, name, bytes, ephemeral, attachedTo);
    }

    public Record withAttachedTo(String node) {
      return new Record(id, name, capacityBytes, ephemeral, node);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path root;
  private final long capacityBytes;

  public HostPathVolumes(Path root, long capacityBytes) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    this.capacityBytes = capacityBytes;
    Files.createDirectories(this.root.resolve("volumes"));
    Files.createDirectories(this.root.resolve("meta"));
  }

  public Path root() {
    return root;
  }

  /** The directory of volume {@code id}. */
  public Path directory(String id) {
    return root.resolve("volumes").resolve(id);
  }

  public Optional<Record> byId(String id) throws IOException {
    if (id.isEmpty() || id.contains("/") || id.startsWith(".")) {
      return Optional.empty();
    }
    Path meta = root.resolve("meta").resolve(id + ".json");
    if (!Files.exists(meta)) {
      return Optional.empty();
    }
    return Optional.of(JSON.readValue(meta.toFile(), Record.class));
  }

  public Optional<Record> byName(String name) throws IOException {
    return all().stream().filter(r -> r.name().equals(name)).findFirst();
  }

  public List<Record> all() throws IOException {
    List<Record> records = new ArrayList<>();
    try (Stream<Path> files = Files.list(root.resolve("meta"))) {
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        if (file.getFileName().toString().endsWith(".json")) {
          records.add(JSON.readValue(file.toFile(), Record.class));
        }
      }
    }
    return records;
  }

  /** The configured capacity less the capacities of the volumes. */
  public long available() throws IOException {
    long used = 0;
    for (Record record : all()) {
      used += record.capacityBytes();
    }
    return Math.max(0, capacityBytes - used);
  }

  /** A new volume of {@code capacity} bytes named {@code name}, its directory empty. */
  public Record create(String name, long capacity) throws IOException {
    return create(UUID.randomUUID().toString(), name, capacity, false);
  }

  /** A new volume of the given id, e.g. an inline ephemeral volume whose id the node chose. */
  public Record create(String id, String name, long capacity, boolean ephemeral)
      throws IOException {
    Record record = new Record(id, name, capacity, ephemeral, null);
    Files.createDirectories(directory(record.id()));
    write(record);
    return record;
  }

  public void write(Record record) throws IOException {
    Path meta = root.resolve("meta").resolve(record.id() + ".json");
    Path partial = root.resolve("meta").resolve("." + record.id() + ".json.tmp");
    JSON.writeValue(partial.toFile(), record);
    Files.move(
        partial,
        meta,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** Removes the volume's directory with all its files, then its record. */
  public void delete(String id) throws IOException {
    Path dir = directory(id);
    if (Files.exists(dir)) {
      try (Stream<Path> tree = Files.walk(dir)) {
        for (Path path : (Iterable<Path>) tree.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(path);
        }
      }
    }
    Files.deleteIfExists(root.resolve("meta").resolve(id + ".json"));
  }
}
