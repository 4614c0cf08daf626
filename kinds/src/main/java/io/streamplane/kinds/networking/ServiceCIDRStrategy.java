package io.streamplane.kinds.networking;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.ServiceCIDR;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.IpAddresses;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;

/**
 * networking.k8s.io/v1beta1 ServiceCIDR, stored and validated as kube-apiserver 1.32 does ({@code
 * ValidateServiceCIDR}): one or two CIDRs, two only one of each IP family, each a prefix as {@code
 * netip.ParsePrefix} reads it with no bits set beyond its length and written in canonical form (a
 * loopback range such as Streamplane's {@code 127.96.0.0/12} is as good as any); {@code spec.cidrs}
 * never changes ({@code ValidateServiceCIDRUpdate}). The status subresource writes the status alone
 * and is not validated beyond the metadata. Printed with kubectl's columns (NAME, CIDRS, AGE).
 *
 * <p>As in kube-apiserver, a create keeps the status it is sent. One difference: an update of the
 * main resource keeps the stored status, as Streamplane's store does for every kind with a status
 * subresource, where kube-apiserver 1.32 writes the status it is sent. Nothing in Streamplane
 * allocates cluster IPs from ServiceCIDRs yet, nor keeps their Ready condition.
 */
public final class ServiceCIDRStrategy implements KindStrategy {

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    List<String> cidrs = cidrs((ServiceCIDR) object);
    List<StatusCause> causes = new ArrayList<>();
    if (cidrs.isEmpty()) {
      causes.add(required("spec.cidrs", "at least one CIDR required"));
      return causes;
    }
    if (cidrs.size() > 2) {
      causes.add(invalid("spec.cidrs", goSpec(cidrs), "may only hold up to 2 values"));
      return causes;
    }
    if (cidrs.size() == 2 && !dualStack(cidrs)) {
      causes.add(
          invalid(
              "spec.cidrs",
              goSpec(cidrs),
              "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and"
                  + " 2001:db8::/64"));
      return causes;
    }
    for (int i = 0; i < cidrs.size(); i++) {
      causes.addAll(cidr("spec.cidrs[" + i + "]", cidrs.get(i)));
    }
    return causes;
  }

  /** {@code spec.cidrs} never changes. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    ServiceCIDR updated = (ServiceCIDR) object;
    if (!cidrs(updated).equals(cidrs((ServiceCIDR) old))) {
      List<String> sent = updated.getSpec() == null ? null : updated.getSpec().getCidrs();
      causes.add(
          invalid(
              "spec.cidrs",
              sent == null ? "[]string(nil)" : goStrings(sent),
              "field is immutable"));
    }
    return causes;
  }

  private static List<String> cidrs(ServiceCIDR cidr) {
    return cidr.getSpec() == null || cidr.getSpec().getCidrs() == null
        ? List.of()
        : cidr.getSpec().getCidrs();
  }

  /** {@code netutils.IsDualStackCIDRStrings}: both parse, one IPv4 and one IPv6. */
  private static boolean dualStack(List<String> cidrs) {
    Boolean first = IpAddresses.sloppyCidrIsV4(cidrs.get(0));
    Boolean second = IpAddresses.sloppyCidrIsV4(cidrs.get(1));
    return first != null && second != null && !first.equals(second);
  }

  /** The validation of one CIDR: {@code netip.ParsePrefix}, its network address, canonical. */
  private static List<StatusCause> cidr(String field, String cidr) {
    List<StatusCause> causes = new ArrayList<>();
    IpAddresses.Prefix prefix;
    try {
      prefix = IpAddresses.parsePrefix(cidr);
    } catch (IpAddresses.ParseException e) {
      causes.add(invalid(field, quote(cidr), e.getMessage()));
      return causes;
    }
    if (!prefix.addr().equals(prefix.masked().addr())) {
      causes.add(
          invalid(field, quote(cidr), "wrong CIDR format, IP doesn't match network IP address"));
    }
    if (!prefix.toString().equals(cidr)) {
      causes.add(invalid(field, quote(cidr), "CIDR not in RFC 5952 canonical format"));
    }
    return causes;
  }

  /** The spec as Go's {@code %#v} prints it in a {@code field.Invalid}. */
  private static String goSpec(List<String> cidrs) {
    return "networking.ServiceCIDRSpec{CIDRs:" + goStrings(cidrs) + "}";
  }

  private static String goStrings(List<String> strings) {
    return strings.stream()
        .map(IPAddressStrategy::goString)
        .collect(Collectors.joining(", ", "[]string{", "}"));
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "CIDRs",
                  "string",
                  "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or"
                      + " \"2001:db8::/64\") from which to assign service cluster IPs. Max of two"
                      + " CIDRs is allowed, one of each IP family. This field is immutable."),
              age()),
          (o, now) -> List.of(name(o), cidrs(o.path("spec").path("cidrs")), age(o, now)));

  /** The CIDRs joined with commas. */
  static String cidrs(JsonNode cidrs) {
    List<String> texts = new ArrayList<>();
    cidrs.forEach(c -> texts.add(c.asText()));
    return String.join(",", texts);
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
