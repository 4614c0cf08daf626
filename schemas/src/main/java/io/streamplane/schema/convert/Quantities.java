package io.streamplane.schema.convert;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.regex.Pattern;

/**
 * Kubernetes {@code resource.Quantity} as far as the converter needs it: checking the text form and
 * writing a JSON number in the canonical decimal-SI form the API server would answer with.
 *
 * <p>Limits: quantity strings are checked, not canonicalised ({@code "0.5"} stays {@code "0.5"}
 * where Kubernetes would answer {@code "500m"}); numbers are always written as decimal SI, never
 * binary SI or exponent form.
 */
final class Quantities {

  /** The message {@code resource.ErrFormatWrong} carries, so clients see familiar text. */
  static final String FORMAT_ERROR =
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

  // Stricter than the regular expression Kubernetes quotes, which also admits "1.2.3" and then
  // fails in its parser; this accepts what the parser accepts.
  private static final Pattern FORMAT =
      Pattern.compile(
          "[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)"
              + "(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");

  private static final String[] SUFFIXES = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  private static final int MIN_EXPONENT = -9;
  private static final int MAX_EXPONENT = 18;

  private Quantities() {}

  static boolean isValid(String text) {
    return FORMAT.matcher(text).matches();
  }

  /**
   * The canonical decimal-SI text of a number: the largest power-of-1000 suffix that keeps the
   * mantissa whole ({@code 0.5 -> 500m}, {@code 1000 -> 1k}, {@code 1500 -> 1500}). Like
   * Kubernetes, values finer than a nano-unit are rounded up to the next nano-unit.
   */
  static String canonical(BigDecimal number) {
    BigDecimal value = number.setScale(-MIN_EXPONENT, RoundingMode.UP).stripTrailingZeros();
    if (value.signum() == 0) {
      return "0";
    }
    int exponent = -value.scale();
    int exponent3 = Math.min(Math.floorDiv(exponent, 3) * 3, MAX_EXPONENT);
    BigInteger mantissa = value.unscaledValue().multiply(BigInteger.TEN.pow(exponent - exponent3));
    return mantissa + SUFFIXES[(exponent3 - MIN_EXPONENT) / 3];
  }
}
