package io.streamplane.gateway.request;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A request's query as the API reads it: each parameter's first value, decoded. A broken escape is
 * a 400 {@link ApiException}, as Go's {@code url.ParseQuery} refuses it.
 */
public final class QueryParameters {

  private QueryParameters() {}

  /** The parameters of {@code raw}, the query as sent (null: none). */
  public static Map<String, String> parse(String raw) {
    Map<String, String> query = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return query;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      query.putIfAbsent(key, value);
    }
    return query;
  }

  private static String decode(String component) {
    try {
      return URLDecoder.decode(component, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new ApiException(
          Statuses.badRequest("invalid URL escape in query: \"" + component + "\""));
    }
  }
}
