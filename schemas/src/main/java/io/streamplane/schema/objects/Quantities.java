package io.streamplane.schema.objects;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes {@code resource.Quantity} strings as numbers, for the scheduler's and the nodes'
 * arithmetic.
 *
 * <p>Accepts what Kubernetes' parser accepts: an optionally signed decimal ({@code 1}, {@code 0.5},
 * {@code .5}, {@code 1.}) followed by at most one suffix: decimal SI ({@code n u m k M G T P E}),
 * binary SI ({@code Ki Mi Gi Ti Pi Ei}) or a decimal exponent ({@code 1e3}, {@code 2E-3}). As in
 * Kubernetes, {@link #value} is {@code ceil(q)} and {@link #milliValue} is {@code ceil(q * 1000)},
 * so {@code "1.5m"} CPU is 2 milli-CPU and {@code "0.1"} bytes is 1 byte.
 *
 * <p>Limits: results outside the {@code long} range saturate at {@link Long#MAX_VALUE} / {@link
 * Long#MIN_VALUE} (Kubernetes caps quantities at 2^63-1 too); exponents beyond ±60 are clamped,
 * which cannot change a result that already saturates or rounds to the smallest unit.
 */
public final class Quantities {

  private static final Pattern FORMAT =
      Pattern.compile(
          "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))"
              + "(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");

  private static final int MAX_EXPONENT = 60;
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);

  private Quantities() {}

  /** {@code ceil(q)}: bytes for memory and storage, a count for pods. */
  public static long value(String quantity) {
    return toLong(parse(quantity));
  }

  /** {@code ceil(q * 1000)}: milli-units, the scheduler's unit for CPU. */
  public static long milliValue(String quantity) {
    return toLong(parse(quantity).movePointRight(3));
  }

  /** The exact number a quantity string denotes. */
  public static BigDecimal parse(String quantity) {
    if (quantity == null) {
      throw new IllegalArgumentException("quantity must not be null");
    }
    Matcher m = FORMAT.matcher(quantity);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'"
              + quantity
              + "' is not a Kubernetes quantity: expected a decimal number with an optional suffix"
              + " (m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3)");
    }
    BigDecimal number = new BigDecimal(m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1));
    String suffix = m.group(2);
    if (suffix == null) {
      return number;
    }
    return switch (suffix) {
      case "n" -> number.movePointLeft(9);
      case "u" -> number.movePointLeft(6);
      case "m" -> number.movePointLeft(3);
      case "k" -> number.movePointRight(3);
      case "M" -> number.movePointRight(6);
      case "G" -> number.movePointRight(9);
      case "T" -> number.movePointRight(12);
      case "P" -> number.movePointRight(15);
      case "E" -> number.movePointRight(18);
      case "Ki" -> number.multiply(BigDecimal.valueOf(1L << 10));
      case "Mi" -> number.multiply(BigDecimal.valueOf(1L << 20));
      case "Gi" -> number.multiply(BigDecimal.valueOf(1L << 30));
      case "Ti" -> number.multiply(BigDecimal.valueOf(1L << 40));
      case "Pi" -> number.multiply(BigDecimal.valueOf(1L << 50));
      case "Ei" -> number.multiply(BigDecimal.valueOf(1L << 60));
      default -> number.movePointRight(exponent(suffix.substring(1)));
    };
  }

  private static int exponent(String digits) {
    // Parsed by hand so that "1e99999999999" clamps instead of overflowing Integer.parseInt.
    boolean negative = digits.startsWith("-");
    String unsigned =
        digits.startsWith("-") || digits.startsWith("+") ? digits.substring(1) : digits;
    String trimmed = unsigned.replaceFirst("^0+(?=.)", "");
    int magnitude =
        trimmed.length() > 3 ? MAX_EXPONENT : Math.min(Integer.parseInt(trimmed), MAX_EXPONENT);
    return negative ? -magnitude : magnitude;
  }

  private static long toLong(BigDecimal value) {
    BigDecimal rounded = value.setScale(0, RoundingMode.CEILING);
    if (rounded.compareTo(LONG_MAX) > 0) {
      return Long.MAX_VALUE;
    }
    if (rounded.compareTo(LONG_MIN) < 0) {
      return Long.MIN_VALUE;
    }
    return rounded.longValueExact();
  }
}
