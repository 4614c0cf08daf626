package io.streamplane.kinds.core;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Service;
import org.junit.jupiter.api.Test;

class ServiceStrategyTest {

  private final ServiceStrategy strategy = new ServiceStrategy();

  private Service service(String spec) {
    return created(
        strategy,
        "{'metadata':{'name':'web','namespace':'default'},'spec':" + spec + "}",
        Service.class);
  }

  @Test
  void aServiceIsClusterIpWithTcpPortsAimedAtTheSamePortByDefault() {
    Service web = service("{'ports':[{'port':80}],'selector':{'app':'web'}}");

    assertThat(web.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(web.getSpec().getSessionAffinity()).isEqualTo("None");
    assertThat(web.getSpec().getInternalTrafficPolicy()).isEqualTo("Cluster");
    assertThat(web.getSpec().getExternalTrafficPolicy()).isNull();
    assertThat(web.getSpec().getPorts().get(0).getProtocol()).isEqualTo("TCP");
    assertThat(web.getSpec().getPorts().get(0).getTargetPort().toString()).isEqualTo("80");
    Service nodePort = service("{'type':'NodePort','ports':[{'port':80}]}");
    assertThat(nodePort.getSpec().getExternalTrafficPolicy()).isEqualTo("Cluster");
  }

  @Test
  void portsNamesTypesAndNodePortsAreCheckedAsKubernetesChecksThem() {
    assertThat(messages(strategy.validate(service("{'type':'ClusterIP'}"))))
        .containsExactly("spec.ports: Required value");
    assertThat(
            messages(
                strategy.validate(
                    service(
                        "{'type':'Sideways','ports':[{'port':80},{'port':70000,'protocol':'ICMP',"
                            + "'nodePort':30001}]}"))))
        .contains(
            "spec.type: Unsupported value: \"Sideways\": supported values: \"ClusterIP\","
                + " \"ExternalName\", \"LoadBalancer\", \"NodePort\"",
            "spec.ports[0].name: Required value",
            "spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
            "spec.ports[1].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\","
                + " \"TCP\", \"UDP\"");
    assertThat(
            messages(
                strategy.validate(
                    service("{'type':'ClusterIP','ports':[{'port':80,'nodePort':30001}]}"))))
        .containsExactly(
            "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
    assertThat(messages(strategy.validate(service("{'type':'ExternalName'}"))))
        .containsExactly("spec.externalName: Required value");
  }

  @Test
  void aClusterIpDoesNotChangeOnceSet() {
    Service before = service("{'clusterIP':'10.96.0.7','ports':[{'port':80}]}");
    Service after = service("{'clusterIP':'10.96.0.8','ports':[{'port':80}]}");

    assertThat(messages(strategy.validateUpdate(after, before)))
        .containsExactly(
            "spec.clusterIPs[0]: Invalid value: \"10.96.0.8\": may not change once set");
  }

  @Test
  void printedAsKubectlPrintsServices() {
    assertThat(columns(strategy))
        .containsExactly("Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web','creationTimestamp':'2024-05-01T10:00:00Z'},"
                    + "'spec':{'type':'NodePort','clusterIPs':['10.96.0.7'],'selector':{'app':'web'},"
                    + "'ports':[{'port':80,'nodePort':30080,'protocol':'TCP'},"
                    + "{'port':53,'protocol':'UDP'}]}}"))
        .containsExactly(
            "web", "NodePort", "10.96.0.7", "<none>", "80:30080/TCP,53/UDP", "60m", "app=web");
    assertThat(
            row(
                    strategy,
                    "{'metadata':{'name':'lb','creationTimestamp':'2024-05-01T10:00:00Z'},"
                        + "'spec':{'type':'LoadBalancer','clusterIPs':['10.96.0.8'],"
                        + "'ports':[{'port':443,'protocol':'TCP'}]}}")
                .get(3))
        .isEqualTo("<pending>");
  }
}
