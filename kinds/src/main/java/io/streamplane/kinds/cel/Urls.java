package io.streamplane.kinds.cel;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * URLs as Go's {@code net/url} reads them for Kubernetes' URL library: {@code ParseRequestURI}
 * decides what is a URL (an absolute URI or an absolute path), {@code Parse} what its parts are
 * (the fragment split off). Errors are worded as Go's {@code *url.Error}: {@code parse "x": invalid
 * URI for request}.
 */
final class Urls {

  private Urls() {}

  /** The URL, or null when {@code ParseRequestURI} refuses it ({@link #error} says why). */
  static KubernetesLibrary.Url parseRequestUri(String raw) {
    if (problem(raw, true) != null) {
      return null;
    }
    int hash = raw.indexOf('#');
    String withoutFragment = hash < 0 ? raw : raw.substring(0, hash);
    return problem(withoutFragment, false) == null ? parse(withoutFragment) : null;
  }

  /** Why {@code ParseRequestURI} refuses {@code raw}, as Go's error prints. */
  static String error(String raw) {
    String problem = problem(raw, true);
    return "parse " + goQuote(raw) + ": " + (problem == null ? "invalid URI for request" : problem);
  }

  private static String problem(String raw, boolean viaRequest) {
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return "net/url: invalid control character in URL";
      }
    }
    if (raw.isEmpty() && viaRequest) {
      return "empty url";
    }
    if (raw.equals("*")) {
      return null;
    }
    String[] schemeRest = scheme(raw);
    if (schemeRest == null) {
      return "missing protocol scheme";
    }
    String scheme = schemeRest[0];
    String rest = schemeRest[1];
    int q = rest.indexOf('?');
    if (q >= 0) {
      rest = rest.substring(0, q);
    }
    if (!rest.startsWith("/")) {
      if (!scheme.isEmpty()) {
        return null;
      }
      if (viaRequest) {
        return "invalid URI for request";
      }
      if (rest.indexOf(':') >= 0
          && (rest.indexOf('/') < 0 || rest.indexOf(':') < rest.indexOf('/'))) {
        return "first path segment in URL cannot contain colon";
      }
    }
    if (!scheme.isEmpty() && rest.startsWith("//")) {
      String authority = rest.substring(2);
      int slash = authority.indexOf('/');
      String path = slash < 0 ? "" : authority.substring(slash);
      authority = slash < 0 ? authority : authority.substring(0, slash);
      String host = authority.substring(authority.lastIndexOf('@') + 1);
      String hostProblem = hostProblem(host);
      if (hostProblem != null) {
        return hostProblem;
      }
      rest = path;
    }
    return unescape(rest) == null ? "invalid URL escape " + goQuote(badEscape(rest)) : null;
  }

  /** {@code getScheme}: the scheme and the rest, or null when the string starts with ':'. */
  private static String[] scheme(String raw) {
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (Character.isLetter(c) && c < 0x80) {
        continue;
      }
      if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
        if (i == 0) {
          return new String[] {"", raw};
        }
        continue;
      }
      if (c == ':') {
        return i == 0 ? null : new String[] {raw.substring(0, i), raw.substring(i + 1)};
      }
      return new String[] {"", raw};
    }
    return new String[] {"", raw};
  }

  private static String hostProblem(String host) {
    if (host.startsWith("[")) {
      int close = host.lastIndexOf(']');
      if (close < 0) {
        return "missing ']' in host";
      }
      String port = host.substring(close + 1);
      return validPort(port) ? null : "invalid port " + goQuote(port) + " after host";
    }
    int colon = host.lastIndexOf(':');
    if (colon >= 0 && !validPort(host.substring(colon))) {
      return "invalid port " + goQuote(host.substring(colon)) + " after host";
    }
    return null;
  }

  private static boolean validPort(String colonPort) {
    if (colonPort.isEmpty()) {
      return true;
    }
    if (colonPort.charAt(0) != ':') {
      return false;
    }
    for (int i = 1; i < colonPort.length(); i++) {
      if (colonPort.charAt(i) < '0' || colonPort.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static KubernetesLibrary.Url parse(String raw) {
    String[] schemeRest = scheme(raw);
    String scheme = schemeRest[0].toLowerCase(java.util.Locale.ROOT);
    String rest = schemeRest[1];
    String rawQuery = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    if (!rest.startsWith("/") && !scheme.isEmpty()) {
      return new KubernetesLibrary.Url(scheme, "", "", rawQuery, true);
    }
    String host = "";
    if (!scheme.isEmpty() && rest.startsWith("//")) {
      String authority = rest.substring(2);
      int slash = authority.indexOf('/');
      rest = slash < 0 ? "" : authority.substring(slash);
      authority = slash < 0 ? authority : authority.substring(0, slash);
      host = authority.substring(authority.lastIndexOf('@') + 1);
    }
    return new KubernetesLibrary.Url(scheme, host, rest, rawQuery, false);
  }

  /** {@code URL.Hostname()}: the host without its port, an IPv6 literal without brackets. */
  static String hostname(String host) {
    int colon = host.lastIndexOf(':');
    int close = host.lastIndexOf(']');
    String name = colon > close ? host.substring(0, colon) : host;
    if (name.startsWith("[") && name.endsWith("]")) {
      return name.substring(1, name.length() - 1);
    }
    return name;
  }

  /** {@code URL.Port()}: the digits after the host's last colon, or "". */
  static String port(String host) {
    int colon = host.lastIndexOf(':');
    int close = host.lastIndexOf(']');
    return colon > close ? host.substring(colon + 1) : "";
  }

  /** {@code URL.EscapedPath()}: the path as written when that is a valid escaping, else escaped. */
  static String escapedPath(KubernetesLibrary.Url url) {
    String raw = url.path();
    boolean valid = true;
    for (int i = 0; i < raw.length() && valid; i++) {
      char c = raw.charAt(i);
      valid = c == '%' || !shouldEscape(c);
    }
    if (valid) {
      return raw;
    }
    byte[] decoded = unescape(raw).getBytes(StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder();
    for (byte x : decoded) {
      char c = (char) (x & 0xff);
      if (c < 0x80 && !shouldEscape(c)) {
        b.append(c);
      } else {
        b.append('%').append(String.format("%02X", x & 0xff));
      }
    }
    return b.toString();
  }

  /** {@code shouldEscape(c, encodePath)}. */
  private static boolean shouldEscape(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      return false;
    }
    return "-_.~$&+,/:;=@".indexOf(c) < 0;
  }

  /** {@code URL.Query()}: each key's values, unescaped; malformed pairs left out. */
  static Map<String, List<String>> query(String rawQuery) {
    Map<String, List<String>> values = new LinkedHashMap<>();
    for (String pair : rawQuery.split("&", -1)) {
      if (pair.isEmpty() || pair.contains(";")) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = queryUnescape(eq < 0 ? pair : pair.substring(0, eq));
      String value = queryUnescape(eq < 0 ? "" : pair.substring(eq + 1));
      if (key == null || value == null) {
        continue;
      }
      values.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
    return values;
  }

  private static String queryUnescape(String s) {
    return unescape(s.replace('+', ' '));
  }

  /** Percent-decoding, or null when an escape is malformed. */
  private static String unescape(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length() || hex(s.charAt(i + 1)) < 0 || hex(s.charAt(i + 2)) < 0) {
          return null;
        }
        out.write(hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)));
        i += 2;
      } else {
        byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static String badEscape(String s) {
    int i = s.indexOf('%');
    while (i >= 0) {
      if (i + 2 >= s.length() || hex(s.charAt(i + 1)) < 0 || hex(s.charAt(i + 2)) < 0) {
        return s.substring(i, Math.min(s.length(), i + 3));
      }
      i = s.indexOf('%', i + 3);
    }
    return "";
  }

  private static int hex(char c) {
    return Character.digit(c, 16);
  }

  private static String goQuote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
