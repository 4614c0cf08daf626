package io.streamplane.schema.history;

import io.streamplane.api.Pod;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.BindRejection;
import io.streamplane.log.BindRequest;
import io.streamplane.log.CommandResult;
import io.streamplane.log.NodeLedger;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.QueuedPod;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;

/**
 * Every version of every top-level log schema that Streamplane has ever shipped, read from the
 * jar's {@code streamplane/schema-history/} resources (an {@code index} file naming one {@code
 * .avsc} per version).
 *
 * <p>The history is append-only: {@code SchemaHistoryTest} fails the build when the current schema
 * of a {@link #TOP_LEVEL} type is missing from it or cannot read one of its versions, so records
 * written by any released build stay decodable, with or without the {@code schemas} topic.
 */
public final class ShippedSchemas {

  /**
   * The types written as values to Streamplane's topics (changelogs included), and so versioned.
   */
  public static final List<Class<?>> TOP_LEVEL =
      List.of(
          ResourceCommand.class,
          ResourceEvent.class,
          CommandResult.class,
          AuditEvent.class,
          BindRequest.class,
          BindRejection.class,
          NodeUsage.class,
          NodeLedger.class,
          QueuedPod.class,
          Pod.class);

  static final String ROOT = "streamplane/schema-history/";

  private ShippedSchemas() {}

  /**
   * The current schemas that are versioned: those of {@link #TOP_LEVEL}, and every stored kind's,
   * since the envelopes carry objects in their kind's own schema ({@code KindObjects}).
   */
  public static List<Schema> versioned() {
    Map<String, Schema> byName = new LinkedHashMap<>();
    TOP_LEVEL.forEach(type -> byName.put(current(type).getFullName(), current(type)));
    KindObjects.kinds().forEach(kind -> byName.putIfAbsent(kind.getFullName(), kind));
    return List.copyOf(byName.values());
  }

  /** The current (generated) schema of a top-level type. */
  public static Schema current(Class<?> type) {
    return SpecificData.get().getSchema(type);
  }

  /** Every shipped version, of every top-level type. */
  public static List<Schema> all() {
    return index().stream().map(ShippedSchemas::load).toList();
  }

  /** The shipped versions of each top-level type, by full name, oldest first. */
  public static Map<String, List<Schema>> byName() {
    return all().stream()
        .collect(
            Collectors.groupingBy(
                Schema::getFullName, Collectors.mapping(s -> s, Collectors.toList())));
  }

  /** The resource paths listed in the index, relative to {@link #ROOT}. */
  static List<String> index() {
    try (InputStream in = resource("index")) {
      if (in == null) {
        return List.of();
      }
      List<String> paths = new ArrayList<>();
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank() && !line.startsWith("#")) {
          paths.add(line.trim());
        }
      }
      return paths;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Schema load(String path) {
    try (InputStream in = resource(path)) {
      if (in == null) {
        throw new IllegalStateException("schema history index names a missing file: " + path);
      }
      return new Schema.Parser().parse(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream resource(String path) {
    return ShippedSchemas.class.getClassLoader().getResourceAsStream(ROOT + path);
  }
}
