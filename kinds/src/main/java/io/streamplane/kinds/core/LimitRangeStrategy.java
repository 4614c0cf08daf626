package io.streamplane.kinds.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;

/**
 * core/v1 LimitRange: {@code SetDefaults_LimitRangeItem} — for containers, the default limit is the
 * max, the default request the default limit, else the min. Printed as the API server's default
 * table (Name, Created At), as Kubernetes prints it too.
 */
public final class LimitRangeStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    for (JsonNode limit : object.path("spec").path("limits")) {
      if (limit instanceof ObjectNode item && item.path("type").asText("").equals("Container")) {
        ObjectNode defaults = item.with("default");
        ObjectNode requests = item.with("defaultRequest");
        item.path("max")
            .fields()
            .forEachRemaining(e -> defaults.putIfAbsent(e.getKey(), e.getValue()));
        defaults.fields().forEachRemaining(e -> requests.putIfAbsent(e.getKey(), e.getValue()));
        item.path("min")
            .fields()
            .forEachRemaining(e -> requests.putIfAbsent(e.getKey(), e.getValue()));
      }
    }
  }
}
