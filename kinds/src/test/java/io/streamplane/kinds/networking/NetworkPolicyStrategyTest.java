package io.streamplane.kinds.networking;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.NetworkPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

class NetworkPolicyStrategyTest {

  private final NetworkPolicyStrategy strategy = new NetworkPolicyStrategy();

  private NetworkPolicy policy(String spec) {
    return created(
        strategy,
        "{'metadata':{'name':'p','namespace':'default'},'spec':" + spec + "}",
        NetworkPolicy.class);
  }

  @Test
  void portsAreTcpAndPolicyTypesFollowTheRulesByDefault() {
    NetworkPolicy onlyIngress = policy("{'podSelector':{},'ingress':[{'ports':[{'port':80}]}]}");
    NetworkPolicy withEgress = policy("{'podSelector':{},'egress':[{}]}");

    assertThat(onlyIngress.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(onlyIngress.getSpec().getIngress().get(0).getPorts().get(0).getProtocol())
        .isEqualTo("TCP");
    assertThat(withEgress.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
  }

  @Test
  void policyTypesAndProtocolsAreKnownOnes() {
    assertThat(
            messages(
                strategy.validate(
                    policy(
                        "{'podSelector':{},'policyTypes':['Sideways'],"
                            + "'ingress':[{'ports':[{'protocol':'ICMP'}]}]}"))))
        .containsExactly(
            "spec.policyTypes[0]: Unsupported value: \"Sideways\": supported values:"
                + " \"Ingress\", \"Egress\"",
            "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values:"
                + " \"SCTP\", \"TCP\", \"UDP\"");
  }

  @Test
  void everyWriteIsWarnedThatThePolicyIsNotEnforced() {
    assertThat(strategy.warningsOnWrite(json("{}")))
        .isEqualTo(List.of(NetworkPolicyStrategy.NOT_ENFORCED));
  }

  @Test
  void printsThePodSelector() {
    assertThat(columns(strategy)).containsExactly("Name", "Pod-Selector", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'p'},'spec':{'podSelector':{'matchLabels':{'app':'api'}}}}"))
        .containsExactly("p", "app=api", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'all'},'spec':{'podSelector':{}}}"))
        .containsExactly("all", "<none>", "60m");
  }
}
