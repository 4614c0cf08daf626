package io.streamplane.csi;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Storage sizes as Kubernetes quantities: {@link #parse} reads {@code 1Gi}, {@code 500M}, {@code
 * 1.5Gi} or {@code 1048576} as bytes (rounded up), {@link #format} writes bytes as a quantity in
 * binary units when they divide exactly ({@code 1Gi}, {@code 1536Mi}), else plain bytes, as
 * external-provisioner makes a volume's capacity.
 */
public final class Bytes {

  private static final Pattern QUANTITY =
      Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?");

  private static final String[] BINARY = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};

  private Bytes() {}

  /** The bytes of a quantity; IllegalArgumentException when it is none. */
  public static long parse(String quantity) {
    Matcher m = QUANTITY.matcher(quantity == null ? "" : quantity.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a quantity of bytes: " + quantity);
    }
    BigDecimal unit =
        switch (m.group(2) == null ? "" : m.group(2)) {
          case "Ki" -> BigDecimal.valueOf(1L << 10);
          case "Mi" -> BigDecimal.valueOf(1L << 20);
          case "Gi" -> BigDecimal.valueOf(1L << 30);
          case "Ti" -> BigDecimal.valueOf(1L << 40);
          case "Pi" -> BigDecimal.valueOf(1L << 50);
          case "Ei" -> BigDecimal.valueOf(1L << 60);
          case "k" -> BigDecimal.TEN.pow(3);
          case "M" -> BigDecimal.TEN.pow(6);
          case "G" -> BigDecimal.TEN.pow(9);
          case "T" -> BigDecimal.TEN.pow(12);
          case "P" -> BigDecimal.TEN.pow(15);
          case "E" -> BigDecimal.TEN.pow(18);
          default -> BigDecimal.ONE;
        };
    return new BigDecimal(m.group(1))
        .multiply(unit)
        .setScale(0, RoundingMode.CEILING)
        .longValueExact();
  }

  /** {@code bytes} as a quantity: the largest binary unit dividing it exactly, or bytes. */
  public static String format(long bytes) {
    for (int i = 0; i < BINARY.length; i++) {
      long unit = 1L << (10 * (BINARY.length - i));
      if (bytes != 0 && bytes % unit == 0) {
        return (bytes / unit) + BINARY[i];
      }
    }
    return Long.toString(bytes);
  }
}
