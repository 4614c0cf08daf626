package io.streamplane.kinds.cel;

import com.google.common.primitives.UnsignedLong;
import com.google.protobuf.ByteString;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.OptionalType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import io.streamplane.kinds.validation.IpAddresses;
import io.streamplane.kinds.validation.Names;
import io.streamplane.schema.objects.Quantities;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Kubernetes' own CEL libraries ({@code k8s.io/apiserver/pkg/cel/library}), as kube-apiserver 1.32
 * offers them to CRD validation rules and admission policies, declared to the compiler and bound
 * for the runtime:
 *
 * <ul>
 *   <li>lists: {@code isSorted()}, {@code sum()}, {@code min()}, {@code max()}, {@code indexOf(x)},
 *       {@code lastIndexOf(x)};
 *   <li>regex: {@code s.find(re)}, {@code s.findAll(re)}, {@code s.findAll(re, n)};
 *   <li>urls: {@code url(s)}, {@code isURL(s)}, and a URL's {@code getScheme()}, {@code getHost()},
 *       {@code getHostname()}, {@code getPort()}, {@code getEscapedPath()}, {@code getQuery()};
 *   <li>quantity: {@code quantity(s)}, {@code isQuantity(s)}, {@code sign()}, {@code
 *       isGreaterThan(q)}, {@code isLessThan(q)}, {@code compareTo(q)}, {@code
 *       asApproximateFloat()}, {@code asInteger()}, {@code isInteger()}, {@code add(q|int)}, {@code
 *       sub(q|int)};
 *   <li>ip and cidr: {@code ip(s)}, {@code isIP(s)}, {@code ip.isCanonical(s)}, {@code family()},
 *       {@code isUnspecified()}, {@code isLoopback()}, {@code isLinkLocalMulticast()}, {@code
 *       isLinkLocalUnicast()}, {@code isGlobalUnicast()}, {@code cidr(s)}, {@code isCIDR(s)},
 *       {@code containsIP(ip|s)}, {@code containsCIDR(cidr|s)}, {@code ip()}, {@code masked()},
 *       {@code prefixLength()}, {@code string(ip|cidr)};
 *   <li>format: {@code format.named(name)} and {@code format.<name>()} for {@code dns1123Label},
 *       {@code dns1123Subdomain}, {@code dns1035Label}, {@code qualifiedName}, their {@code
 *       ...Prefix} forms, {@code labelValue}, {@code uri}, {@code uuid}, {@code byte}, {@code
 *       date}, {@code datetime}; a format's {@code validate(s)} is an optional list of errors.
 * </ul>
 *
 * <p>Errors are worded as the Go functions word them ({@code min called on empty list}, {@code
 * cannot convert value to integer}, {@code IP Address "x" parse error during conversion from
 * string: ...}). Contract: stateless; the values ({@link Quantity}, {@link Url}, {@link Ip}, {@link
 * Cidr}, {@link NamedFormat}) are immutable and compare as their Go types do under {@code ==}.
 *
 * <p>Limits: regular expressions are Java's, not RE2 (the same for the patterns people write; RE2's
 * absence of backreferences is not enforced).
 */
public final class KubernetesLibrary {

  static final CelType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  static final CelType URL = OpaqueType.create("kubernetes.URL");
  static final CelType IP = OpaqueType.create("net.IP");
  static final CelType CIDR = OpaqueType.create("net.CIDR");
  static final CelType FORMAT = OpaqueType.create("kubernetes.NamedFormat");

  private static final CelType STRING = SimpleType.STRING;
  private static final CelType BOOL = SimpleType.BOOL;
  private static final CelType INT = SimpleType.INT;
  private static final CelType DYN = SimpleType.DYN;
  private static final CelType LIST = ListType.create(DYN);
  private static final CelType STRINGS = ListType.create(STRING);

  private KubernetesLibrary() {}

  // ------------------------------------------------------------------------------ values

