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
}
