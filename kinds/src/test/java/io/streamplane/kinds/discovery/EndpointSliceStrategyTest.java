package io.streamplane.kinds.discovery;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.EndpointSlice;
import java.util.Collections;
import org.junit.jupiter.api.Test;

class EndpointSliceStrategyTest {

  private final EndpointSliceStrategy strategy = new EndpointSliceStrategy();

  private EndpointSlice slice(String addressType, String endpoints, String ports) {
    return created(
        strategy,
        "{'metadata':{'name':'web-abcde','namespace':'default'},'addressType':'"
            + addressType
            + "','endpoints':"
            + endpoints
            + ",'ports':"
            + ports
            + "}",
        EndpointSlice.class);
  }

  @Test
  void aPortsNameDefaultsToEmptyAndItsProtocolToTcp() {
    ObjectNode object = json("{'ports':[{'port':80}]}");

    strategy.applyDefaults(object, true);

    assertThat(object.path("ports").get(0).path("name").asText("absent")).isEmpty();
    assertThat(object.path("ports").get(0).path("protocol").asText()).isEqualTo("TCP");
  }

  @Test
  void aCreateThroughV1DropsTheDeprecatedTopology() {
    ObjectNode object =
        json("{'endpoints':[{'addresses':['10.1.0.1'],'deprecatedTopology':{'a':'b'}}]}");

    strategy.prepareForCreate(object);

    assertThat(object.path("endpoints").get(0).has("deprecatedTopology")).isFalse();
  }

  @Test
  void loopbackPodAddressesAreAcceptedWhereUnspecifiedAndLinkLocalOnesAreNot() {
    assertThat(
            strategy.validate(
                slice(
                    "IPv4",
                    "[{'addresses':['127.1.0.2'],'nodeName':'node-0','hostname':'web-0'}]",
                    "[{'name':'http','port':8080}]")))
        .isEmpty();
    assertThat(
            messages(
                strategy.validate(
                    slice("IPv4", "[{'addresses':['0.0.0.0','169.254.1.1','::1']}]", "[]"))))
        .containsExactly(
            "endpoints[0].addresses[0]: Invalid value: \"0.0.0.0\": may not be unspecified"
                + " (0.0.0.0)",
            "endpoints[0].addresses[1]: Invalid value: \"169.254.1.1\": may not be in the"
                + " link-local range (169.254.0.0/16, fe80::/10)",
            "endpoints[0].addresses[2]: Invalid value: \"::1\": must be a valid IPv4 address");
  }

  @Test
  void addressesMustMatchTheAddressType() {
    assertThat(strategy.validate(slice("IPv6", "[{'addresses':['fd00::1']}]", "[]"))).isEmpty();
    assertThat(messages(strategy.validate(slice("IPv6", "[{'addresses':['10.0.0.1']}]", "[]"))))
        .containsExactly(
            "endpoints[0].addresses[0]: Invalid value: \"10.0.0.1\": must be a valid IPv6"
                + " address");
    assertThat(strategy.validate(slice("FQDN", "[{'addresses':['db.example.com']}]", "[]")))
        .isEmpty();
    assertThat(messages(strategy.validate(slice("FQDN", "[{'addresses':['db']}]", "[]"))))
        .containsExactly(
            "endpoints[0].addresses[0]: Invalid value: \"db\": should be a domain with at least"
                + " two segments separated by dots");
  }

  @Test
  void theAddressTypeIsRequiredSupportedAndImmutable() {
    assertThat(messages(strategy.validate(slice("", "[]", "[]"))))
        .containsExactly("addressType: Required value");
    assertThat(messages(strategy.validate(slice("IP", "[]", "[]"))))
        .containsExactly(
            "addressType: Unsupported value: \"IP\": supported values: \"FQDN\", \"IPv4\","
                + " \"IPv6\"");
    assertThat(
            messages(strategy.validateUpdate(slice("IPv6", "[]", "[]"), slice("IPv4", "[]", "[]"))))
        .containsExactly("addressType: Invalid value: \"IPv6\": field is immutable");
  }

  @Test
  void anEndpointHasOneToAHundredAddressesAndASliceAtMostAThousandEndpoints() {
    String hundredAndOne = "['" + String.join("','", Collections.nCopies(101, "10.0.0.1")) + "']";
    assertThat(
            messages(
                strategy.validate(
                    slice("IPv4", "[{'addresses':[]},{'addresses':" + hundredAndOne + "}]", "[]"))))
        .containsExactly(
            "endpoints[0].addresses: Required value: must contain at least 1 address",
            "endpoints[1].addresses: Too many: 101: must have at most 100 items");
    String thousandAndOne =
        "[" + String.join(",", Collections.nCopies(1001, "{'addresses':['10.0.0.1']}")) + "]";
    assertThat(messages(strategy.validate(slice("IPv4", thousandAndOne, "[]"))))
        .containsExactly("endpoints: Too many: 1001: must have at most 1000 items");
  }

  @Test
  void portsHaveUniqueLabelNamesAndAKnownProtocol() {
    assertThat(
            messages(
                strategy.validate(
                    slice(
                        "IPv4",
                        "[]",
                        "[{'name':'http','port':80},{'name':'http','port':81},"
                            + "{'name':'Web_UI','port':82,'protocol':'ICMP'}]"))))
        .containsExactly(
            "ports[1].name: Duplicate value: \"http\"",
            "ports[2].name: Invalid value: \"Web_UI\": a lowercase RFC 1123 label must consist"
                + " of lower case alphanumeric characters or '-', and must start and end with an"
                + " alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for"
                + " validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "ports[2].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\","
                + " \"TCP\", \"UDP\"");
  }

  @Test
  void nodeNamesHostnamesAndZoneHintsAreChecked() {
    assertThat(
            messages(
                strategy.validate(
                    slice(
                        "IPv4",
                        "[{'addresses':['10.0.0.1'],'nodeName':'Node_0','hostname':'a.b',"
                            + "'hints':{'forZones':[{'name':'z'},{'name':'z'}]}}]",
                        "[]"))))
        .hasSize(3)
        .anySatisfy(m -> assertThat(m).startsWith("endpoints[0].nodeName: Invalid value"))
        .anySatisfy(m -> assertThat(m).startsWith("endpoints[0].hostname: Invalid value"))
        .anySatisfy(
            m ->
                assertThat(m)
                    .isEqualTo("endpoints[0].hints.forZones[1].name: Duplicate value: \"z\""));
  }

  @Test
  void printsAddressTypePortsAndAtMostThreeEndpointsAsKubectlDoes() {
    assertThat(columns(strategy))
        .containsExactly("Name", "AddressType", "Ports", "Endpoints", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web-abcde'},'addressType':'IPv4',"
                    + "'ports':[{'name':'http','port':80},{'name':'https','port':443}],"
                    + "'endpoints':[{'addresses':['10.0.0.1']},{'addresses':['10.0.0.2']},"
                    + "{'addresses':['10.0.0.3']},{'addresses':['10.0.0.4']},"
                    + "{'addresses':['10.0.0.5']}]}"))
        .containsExactly(
            "web-abcde", "IPv4", "80,443", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'web-fghij'},'addressType':'IPv4','ports':[]}"))
        .containsExactly("web-fghij", "IPv4", "<unset>", "<unset>", "60m");
  }
}