  /** {@code resource.Quantity}: an exact decimal; equal when their values are. */
  public record Quantity(BigDecimal value) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Quantity q && value.compareTo(q.value) == 0;
    }

    @Override
    public int hashCode() {
      return value.stripTrailingZeros().hashCode();
    }
  }

  /** {@code net/url.URL} as far as the library reads it. */
  public record Url(String scheme, String host, String path, String rawQuery, boolean opaque) {}

  /** {@code net/netip.Addr}, never zoned nor IPv4-mapped. */
  public record Ip(IpAddresses.Addr addr) {
    @Override
    public String toString() {
      return addr.toString();
    }
  }

  /** {@code net/netip.Prefix}. */
  public record Cidr(IpAddresses.Prefix prefix) {
    @Override
    public String toString() {
      return prefix.toString();
    }
  }

  /** A named format of the format library, and its validation (the problems, none when valid). */
  public record NamedFormat(String name, Function<String, List<String>> validate) {
    @Override
    public boolean equals(Object other) {
      return other instanceof NamedFormat f && name.equals(f.name);
    }

    @Override
    public int hashCode() {
      return name.hashCode();
    }
  }

  // ------------------------------------------------------------------------------ declarations

  /** The functions' declarations, for the compiler. */
  public static List<CelFunctionDecl> declarations() {
    List<CelFunctionDecl> d = new ArrayList<>();
    // lists
    d.add(member("isSorted", "list_is_sorted", BOOL, LIST));
    d.add(member("sum", "list_sum", DYN, LIST));
    d.add(member("min", "list_min", DYN, LIST));
    d.add(member("max", "list_max", DYN, LIST));
    // regex
    d.add(member("find", "string_find_string", STRING, STRING, STRING));
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "findAll",
            CelOverloadDecl.newMemberOverload("string_find_all_string", STRINGS, STRING, STRING),
            CelOverloadDecl.newMemberOverload(
                "string_find_all_string_int", STRINGS, STRING, STRING, INT)));
    // urls
    d.add(global("url", "string_to_url", URL, STRING));
    d.add(global("isURL", "is_url_string", BOOL, STRING));
    for (String accessor :
        List.of("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")) {
      d.add(member(accessor, "url_" + accessor, STRING, URL));
    }
    d.add(
        member("getQuery", "url_get_query", MapType.create(STRING, ListType.create(STRING)), URL));
    // quantity
    d.add(global("quantity", "string_to_quantity", QUANTITY, STRING));
    d.add(global("isQuantity", "is_quantity_string", BOOL, STRING));
    d.add(member("sign", "quantity_sign", INT, QUANTITY));
    d.add(member("isGreaterThan", "quantity_is_greater_than", BOOL, QUANTITY, QUANTITY));
    d.add(member("isLessThan", "quantity_is_less_than", BOOL, QUANTITY, QUANTITY));
    d.add(member("compareTo", "quantity_compare_to", INT, QUANTITY, QUANTITY));
    d.add(member("asApproximateFloat", "quantity_get_float", SimpleType.DOUBLE, QUANTITY));
    d.add(member("asInteger", "quantity_get_int", INT, QUANTITY));
    d.add(member("isInteger", "quantity_is_integer", BOOL, QUANTITY));
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "add",
            CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_add_int", QUANTITY, QUANTITY, INT)));
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "sub",
            CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_sub_int", QUANTITY, QUANTITY, INT)));
    // ip
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "ip",
            CelOverloadDecl.newGlobalOverload("string_to_ip", IP, STRING),
            CelOverloadDecl.newMemberOverload("cidr_ip", IP, CIDR)));
    d.add(global("isIP", "is_ip", BOOL, STRING));
    d.add(global("ip.isCanonical", "ip_is_canonical", BOOL, STRING));
    d.add(member("family", "ip_family", INT, IP));
    for (String test :
        List.of(
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast")) {
      d.add(member(test, "ip_" + test, BOOL, IP));
    }
    // cidr
    d.add(global("cidr", "string_to_cidr", CIDR, STRING));
    d.add(global("isCIDR", "is_cidr", BOOL, STRING));
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "containsIP",
            CelOverloadDecl.newMemberOverload("cidr_contains_ip_string", BOOL, CIDR, STRING),
            CelOverloadDecl.newMemberOverload("cidr_contains_ip_ip", BOOL, CIDR, IP)));
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "containsCIDR",
            CelOverloadDecl.newMemberOverload("cidr_contains_cidr_string", BOOL, CIDR, STRING),
            CelOverloadDecl.newMemberOverload("cidr_contains_cidr", BOOL, CIDR, CIDR)));
    d.add(member("prefixLength", "cidr_prefix_length", INT, CIDR));
    d.add(member("masked", "cidr_masked", CIDR, CIDR));
    d.add(
        CelFunctionDecl.newFunctionDeclaration(
            "string",
            CelOverloadDecl.newGlobalOverload("ip_to_string", STRING, IP),
            CelOverloadDecl.newGlobalOverload("cidr_to_string", STRING, CIDR)));
    // format
    d.add(member("validate", "format-validate", OptionalType.create(STRINGS), FORMAT, STRING));
    d.add(global("format.named", "format-named", OptionalType.create(FORMAT), STRING));
    for (String name : FORMATS.keySet()) {
      d.add(global("format." + name, "format." + name, FORMAT));
    }
    return d;
  }

  private static CelFunctionDecl member(
      String name, String overload, CelType result, CelType... args) {
    return CelFunctionDecl.newFunctionDeclaration(
        name, CelOverloadDecl.newMemberOverload(overload, result, args));
  }

  private static CelFunctionDecl global(
      String name, String overload, CelType result, CelType... args) {
    return CelFunctionDecl.newFunctionDeclaration(
        name, CelOverloadDecl.newGlobalOverload(overload, result, args));
  }

  // ------------------------------------------------------------------------------ bindings

  /** The functions' implementations, for the runtime. */
  public static List<CelFunctionBinding> bindings() {
    List<CelFunctionBinding> b = new ArrayList<>();
    // lists
    b.addAll(listIndexBindings());
    b.add(CelFunctionBinding.from("list_is_sorted", List.class, KubernetesLibrary::isSorted));
    b.add(CelFunctionBinding.from("list_sum", List.class, KubernetesLibrary::sum));
    b.add(CelFunctionBinding.from("list_min", List.class, list -> extreme(list, "min", 1)));
    b.add(CelFunctionBinding.from("list_max", List.class, list -> extreme(list, "max", -1)));
    // regex
    b.add(
        CelFunctionBinding.from(
            "string_find_string",
            String.class,
            String.class,
            (s, re) -> {
              Matcher m = regex(re).matcher(s);
              return m.find() ? m.group() : "";
            }));
    b.add(
        CelFunctionBinding.from(
            "string_find_all_string", String.class, String.class, (s, re) -> findAll(s, re, -1)));
    b.add(
        CelFunctionBinding.from(
            "string_find_all_string_int",
            List.of(String.class, String.class, Long.class),
            args -> findAll((String) args[0], (String) args[1], (Long) args[2])));
    // urls
    b.add(CelFunctionBinding.from("string_to_url", String.class, KubernetesLibrary::url));
    b.add(
        CelFunctionBinding.from(
            "is_url_string", String.class, s -> Urls.parseRequestUri(s) != null));
    b.add(CelFunctionBinding.from("url_getScheme", Url.class, Url::scheme));
    b.add(CelFunctionBinding.from("url_getHost", Url.class, Url::host));
    b.add(CelFunctionBinding.from("url_getHostname", Url.class, u -> Urls.hostname(u.host())));
    b.add(CelFunctionBinding.from("url_getPort", Url.class, u -> Urls.port(u.host())));
    b.add(CelFunctionBinding.from("url_getEscapedPath", Url.class, u -> Urls.escapedPath(u)));
    b.add(CelFunctionBinding.from("url_get_query", Url.class, u -> Urls.query(u.rawQuery())));
    // quantity
    b.add(CelFunctionBinding.from("string_to_quantity", String.class, KubernetesLibrary::quantity));
    b.add(
        CelFunctionBinding.from("is_quantity_string", String.class, s -> parseQuantity(s) != null));
    b.add(CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.value().signum()));
    b.add(
        CelFunctionBinding.from(
            "quantity_is_greater_than",
            Quantity.class,
            Quantity.class,
            (q, o) -> q.value().compareTo(o.value()) > 0));
    b.add(
        CelFunctionBinding.from(
            "quantity_is_less_than",
            Quantity.class,
            Quantity.class,
            (q, o) -> q.value().compareTo(o.value()) < 0));
    b.add(
        CelFunctionBinding.from(
            "quantity_compare_to",
            Quantity.class,
            Quantity.class,
            (q, o) -> (long) Integer.signum(q.value().compareTo(o.value()))));
    b.add(
        CelFunctionBinding.from(
            "quantity_get_float", Quantity.class, q -> q.value().doubleValue()));
    b.add(
        CelFunctionBinding.from(
            "quantity_get_int",
            Quantity.class,
            q -> {
              Long v = asInteger(q);
              if (v == null) {
                throw new CelEvaluationException("cannot convert value to integer");
              }
              return v;
            }));
    b.add(
        CelFunctionBinding.from("quantity_is_integer", Quantity.class, q -> asInteger(q) != null));
    b.add(
        CelFunctionBinding.from(
            "quantity_add",
            Quantity.class,
            Quantity.class,
            (q, o) -> new Quantity(q.value().add(o.value()))));
    b.add(
        CelFunctionBinding.from(
            "quantity_add_int",
            Quantity.class,
            Long.class,
            (q, o) -> new Quantity(q.value().add(BigDecimal.valueOf(o)))));
    b.add(
        CelFunctionBinding.from(
            "quantity_sub",
            Quantity.class,
            Quantity.class,
            (q, o) -> new Quantity(q.value().subtract(o.value()))));
    b.add(
        CelFunctionBinding.from(
            "quantity_sub_int",
            Quantity.class,
            Long.class,
            (q, o) -> new Quantity(q.value().subtract(BigDecimal.valueOf(o)))));
    // ip
    b.add(CelFunctionBinding.from("string_to_ip", String.class, s -> new Ip(parseIp(s))));
    b.add(CelFunctionBinding.from("cidr_ip", Cidr.class, c -> new Ip(c.prefix().addr())));
    b.add(CelFunctionBinding.from("is_ip", String.class, KubernetesLibrary::isIp));
    b.add(
        CelFunctionBinding.from(
            "ip_is_canonical", String.class, s -> parseIp(s).toString().equals(s)));
    b.add(CelFunctionBinding.from("ip_family", Ip.class, ip -> ip.addr().is4() ? 4L : 6L));
    b.add(CelFunctionBinding.from("ip_isUnspecified", Ip.class, ip -> allZero(ip.addr().bytes())));
    b.add(CelFunctionBinding.from("ip_isLoopback", Ip.class, KubernetesLibrary::isLoopback));
    b.add(
        CelFunctionBinding.from(
            "ip_isLinkLocalMulticast", Ip.class, KubernetesLibrary::isLinkLocalMulticast));
    b.add(
        CelFunctionBinding.from(
            "ip_isLinkLocalUnicast", Ip.class, KubernetesLibrary::isLinkLocalUnicast));
    b.add(
        CelFunctionBinding.from(
            "ip_isGlobalUnicast", Ip.class, KubernetesLibrary::isGlobalUnicast));
    b.add(CelFunctionBinding.from("ip_to_string", Ip.class, Ip::toString));
    // cidr
    b.add(CelFunctionBinding.from("string_to_cidr", String.class, KubernetesLibrary::cidr));
    b.add(CelFunctionBinding.from("is_cidr", String.class, KubernetesLibrary::isCidr));
    b.add(
        CelFunctionBinding.from(
            "cidr_contains_ip_string",
            Cidr.class,
            String.class,
            (c, s) -> contains(c.prefix(), parseIp(s))));
    b.add(
        CelFunctionBinding.from(
            "cidr_contains_ip_ip",
            Cidr.class,
            Ip.class,
            (c, ip) -> contains(c.prefix(), ip.addr())));
    b.add(
        CelFunctionBinding.from(
            "cidr_contains_cidr_string",
            Cidr.class,
            String.class,
            (c, s) -> containsCidr(c.prefix(), cidr(s).prefix())));
    b.add(
        CelFunctionBinding.from(
            "cidr_contains_cidr",
            Cidr.class,
            Cidr.class,
            (c, o) -> containsCidr(c.prefix(), o.prefix())));
    b.add(CelFunctionBinding.from("cidr_prefix_length", Cidr.class, c -> (long) c.prefix().bits()));
    b.add(CelFunctionBinding.from("cidr_masked", Cidr.class, c -> new Cidr(c.prefix().masked())));
    b.add(CelFunctionBinding.from("cidr_to_string", Cidr.class, Cidr::toString));
    // format
    b.add(
        CelFunctionBinding.from(
            "format-validate",
            NamedFormat.class,
            String.class,
            (f, s) -> {
              List<String> problems = f.validate().apply(s);
              return problems.isEmpty() ? Optional.empty() : Optional.of(problems);
            }));
    b.add(
        CelFunctionBinding.from(
            "format-named", String.class, name -> Optional.ofNullable(FORMATS.get(name))));
    for (Map.Entry<String, NamedFormat> format : FORMATS.entrySet()) {
      b.add(
          CelFunctionBinding.from(
              "format." + format.getKey(), List.of(), args -> format.getValue()));
    }
    return b;
  }

  // ------------------------------------------------------------------------------ lists

  private static boolean isSorted(List<?> list) throws CelEvaluationException {
    for (int i = 1; i < list.size(); i++) {
      if (compare(list.get(i - 1), list.get(i)) > 0) {
        return false;
      }
    }
    return true;
  }

  private static Object sum(List<?> list) throws CelEvaluationException {
    if (list.isEmpty()) {
      return 0L;
    }
    Object acc = list.get(0);
    for (int i = 1; i < list.size(); i++) {
      acc = add(acc, list.get(i));
    }
    if (!(acc instanceof Long
        || acc instanceof Double
        || acc instanceof UnsignedLong
        || acc instanceof com.google.protobuf.Duration)) {
      throw noSuchOverload("sum", acc);
    }
    return acc;
  }

  private static Object add(Object a, Object b) throws CelEvaluationException {
    if (a instanceof Long x && b instanceof Long y) {
      try {
        return Math.addExact(x, y);
      } catch (ArithmeticException e) {
        throw new CelEvaluationException("integer overflow");
      }
    }
    if (a instanceof Double x && b instanceof Double y) {
      return x + y;
    }
    if (a instanceof UnsignedLong x && b instanceof UnsignedLong y) {
      UnsignedLong sum = x.plus(y);
      if (sum.compareTo(x) < 0) {
        throw new CelEvaluationException("unsigned integer overflow");
      }
      return sum;
    }
    if (a instanceof com.google.protobuf.Duration x
        && b instanceof com.google.protobuf.Duration y) {
      long nanos = (long) x.getNanos() + y.getNanos();
      long seconds = Math.addExact(x.getSeconds(), y.getSeconds()) + nanos / 1_000_000_000L;
      return com.google.protobuf.Duration.newBuilder()
          .setSeconds(seconds)
          .setNanos((int) (nanos % 1_000_000_000L))
          .build();
    }
    throw noSuchOverload("sum", b);
  }

  private static Object extreme(List<?> list, String name, int replaceWhen)
      throws CelEvaluationException {
    if (list.isEmpty()) {
      throw new CelEvaluationException(name + " called on empty list");
    }
    Object result = list.get(0);
    compare(result, result);
    for (int i = 1; i < list.size(); i++) {
      if (compare(result, list.get(i)) == replaceWhen) {
        result = list.get(i);
      }
    }
    return result;
  }

  /** CEL's ordering of two comparable values (numbers across types), as {@code -1, 0, 1}. */
  static int compare(Object a, Object b) throws CelEvaluationException {
    if (isNumber(a) && isNumber(b)) {
      if (a instanceof Double x && Double.isNaN(x) || b instanceof Double y && Double.isNaN(y)) {
        return 0;
      }
      return Integer.signum(decimal(a).compareTo(decimal(b)));
    }
    if (a instanceof String x && b instanceof String y) {
      return Integer.signum(x.compareTo(y));
    }
    if (a instanceof Boolean x && b instanceof Boolean y) {
      return Boolean.compare(x, y);
    }
    if (a instanceof ByteString x && b instanceof ByteString y) {
      return Integer.signum(ByteString.unsignedLexicographicalComparator().compare(x, y));
    }
    if (a instanceof com.google.protobuf.Duration x
        && b instanceof com.google.protobuf.Duration y) {
      int c = Long.compare(x.getSeconds(), y.getSeconds());
      return c != 0 ? c : Integer.compare(x.getNanos(), y.getNanos());
    }
    if (a instanceof com.google.protobuf.Timestamp x
        && b instanceof com.google.protobuf.Timestamp y) {
      int c = Long.compare(x.getSeconds(), y.getSeconds());
      return c != 0 ? c : Integer.compare(x.getNanos(), y.getNanos());
    }
    throw noSuchOverload("compare", isComparable(a) ? b : a);
  }

  private static boolean isComparable(Object v) {
    return isNumber(v)
        || v instanceof String
        || v instanceof Boolean
        || v instanceof ByteString
        || v instanceof com.google.protobuf.Duration
        || v instanceof com.google.protobuf.Timestamp;
  }

  private static boolean isNumber(Object v) {
    return v instanceof Long || v instanceof Double || v instanceof UnsignedLong;
  }

  private static BigDecimal decimal(Object v) {
    if (v instanceof Long l) {
      return BigDecimal.valueOf(l);
    }
    if (v instanceof UnsignedLong u) {
      return new BigDecimal(u.bigIntegerValue());
    }
    return new BigDecimal((Double) v);
  }

  private static CelEvaluationException noSuchOverload(String function, Object value) {
    return new CelEvaluationException(
        "no such overload: " + function + "(" + (value == null ? "null" : typeName(value)) + ")");
  }

  private static String typeName(Object value) {
    if (value instanceof Map) {
      return "map";
    }
    if (value instanceof List) {
      return "list";
    }
    return value.getClass().getSimpleName();
  }

  /** CEL equality of two values, numbers equal across types, lists and maps element by element. */
  static boolean celEquals(Object a, Object b) {
    if (isNumber(a) && isNumber(b)) {
      if (a instanceof Double x && Double.isNaN(x) || b instanceof Double y && Double.isNaN(y)) {
        return false;
      }
      return decimal(a).compareTo(decimal(b)) == 0;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!celEquals(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !celEquals(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    return Objects.equals(a, b);
  }

  private static List<CelFunctionBinding> listIndexBindings() {
    return List.of(
        CelFunctionBinding.from(
            "list_index_of",
            List.class,
            Object.class,
            (list, item) -> {
              for (int i = 0; i < list.size(); i++) {
                if (celEquals(list.get(i), item)) {
                  return (long) i;
                }
              }
              return -1L;
            }),
        CelFunctionBinding.from(
            "list_last_index_of",
            List.class,
            Object.class,
            (list, item) -> {
              for (int i = list.size() - 1; i >= 0; i--) {
                if (celEquals(list.get(i), item)) {
                  return (long) i;
                }
              }
              return -1L;
            }));
  }

  /**
   * {@code indexOf} and {@code lastIndexOf}: the strings extension's overloads ({@code strings},
   * its declarations of them) and the list library's.
   */
  static List<CelFunctionDecl> indexDeclarations(Iterable<CelFunctionDecl> strings) {
    List<CelFunctionDecl> declarations = new ArrayList<>();
    for (CelFunctionDecl function : strings) {
      String id = function.name().equals("indexOf") ? "list_index_of" : "list_last_index_of";
      List<CelOverloadDecl> overloads = new ArrayList<>(function.overloads());
      overloads.add(CelOverloadDecl.newMemberOverload(id, INT, LIST, DYN));
      declarations.add(CelFunctionDecl.newFunctionDeclaration(function.name(), overloads));
    }
    return declarations;
  }

  // ------------------------------------------------------------------------------ regex

  private static Pattern regex(String re) throws CelEvaluationException {
    try {
      return Pattern.compile(re);
    } catch (PatternSyntaxException e) {
      throw new CelEvaluationException(
          "error parsing regexp: " + e.getDescription() + ": `" + re + "`");
    }
  }

  private static List<String> findAll(String s, String re, long limit)
      throws CelEvaluationException {
    Matcher m = regex(re).matcher(s);
    List<String> found = new ArrayList<>();
    while ((limit < 0 || found.size() < limit) && m.find()) {
      found.add(m.group());
    }
    return found;
  }

  // ------------------------------------------------------------------------------ urls

  private static Url url(String s) throws CelEvaluationException {
    Url url = Urls.parseRequestUri(s);
    if (url == null) {
      throw new CelEvaluationException(
          "URL parse error during conversion from string: " + Urls.error(s));
    }
    return url;
  }

  // ------------------------------------------------------------------------------ quantity

  private static final String QUANTITY_FORMAT_ERROR =
      "quantities must match the regular expression"
          + " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private static BigDecimal parseQuantity(String s) {
    if (s.isEmpty()) {
      return null;
    }
    try {
      return Quantities.parse(s);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static Quantity quantity(String s) throws CelEvaluationException {
    BigDecimal value = parseQuantity(s);
    if (value == null) {
      throw new CelEvaluationException(
          s.isEmpty() ? "quantities must match the regular expression" : QUANTITY_FORMAT_ERROR);
    }
    return new Quantity(value);
  }

  private static Long asInteger(Quantity q) {
    BigDecimal v = q.value();
    if (v.signum() != 0 && v.stripTrailingZeros().scale() > 0) {
      return null;
    }
    if (v.compareTo(LONG_MIN) < 0 || v.compareTo(LONG_MAX) > 0) {
      return null;
    }
    return v.longValueExact();
  }

  // ------------------------------------------------------------------------------ ip and cidr

  private static IpAddresses.Addr parseIp(String raw) throws CelEvaluationException {
    IpAddresses.Addr addr;
    try {
      addr = IpAddresses.parseAddr(raw);
    } catch (IpAddresses.ParseException e) {
      throw new CelEvaluationException(
          "IP Address "
              + quoted(raw)
              + " parse error during conversion from string: "
              + e.getMessage());
    }
    if (!addr.zone().isEmpty()) {
      throw new CelEvaluationException(
          "IP address " + quoted(raw) + " with zone value is not allowed");
    }
    if (!addr.is4() && IpAddresses.isV4(addr.bytes())) {
      throw new CelEvaluationException(
          "IPv4-mapped IPv6 address " + quoted(raw) + " is not allowed");
    }
    return addr;
  }

  private static boolean isIp(String s) {
    try {
      parseIp(s);
      return true;
    } catch (CelEvaluationException e) {
      return false;
    }
  }

  private static Cidr cidr(String raw) throws CelEvaluationException {
    IpAddresses.Prefix prefix;
    try {
      prefix = IpAddresses.parsePrefix(raw);
    } catch (IpAddresses.ParseException e) {
      throw new CelEvaluationException(
          "network address parse error during conversion from string: network address parse"
              + " error during conversion from string: "
              + e.getMessage());
    }
    if (!prefix.addr().is4() && IpAddresses.isV4(prefix.addr().bytes())) {
      throw new CelEvaluationException(
          "network address parse error during conversion from string: IPv4-mapped IPv6 address "
              + quoted(raw)
              + " is not allowed");
    }
    return new Cidr(prefix);
  }

  private static boolean isCidr(String s) {
    try {
      cidr(s);
      return true;
    } catch (CelEvaluationException e) {
      return false;
    }
  }

  /** {@code netip.Prefix.Contains}: same family and the first {@code bits} bits equal. */
  private static boolean contains(IpAddresses.Prefix prefix, IpAddresses.Addr ip) {
    if (prefix.addr().is4() != ip.is4()) {
      return false;
    }
    return new IpAddresses.Prefix(ip, prefix.bits()).masked().addr().equals(prefix.masked().addr());
  }

  private static boolean containsCidr(IpAddresses.Prefix outer, IpAddresses.Prefix inner) {
    return outer.addr().is4() == inner.addr().is4()
        && outer.bits() <= inner.bits()
        && contains(outer, inner.addr());
  }

  private static boolean allZero(byte[] bytes) {
    for (byte b : bytes) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isLoopback(Ip ip) {
    byte[] b = ip.addr().bytes();
    if (b.length == 4) {
      return (b[0] & 0xff) == 127;
    }
    for (int i = 0; i < 15; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[15] == 1;
  }

  private static boolean isLinkLocalMulticast(Ip ip) {
    byte[] b = ip.addr().bytes();
    if (b.length == 4) {
      return (b[0] & 0xff) == 224 && b[1] == 0 && b[2] == 0;
    }
    return (b[0] & 0xff) == 0xff && (b[1] & 0x0f) == 0x02;
  }

  private static boolean isLinkLocalUnicast(Ip ip) {
    byte[] b = ip.addr().bytes();
    if (b.length == 4) {
      return (b[0] & 0xff) == 169 && (b[1] & 0xff) == 254;
    }
    return (b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80;
  }

  /** {@code netip.Addr.IsGlobalUnicast}. */
  private static boolean isGlobalUnicast(Ip ip) {
    byte[] b = ip.addr().bytes();
    if (allZero(b)) {
      return false;
    }
    if (b.length == 4) {
      boolean broadcast = true;
      for (byte x : b) {
        broadcast &= x == (byte) 0xff;
      }
      return !broadcast && !isLoopback(ip) && (b[0] & 0xf0) != 0xe0 && !isLinkLocalUnicast(ip);
    }
    return !isLoopback(ip) && (b[0] & 0xff) != 0xff && !isLinkLocalUnicast(ip);
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  // ------------------------------------------------------------------------------ format

  /** The named formats, by their name in {@code format.<name>()}. */
  static final Map<String, NamedFormat> FORMATS = formats();

  private static Map<String, NamedFormat> formats() {
    Map<String, NamedFormat> f = new LinkedHashMap<>();
    f.put("dns1123Label", new NamedFormat("DNS1123Label", Names::dns1123LabelErrors));
    f.put("dns1123Subdomain", new NamedFormat("DNS1123Subdomain", Names::dns1123SubdomainErrors));
    f.put("dns1035Label", new NamedFormat("DNS1035Label", Names::dns1035LabelErrors));
    f.put("qualifiedName", new NamedFormat("QualifiedName", Names::qualifiedNameErrors));
    f.put(
        "dns1123LabelPrefix",
        new NamedFormat("DNS1123LabelPrefix", s -> Names.dns1123LabelErrors(maskTrailingDash(s))));
    f.put(
        "dns1123SubdomainPrefix",
        new NamedFormat(
            "DNS1123SubdomainPrefix", s -> Names.dns1123SubdomainErrors(maskTrailingDash(s))));
    f.put(
        "dns1035LabelPrefix",
        new NamedFormat("DNS1035LabelPrefix", s -> Names.dns1035LabelErrors(maskTrailingDash(s))));
    f.put("labelValue", new NamedFormat("LabelValue", Names::labelValueErrors));
    f.put(
        "uri",
        new NamedFormat(
            "URI", s -> Urls.parseRequestUri(s) == null ? List.of(Urls.error(s)) : List.of()));
    f.put(
        "uuid",
        new NamedFormat(
            "uuid",
            s ->
                UUID.matcher(s).matches() ? List.of() : List.of("does not match the UUID format")));
    f.put("byte", new NamedFormat("byte", s -> base64(s) ? List.of() : List.of("invalid base64")));
    f.put("date", new NamedFormat("date", s -> date(s) ? List.of() : List.of("invalid date")));
    f.put(
        "datetime",
        new NamedFormat("datetime", s -> dateTime(s) ? List.of() : List.of("invalid datetime")));
    return Map.copyOf(f);
  }

  private static final Pattern UUID =
      Pattern.compile("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");

  /** {@code maskTrailingDash}: a name prefix may end in a dash, which the name may not. */
  private static String maskTrailingDash(String name) {
    return name.length() > 1 && name.endsWith("-")
        ? name.substring(0, name.length() - 2) + "a"
        : name;
  }

  private static boolean base64(String s) {
    try {
      Base64.getDecoder().decode(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean date(String s) {
    try {
      LocalDate.parse(s);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  private static boolean dateTime(String s) {
    try {
      OffsetDateTime.parse(s);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
