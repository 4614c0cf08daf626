package io.streamplane.kinds.networking;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Ingress;
import org.junit.jupiter.api.Test;

class IngressStrategyTest {

  private final IngressStrategy strategy = new IngressStrategy();

  private Ingress ingress(String spec) {
    return created(
        strategy,
        "{'metadata':{'name':'shop','namespace':'default'},'spec':" + spec + "}",
        Ingress.class);
  }

  @Test
  void aRuleWithAServiceBackendIsValid() {
    assertThat(
            strategy.validate(
                ingress(
                    "{'rules':[{'host':'a.example.com','http':{'paths':[{'path':'/',"
                        + "'pathType':'Prefix','backend':{'service':{'name':'web','port':"
                        + "{'number':80}}}}]}}]}")))
        .isEmpty();
  }

  @Test
  void anIngressNeedsABackendOrRulesAndPathsNeedATypeAndOneBackend() {
    assertThat(messages(strategy.validate(ingress("{}"))))
        .containsExactly(
            "spec: Invalid value: \"null\": either `defaultBackend` or `rules` must be specified");
    assertThat(
            messages(
                strategy.validate(
                    ingress(
                        "{'rules':[{'http':{'paths':[{'path':'/','backend':{'service':"
                            + "{'name':'web','port':{}}}}]}}]}"))))
        .containsExactly(
            "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified",
            "spec.rules[0].http.paths[0].backend.service.port: Invalid value: \"\": port name or"
                + " number is required");
  }

  @Test
  void printsClassHostsAddressesAndPorts() {
    assertThat(columns(strategy))
        .containsExactly("Name", "Class", "Hosts", "Address", "Ports", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'shop'},'spec':{'ingressClassName':'nginx','tls':[{}],"
                    + "'rules':[{'host':'a'},{'host':'b'},{},{'host':'d'},{'host':'e'}]},"
                    + "'status':{'loadBalancer':{'ingress':[{'ip':'192.0.2.1'},"
                    + "{'hostname':'lb.example.com'}]}}}"))
        .containsExactly(
            "shop", "nginx", "a,b,d + 2 more...", "192.0.2.1,lb.example.com", "80, 443", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'x'},'spec':{}}"))
        .containsExactly("x", "<none>", "*", "", "80", "60m");
  }
}
