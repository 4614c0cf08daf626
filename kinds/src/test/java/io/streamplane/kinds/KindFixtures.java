package io.streamplane.kinds;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.convert.KubeJson;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** Objects for the strategies' tests: Kubernetes JSON written with single quotes, as Avro. */
public final class KindFixtures {

  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_SINGLE_QUOTES).build();
  private static final KubeJson KUBE_JSON = new KubeJson();

  /** A fixed "now", one hour after the objects' creation time. */
  public static final Instant NOW = Instant.parse("2024-05-01T11:00:00Z");

  public static final String CREATED = "2024-05-01T10:00:00Z";

  private KindFixtures() {}

  public static ObjectNode json(String singleQuoted) {
    try {
      return (ObjectNode) MAPPER.readTree(singleQuoted);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T extends SpecificRecord> T avro(ObjectNode json, Class<T> type) {
    return KUBE_JSON.toAvro(json, type).record();
  }

  /** The JSON defaulted as on a create by {@code strategy}, then as the store would hold it. */
  public static <T extends SpecificRecord> T created(
      KindStrategy strategy, String singleQuoted, Class<T> type) {
    ObjectNode object = json(singleQuoted);
    strategy.applyDefaults(object, true);
    return avro(object, type);
  }

  public static List<String> messages(List<StatusCause> causes) {
    return causes.stream().map(c -> c.getField() + ": " + c.getMessage()).toList();
  }

  /** The printed row of an object created an hour before {@link #NOW}. */
  public static List<Object> row(KindStrategy strategy, String singleQuoted) {
    ObjectNode object = json(singleQuoted);
    object.with("metadata").put("creationTimestamp", CREATED);
    return strategy.printer().row(object, NOW).cells();
  }

  public static List<String> columns(KindStrategy strategy) {
    return strategy.printer().columns().stream().map(c -> c.name()).toList();
  }
}
