package io.streamplane.kinds.validation;

import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.quote;

import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * IP addresses as Kubernetes' validation reads them ({@code netutils.ParseIPSloppy}: IPv4 in dotted
 * decimal, leading zeros allowed; IPv6 with {@code ::} and an embedded IPv4 tail), without name
 * lookups. An IPv4-mapped IPv6 address counts as IPv4, as Go's {@code To4} says.
 *
 * <p>The newer networking kinds (IPAddress, ServiceCIDR) read addresses and prefixes with Go's
 * stricter {@code net/netip} instead ({@link #parseAddr}, {@link #parsePrefix}): no leading zeros,
 * an IPv6 zone allowed in an address, and the errors worded as {@code netip} words them, which
 * kube-apiserver passes on in its messages.
 */
public final class IpAddresses {

  private IpAddresses() {}

  /** The address's 4 (IPv4) or 16 (IPv6) bytes, or null when it is not an IP address. */
  public static byte[] parse(String text) {
    return text.contains(":") ? parseV6(text) : parseV4(text);
  }

  /** Whether {@code address} (from {@link #parse}) is IPv4, IPv4-mapped IPv6 included. */
  public static boolean isV4(byte[] address) {
    if (address.length == 4) {
      return true;
    }
    for (int i = 0; i < 10; i++) {
      if (address[i] != 0) {
        return false;
      }
    }
    return address[10] == (byte) 0xff && address[11] == (byte) 0xff;
  }

  /** {@code IsValidIPv4Address}. */
  public static List<StatusCause> validateV4(String field, String text) {
    byte[] ip = parse(text);
    return ip == null || !isV4(ip)
        ? List.of(invalid(field, quote(text), "must be a valid IPv4 address"))
        : List.of();
  }

  /** {@code IsValidIPv6Address}. */
  public static List<StatusCause> validateV6(String field, String text) {
    byte[] ip = parse(text);
    return ip == null || isV4(ip)
        ? List.of(invalid(field, quote(text), "must be a valid IPv6 address"))
        : List.of();
  }

  /**
   * {@code ValidateEndpointIP}: no unspecified, link-local or link-local multicast address.
   * Loopback addresses, which kube-apiserver refuses too, are accepted when {@code
   * loopbackAllowed}.
   */
  public static List<StatusCause> validateEndpointIP(
      String field, String text, boolean loopbackAllowed) {
    List<StatusCause> causes = new ArrayList<>();
    byte[] ip = parse(text);
    if (ip == null) {
      causes.add(invalid(field, quote(text), "must be a valid IP address"));
      return causes;
    }
    byte[] v4 = isV4(ip) ? Arrays.copyOfRange(ip, ip.length - 4, ip.length) : null;
    if (allZero(v4 == null ? ip : v4)) {
      causes.add(invalid(field, quote(text), "may not be unspecified (" + text + ")"));
    }
    boolean loopback = v4 != null ? v4[0] == 127 : isV6Loopback(ip);
    if (loopback && !loopbackAllowed) {
      causes.add(
          invalid(field, quote(text), "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
    }
    boolean linkLocal =
        v4 != null
            ? (v4[0] & 0xff) == 169 && (v4[1] & 0xff) == 254
            : (ip[0] & 0xff) == 0xfe && (ip[1] & 0xc0) == 0x80;
    if (linkLocal) {
      causes.add(
          invalid(
              field,
              quote(text),
              "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
    }
    boolean linkLocalMulticast =
        v4 != null
            ? (v4[0] & 0xff) == 224 && v4[1] == 0 && v4[2] == 0
            : (ip[0] & 0xff) == 0xff && (ip[1] & 0x0f) == 0x02;
    if (linkLocalMulticast) {
      causes.add(
          invalid(
              field,
              quote(text),
              "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
    }
    return causes;
  }

  private static boolean allZero(byte[] bytes) {
    for (byte b : bytes) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isV6Loopback(byte[] ip) {
    for (int i = 0; i < 15; i++) {
      if (ip[i] != 0) {
        return false;
      }
    }
    return ip[15] == 1;
  }

  private static byte[] parseV4(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    byte[] bytes = new byte[4];
    for (int i = 0; i < 4; i++) {
      String part = parts[i];
      if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)) {
        return null;
      }
      int value = Integer.parseInt(part);
      if (value > 255) {
        return null;
      }
      bytes[i] = (byte) value;
    }
    return bytes;
  }

  private static byte[] parseV6(String text) {
    int gap = text.indexOf("::");
    if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    List<Integer> head = new ArrayList<>();
    List<Integer> tail = new ArrayList<>();
    if (gap >= 0) {
      if (!groups(text.substring(0, gap), head, false)
          || !groups(text.substring(gap + 2), tail, true)) {
        return null;
      }
      if (head.size() + tail.size() > 7) {
        return null;
      }
    } else if (!groups(text, head, true) || head.size() != 8) {
      return null;
    }
    byte[] bytes = new byte[16];
    for (int i = 0; i < head.size(); i++) {
      bytes[2 * i] = (byte) (head.get(i) >> 8);
      bytes[2 * i + 1] = (byte) (int) head.get(i);
    }
    int start = 8 - tail.size();
    for (int i = 0; i < tail.size(); i++) {
      bytes[2 * (start + i)] = (byte) (tail.get(i) >> 8);
      bytes[2 * (start + i) + 1] = (byte) (int) tail.get(i);
    }
    return bytes;
  }

  /** Colon-separated hex groups into {@code out}; the last may be a dotted IPv4 (two groups). */
  private static boolean groups(String text, List<Integer> out, boolean ipv4Tail) {
    if (text.isEmpty()) {
      return true;
    }
    String[] parts = text.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (ipv4Tail && i == parts.length - 1 && part.contains(".")) {
        byte[] v4 = parseV4(part);
        if (v4 == null) {
          return false;
        }
        out.add(((v4[0] & 0xff) << 8) | (v4[1] & 0xff));
        out.add(((v4[2] & 0xff) << 8) | (v4[3] & 0xff));
        continue;
      }
      if (part.isEmpty() || part.length() > 4) {
        return false;
      }
      for (char c : part.toCharArray()) {
        if (Character.digit(c, 16) < 0) {
          return false;
        }
      }
      out.add(Integer.parseInt(part, 16));
    }
    return true;
  }

  // ---------------------------------------------------------------- net/netip

  /**
   * An address as Go's {@code netip.ParseAddr} reads it: 4 bytes (IPv4) or 16 (IPv6, an IPv4-mapped
   * one included), and an IPv6 zone ({@code ""} for none).
   */
  public record Addr(byte[] bytes, String zone) {

    public boolean is4() {
      return bytes.length == 4;
    }

    /** {@code Addr.String()}: dotted decimal, or RFC 5952 ({@code ::ffff:1.2.3.4} when mapped). */
    @Override
    public String toString() {
      if (is4()) {
        return dotted(bytes, 0);
      }
      String suffix = zone.isEmpty() ? "" : "%" + zone;
      if (isV4(bytes)) {
        return "::ffff:" + dotted(bytes, 12) + suffix;
      }
      int[] groups = new int[8];
      for (int i = 0; i < 8; i++) {
        groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
      }
      // The longest run of at least two zero groups, the first of equals, becomes "::".
      int zeroStart = -1;
      int zeroEnd = -1;
      for (int i = 0; i < 8; i++) {
        int j = i;
        while (j < 8 && groups[j] == 0) {
          j++;
        }
        if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
          zeroStart = i;
          zeroEnd = j;
        }
      }
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < 8; i++) {
        if (i == zeroStart) {
          b.append("::");
          i = zeroEnd;
          if (i >= 8) {
            break;
          }
        } else if (i > 0) {
          b.append(':');
        }
        b.append(Integer.toHexString(groups[i]));
      }
      return b.append(suffix).toString();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Addr a && Arrays.equals(bytes, a.bytes) && zone.equals(a.zone);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes) * 31 + zone.hashCode();
    }
  }

  /** {@code netip.Prefix}: an address and a prefix length. */
  public record Prefix(Addr addr, int bits) {

    /** {@code Prefix.Masked()}: the address with the bits beyond the prefix cleared. */
    public Prefix masked() {
      byte[] masked = addr.bytes().clone();
      for (int i = 0; i < masked.length; i++) {
        int keep = Math.max(0, Math.min(8, bits - 8 * i));
        masked[i] = (byte) (masked[i] & (0xff << (8 - keep)));
      }
      return new Prefix(new Addr(masked, addr.zone()), bits);
    }

    @Override
    public String toString() {
      return addr + "/" + bits;
    }
  }

  /** The error of a {@code net/netip} parse, worded as Go's {@code Error()} words it. */
  public static final class ParseException extends Exception {
    private static final long serialVersionUID = 1L;

    ParseException(String message) {
      super(message, null, false, false);
    }
  }

  /** {@code netip.ParseAddr}. */
  public static Addr parseAddr(String in) throws ParseException {
    for (int i = 0; i < in.length(); i++) {
      switch (in.charAt(i)) {
        case '.' -> {
          byte[] fields = new byte[4];
          parseIPv4Fields(in, 0, in.length(), fields, 0);
          return new Addr(fields, "");
        }
        case ':' -> {
          return parseIPv6(in);
        }
        case '%' -> throw addrError(in, "missing IPv6 address", null);
        default -> {}
      }
    }
    throw addrError(in, "unable to parse IP", null);
  }

  /** {@code netip.ParsePrefix}. */
  public static Prefix parsePrefix(String in) throws ParseException {
    int slash = in.lastIndexOf('/');
    if (slash < 0) {
      throw prefixError(in, "no '/'");
    }
    Addr addr;
    try {
      addr = parseAddr(in.substring(0, slash));
    } catch (ParseException e) {
      throw prefixError(in, e.getMessage());
    }
    if (!addr.is4() && !addr.zone().isEmpty()) {
      throw prefixError(in, "IPv6 zones cannot be present in a prefix");
    }
    String bitsText = in.substring(slash + 1);
    String bad = "bad bits after slash: " + goQuote(bitsText);
    if (bitsText.length() > 1 && (bitsText.charAt(0) < '1' || bitsText.charAt(0) > '9')) {
      throw prefixError(in, bad);
    }
    int bits;
    try {
      bits = Integer.parseInt(bitsText);
    } catch (NumberFormatException e) {
      throw prefixError(in, bad);
    }
    int max = addr.is4() ? 32 : 128;
    if (bits < 0 || bits > max) {
      throw prefixError(in, "prefix length out of range");
    }
    return new Prefix(addr, bits);
  }

  /**
   * {@code netutils.ParseCIDRSloppy}'s address family: whether {@code cidr} parses (an IP as {@link
   * #parse} reads it, a decimal prefix length within its size) and is IPv4; null when it does not
   * parse.
   */
  public static Boolean sloppyCidrIsV4(String cidr) {
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      return null;
    }
    String address = cidr.substring(0, slash);
    String mask = cidr.substring(slash + 1);
    byte[] ip = parse(address);
    if (ip == null
        || mask.isEmpty()
        || mask.length() > 8
        || !mask.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return null;
    }
    int length = address.contains(":") ? 128 : 32;
    if (Integer.parseInt(mask) > length) {
      return null;
    }
    return isV4(ip);
  }

  private static void parseIPv4Fields(String in, int off, int end, byte[] fields, int at)
      throws ParseException {
    int val = 0;
    int pos = 0;
    int digits = 0;
    String s = in.substring(off, end);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        if (digits == 1 && val == 0) {
          throw addrError(in, "IPv4 field has octet with leading zero", null);
        }
        val = val * 10 + (c - '0');
        digits++;
        if (val > 255) {
          throw addrError(in, "IPv4 field has value >255", null);
        }
      } else if (c == '.') {
        if (i == 0 || i == s.length() - 1 || s.charAt(i - 1) == '.') {
          throw addrError(in, "IPv4 field must have at least one digit", s.substring(i));
        }
        if (pos == 3) {
          throw addrError(in, "IPv4 address too long", null);
        }
        fields[at + pos] = (byte) val;
        pos++;
        val = 0;
        digits = 0;
      } else {
        throw addrError(in, "unexpected character", s.substring(i));
      }
    }
    if (pos < 3) {
      throw addrError(in, "IPv4 address too short", null);
    }
    fields[at + 3] = (byte) val;
  }

  private static Addr parseIPv6(String in) throws ParseException {
    String s = in;
    String zone = "";
    int percent = s.indexOf('%');
    if (percent >= 0) {
      zone = s.substring(percent + 1);
      s = s.substring(0, percent);
      if (zone.isEmpty()) {
        throw addrError(in, "zone must be a non-empty string", null);
      }
    }
    byte[] ip = new byte[16];
    int ellipsis = -1;
    if (s.length() >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
      ellipsis = 0;
      s = s.substring(2);
      if (s.isEmpty()) {
        return new Addr(ip, zone);
      }
    }
    int i = 0;
    while (i < 16) {
      int off = 0;
      int acc = 0;
      for (; off < s.length(); off++) {
        char c = s.charAt(off);
        int digit =
            c >= '0' && c <= '9'
                ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) {
          break;
        }
        acc = (acc << 4) + digit;
        if (off > 3) {
          throw addrError(in, "each group must have 4 or less digits", s);
        }
        if (acc > 0xffff) {
          throw addrError(in, "IPv6 field has value >=2^16", s);
        }
      }
      if (off == 0) {
        throw addrError(in, "each colon-separated field must have at least one digit", s);
      }
      if (off < s.length() && s.charAt(off) == '.') {
        if (ellipsis < 0 && i != 12) {
          throw addrError(
              in, "embedded IPv4 address must replace the final 2 fields of the address", s);
        }
        if (i + 4 > 16) {
          throw addrError(
              in, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
        }
        int end = in.length() - (zone.isEmpty() ? 0 : zone.length() + 1);
        parseIPv4Fields(in, end - s.length(), end, ip, i);
        s = "";
        i += 4;
        break;
      }
      ip[i] = (byte) (acc >> 8);
      ip[i + 1] = (byte) acc;
      i += 2;
      s = s.substring(off);
      if (s.isEmpty()) {
        break;
      }
      if (s.charAt(0) != ':') {
        throw addrError(in, "unexpected character, want colon", s);
      } else if (s.length() == 1) {
        throw addrError(in, "colon must be followed by more characters", s);
      }
      s = s.substring(1);
      if (s.charAt(0) == ':') {
        if (ellipsis >= 0) {
          throw addrError(in, "multiple :: in address", s);
        }
        ellipsis = i;
        s = s.substring(1);
        if (s.isEmpty()) {
          break;
        }
      }
    }
    if (!s.isEmpty()) {
      throw addrError(in, "trailing garbage after address", s);
    }
    if (i < 16) {
      if (ellipsis < 0) {
        throw addrError(in, "address string too short", null);
      }
      int n = 16 - i;
      for (int j = i - 1; j >= ellipsis; j--) {
        ip[j + n] = ip[j];
      }
      Arrays.fill(ip, ellipsis, ellipsis + n, (byte) 0);
    } else if (ellipsis >= 0) {
      throw addrError(in, "the :: must expand to at least one field of zeros", s);
    }
    return new Addr(ip, zone);
  }

  private static ParseException addrError(String in, String message, String at) {
    return new ParseException(
        "ParseAddr("
            + goQuote(in)
            + "): "
            + message
            + (at == null || at.isEmpty() ? "" : " (at " + goQuote(at) + ")"));
  }

  private static ParseException prefixError(String in, String message) {
    return new ParseException("netip.ParsePrefix(" + goQuote(in) + "): " + message);
  }

  private static String dotted(byte[] bytes, int from) {
    return (bytes[from] & 0xff)
        + "."
        + (bytes[from + 1] & 0xff)
        + "."
        + (bytes[from + 2] & 0xff)
        + "."
        + (bytes[from + 3] & 0xff);
  }

  /** {@code strconv.Quote} for the printable ASCII of addresses; other characters escaped. */
  static String goQuote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
