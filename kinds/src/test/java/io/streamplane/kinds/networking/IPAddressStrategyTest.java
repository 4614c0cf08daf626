package io.streamplane.kinds.networking;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.IPAddress;
import io.streamplane.kinds.validation.ObjectValidation;
import java.util.List;
import org.junit.jupiter.api.Test;

class IPAddressStrategyTest {

  private final IPAddressStrategy strategy = new IPAddressStrategy();

  private IPAddress address(String name, String parentRef) {
    return created(
        strategy, "{'metadata':{'name':'" + name + "'},'spec':" + parentRef + "}", IPAddress.class);
  }

  private IPAddress service(String name) {
    return address(
        name, "{'parentRef':{'resource':'services','namespace':'default','name':'web'}}");
  }

  private List<String> problems(IPAddress address) {
    return messages(ObjectValidation.validate(strategy, address, null, false));
  }

  @Test
  void canonicalAddressesLoopbackIncludedNameAnIPAddress() {
    assertThat(problems(service("127.96.0.5"))).isEmpty();
    assertThat(problems(service("10.96.0.10"))).isEmpty();
    assertThat(problems(service("2001:db8::1"))).isEmpty();
    assertThat(problems(service("::1"))).isEmpty();
    assertThat(problems(service("::ffff:10.0.0.1"))).isEmpty();
  }

  @Test
  void aNameThatIsNotAnAddressInCanonicalFormIsRefusedWithNetipsWords() {
    assertThat(problems(service("127.096.0.5")))
        .containsExactly(
            "metadata.name: Invalid value: \"127.096.0.5\": ParseAddr(\"127.096.0.5\"): IPv4"
                + " field has octet with leading zero");
    assertThat(problems(service("foo")))
        .containsExactly(
            "metadata.name: Invalid value: \"foo\": ParseAddr(\"foo\"): unable to parse IP");
    assertThat(problems(service("10.0.0.256")))
        .containsExactly(
            "metadata.name: Invalid value: \"10.0.0.256\": ParseAddr(\"10.0.0.256\"): IPv4 field"
                + " has value >255");
    assertThat(problems(service("10.0.0")))
        .containsExactly(
            "metadata.name: Invalid value: \"10.0.0\": ParseAddr(\"10.0.0\"): IPv4 address too"
                + " short");
    assertThat(problems(service("web.default")))
        .containsExactly(
            "metadata.name: Invalid value: \"web.default\": ParseAddr(\"web.default\"):"
                + " unexpected character (at \"web.default\")");
    assertThat(problems(service("2001:db8:0:0:0::1")))
        .containsExactly(
            "metadata.name: Invalid value: \"2001:db8:0:0:0::1\": must be a canonical format IP"
                + " address");
    assertThat(problems(service("2001:DB8::1")))
        .containsExactly(
            "metadata.name: Invalid value: \"2001:DB8::1\": must be a canonical format IP"
                + " address");
    assertThat(problems(service("2001:db8::1::2")))
        .containsExactly(
            "metadata.name: Invalid value: \"2001:db8::1::2\": ParseAddr(\"2001:db8::1::2\"):"
                + " multiple :: in address (at \":2\")");
  }

  @Test
  void theParentReferenceIsRequiredWithItsResourceAndName() {
    assertThat(problems(address("10.0.0.1", "{}")))
        .containsExactly("spec.parentRef: Required value");
    assertThat(problems(address("10.0.0.1", "{'parentRef':{'group':'Not_A_Group'}}")))
        .hasSize(3)
        .anySatisfy(m -> assertThat(m).startsWith("spec.parentRef.group: Invalid value"))
        .contains("spec.parentRef.resource: Required value", "spec.parentRef.name: Required value");
    assertThat(
            problems(
                address(
                    "10.0.0.1",
                    "{'parentRef':{'resource':'services','namespace':'a/b','name':'..'}}")))
        .containsExactly(
            "spec.parentRef.name: Invalid value: \"..\": may not be '..'",
            "spec.parentRef.namespace: Invalid value: \"a/b\": may not contain '/'");
    assertThat(
            problems(
                address(
                    "10.0.0.1",
                    "{'parentRef':{'group':'gateway.networking.k8s.io','resource':'gateways',"
                        + "'name':'edge'}}")))
        .isEmpty();
  }

  @Test
  void theParentReferenceNeverChanges() {
    assertThat(strategy.validateUpdate(service("10.0.0.1"), service("10.0.0.1"))).isEmpty();
    IPAddress moved =
        address(
            "10.0.0.1", "{'parentRef':{'resource':'services','namespace':'default','name':'db'}}");
    assertThat(messages(strategy.validateUpdate(moved, service("10.0.0.1"))))
        .containsExactly(
            "spec.parentRef: Invalid value: networking.ParentReference{Group:\"\","
                + " Resource:\"services\", Namespace:\"default\", Name:\"db\"}: field is"
                + " immutable");
    // A group left out and an empty group are the same reference.
    IPAddress explicit =
        address(
            "10.0.0.1",
            "{'parentRef':{'group':'','resource':'services','namespace':'default','name':'web'}}");
    assertThat(strategy.validateUpdate(explicit, service("10.0.0.1"))).isEmpty();
  }

  @Test
  void printsTheParentReferenceAsKubectlDoes() {
    assertThat(columns(strategy)).containsExactly("Name", "ParentRef");
    // kube-apiserver's row has a third cell, the age, that no column names.
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'127.96.0.1'},'spec':{'parentRef':{'resource':'services',"
                    + "'namespace':'default','name':'kubernetes'}}}"))
        .containsExactly("127.96.0.1", "services/default/kubernetes", "60m");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'10.0.0.1'},'spec':{'parentRef':{'group':'Gateway.Example.COM',"
                    + "'resource':'Gateways','name':'Edge'}}}"))
        .containsExactly("10.0.0.1", "gateways.gateway.example.com/Edge", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'10.0.0.2'},'spec':{}}"))
        .containsExactly("10.0.0.2", "<none>", "60m");
  }
}
