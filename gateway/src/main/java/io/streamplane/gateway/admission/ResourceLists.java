package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.kubernetes.client.custom.Quantity;
import java.math.BigDecimal;
import java.util.Map;
import java.util.TreeMap;

/**
 * Kubernetes ResourceLists ({@code {cpu: 500m, memory: 1Gi}}) as numbers, and back as quantity
 * strings in Kubernetes' canonical form; the quantities are the official Java client's ({@link
 * Quantity}), which parses and formats them as apimachinery's {@code resource.Quantity} does.
 */
final class ResourceLists {

  private ResourceLists() {}

  /** The list as exact numbers, by resource name, sorted; unparsable entries are left out. */
  static TreeMap<String, BigDecimal> of(JsonNode list) {
    TreeMap<String, BigDecimal> values = new TreeMap<>();
    if (list != null && list.isObject()) {
      list.fields()
          .forEachRemaining(
              e -> {
                BigDecimal value = parse(e.getValue().asText(""));
                if (value != null) {
                  values.put(e.getKey(), value);
                }
              });
    }
    return values;
  }

  static BigDecimal parse(String quantity) {
    try {
      return Quantity.fromString(quantity).getNumber();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * The quantity as Kubernetes prints it: binary SI for memory-like amounts that are whole
   * multiples of 1024, decimal SI otherwise (as {@code resource.Quantity.String()} of a sum).
   */
  static String format(String resource, BigDecimal value) {
    boolean binary =
        !resource.endsWith("cpu")
            && !resource.equals("pods")
            && !resource.startsWith("count/")
            && value.signum() != 0
            && value.stripTrailingZeros().scale() <= 0
            && value.toBigInteger().mod(java.math.BigInteger.valueOf(1024)).signum() == 0;
    Quantity.Format format = binary ? Quantity.Format.BINARY_SI : Quantity.Format.DECIMAL_SI;
    return new Quantity(value, format).toSuffixedString();
  }

  /** {@code k=v} pairs sorted by name, joined by commas, as kube's quota prettyPrint. */
  static String pretty(Map<String, BigDecimal> list) {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, BigDecimal> e : new TreeMap<>(list).entrySet()) {
      if (!s.isEmpty()) {
        s.append(',');
      }
      s.append(e.getKey()).append('=').append(format(e.getKey(), e.getValue()));
    }
    return s.toString();
  }
}
