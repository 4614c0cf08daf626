package io.streamplane.kinds.networking;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ServiceCIDR;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceCIDRStrategyTest {

  private final ServiceCIDRStrategy strategy = new ServiceCIDRStrategy();

  private ServiceCIDR cidrs(String... cidrs) {
    return created(
        strategy,
        "{'metadata':{'name':'kubernetes'},'spec':{'cidrs':["
            + String.join(",", List.of(cidrs).stream().map(c -> "'" + c + "'").toList())
            + "]}}",
        ServiceCIDR.class);
  }

  private List<String> problems(String... cidrs) {
    return messages(strategy.validate(cidrs(cidrs)));
  }

  @Test
  void oneOrTwoCanonicalNetworksLoopbackIncluded() {
    assertThat(problems("127.96.0.0/12")).isEmpty();
    assertThat(problems("10.96.0.0/16", "fd00:10:96::/112")).isEmpty();
    assertThat(problems("2001:db8::/64", "192.168.0.0/24")).isEmpty();
  }

  @Test
  void atLeastOneAndAtMostTwoOneOfEachFamily() {
    assertThat(problems())
        .containsExactly("spec.cidrs: Required value: at least one CIDR required");
    assertThat(problems("10.0.0.0/24", "fd00::/64", "10.1.0.0/24"))
        .containsExactly(
            "spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{\"10.0.0.0/24\","
                + " \"fd00::/64\", \"10.1.0.0/24\"}}: may only hold up to 2 values");
    assertThat(problems("10.0.0.0/24", "10.1.0.0/24"))
        .containsExactly(
            "spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{\"10.0.0.0/24\","
                + " \"10.1.0.0/24\"}}: may specify no more than one IP for each IP family, i.e"
                + " 192.168.0.0/24 and 2001:db8::/64");
    assertThat(problems("10.0.0.0/24", "bad")).hasSize(1);
  }

  @Test
  void eachIsANetworkAddressInCanonicalForm() {
    assertThat(problems("10.0.0.1/24"))
        .containsExactly(
            "spec.cidrs[0]: Invalid value: \"10.0.0.1/24\": wrong CIDR format, IP doesn't match"
                + " network IP address");
    assertThat(problems("2001:db8:0:0::/64"))
        .containsExactly(
            "spec.cidrs[0]: Invalid value: \"2001:db8:0:0::/64\": CIDR not in RFC 5952 canonical"
                + " format");
    assertThat(problems("010.0.0.0/24"))
        .containsExactly(
            "spec.cidrs[0]: Invalid value: \"010.0.0.0/24\": netip.ParsePrefix(\"010.0.0.0/24\"):"
                + " ParseAddr(\"010.0.0.0\"): IPv4 field has octet with leading zero");
    assertThat(problems("10.0.0.0"))
        .containsExactly(
            "spec.cidrs[0]: Invalid value: \"10.0.0.0\": netip.ParsePrefix(\"10.0.0.0\"): no '/'");
    assertThat(problems("10.0.0.0/33"))
        .containsExactly(
            "spec.cidrs[0]: Invalid value: \"10.0.0.0/33\": netip.ParsePrefix(\"10.0.0.0/33\"):"
                + " prefix length out of range");
    assertThat(problems("10.0.0.0/08"))
        .containsExactly(
            "spec.cidrs[0]: Invalid value: \"10.0.0.0/08\": netip.ParsePrefix(\"10.0.0.0/08\"):"
                + " bad bits after slash: \"08\"");
  }

  @Test
  void theCidrsNeverChange() {
    assertThat(strategy.validateUpdate(cidrs("10.0.0.0/24"), cidrs("10.0.0.0/24"))).isEmpty();
    assertThat(
            messages(
                strategy.validateUpdate(cidrs("10.0.0.0/24", "fd00::/64"), cidrs("10.0.0.0/24"))))
        .containsExactly(
            "spec.cidrs: Invalid value: []string{\"10.0.0.0/24\", \"fd00::/64\"}: field is"
                + " immutable");
  }

  @Test
  void printsTheCidrsAsKubectlDoes() {
    assertThat(columns(strategy)).containsExactly("Name", "CIDRs", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'kubernetes'},"
                    + "'spec':{'cidrs':['127.96.0.0/12','fd00:10:96::/112']}}"))
        .containsExactly("kubernetes", "127.96.0.0/12,fd00:10:96::/112", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'empty'}}")).containsExactly("empty", "", "60m");
  }
}
