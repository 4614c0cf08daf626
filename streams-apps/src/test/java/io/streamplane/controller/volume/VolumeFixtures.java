package io.streamplane.controller.volume;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.schema.convert.KubeJson;
import org.apache.avro.specific.SpecificRecord;

/** Claims, volumes, classes and pods written as single-quoted Kubernetes JSON. */
public final class VolumeFixtures {

  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_SINGLE_QUOTES).build();
  private static final KubeJson KUBE_JSON = new KubeJson();

  private VolumeFixtures() {}

  public static <T extends SpecificRecord> T avro(String singleQuoted, Class<T> type) {
    try {
      return KUBE_JSON.toAvro((ObjectNode) MAPPER.readTree(singleQuoted), type).record();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
