package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON as Go's {@code fmt} prints what {@code encoding/json} decodes it into ({@code %v} of an
 * {@code interface{}}): objects as {@code map[k:v ...]} with sorted keys, arrays as {@code [a b]},
 * strings bare, numbers as float64, null as {@code <nil>} — the form kube-apiserver's messages
 * quote a request's patch in.
 */
public final class GoValues {

  private GoValues() {}

  public static String format(JsonNode json) {
    StringBuilder out = new StringBuilder();
    append(out, json);
    return out.toString();
  }

  private static void append(StringBuilder out, JsonNode json) {
    switch (json.getNodeType()) {
      case OBJECT -> {
        Map<String, JsonNode> sorted = new TreeMap<>();
        json.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
        out.append("map[");
        List<String> entries = new ArrayList<>();
        sorted.forEach((k, v) -> entries.add(k + ":" + format(v)));
        out.append(String.join(" ", entries)).append(']');
      }
      case ARRAY -> {
        List<String> items = new ArrayList<>();
        json.forEach(v -> items.add(format(v)));
        out.append('[').append(String.join(" ", items)).append(']');
      }
      case STRING -> out.append(json.textValue());
      case NUMBER -> out.append(float64(json.decimalValue()));
      case BOOLEAN -> out.append(json.booleanValue());
      default -> out.append("<nil>");
    }
  }

  /**
   * A float64 as {@code %v} prints it ({@code strconv}'s shortest {@code 'g'}): plain digits when
   * the exponent is from -4 to 5, else {@code d.ddde±XX}.
   */
  static String float64(BigDecimal value) {
    double d = value.doubleValue();
    if (d == 0) {
      return "0";
    }
    BigDecimal shortest = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    int exponent = shortest.precision() - shortest.scale() - 1;
    if (exponent >= -4 && exponent < 6) {
      return shortest.toPlainString();
    }
    String digits = shortest.unscaledValue().abs().toString();
    String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    return (d < 0 ? "-" : "")
        + mantissa
        + "e"
        + (exponent < 0 ? "-" : "+")
        + String.format("%02d", Math.abs(exponent));
  }
}
