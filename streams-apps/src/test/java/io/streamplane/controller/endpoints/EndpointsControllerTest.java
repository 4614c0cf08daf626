package io.streamplane.controller.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.EndpointSubset;
import io.streamplane.api.Pod;
import io.streamplane.api.Service;
import io.streamplane.schema.convert.KubeJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class EndpointsControllerTest {

  private static final KubeJson JSON = new KubeJson();

  private static <T extends org.apache.avro.specific.SpecificRecord> T avro(
      String json, Class<T> type) {
    return JSON.toAvro(
            (com.fasterxml.jackson.databind.node.ObjectNode)
                KubeJson.parseJson(json.replace('\'', '"')),
            type)
        .record();
  }

  private static Pod pod(String name, String ip, boolean ready, String extra) {
    return avro(
        "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'"
            + name
            + "','namespace':'default','uid':'u-"
            + name
            + "','labels':{'app':'web'}"
            + extra
            + "},'spec':{'nodeName':'node-0','containers':[{'name':'c','image':'nginx',"
            + "'ports':[{'name':'http','containerPort':8080}]}]},"
            + "'status':{'phase':'Running','podIP':'"
            + ip
            + "','conditions':[{'type':'Ready','status':'"
            + (ready ? "True" : "False")
            + "'}]}}",
        Pod.class);
  }

  private static Service service(String extra) {
    return avro(
        "{'apiVersion':'v1','kind':'Service','metadata':{'name':'web','namespace':'default'},"
            + "'spec':{'selector':{'app':'web'},'ports':[{'name':'http','port':80,"
            + "'protocol':'TCP','targetPort':'http'}]"
            + extra
            + "}}",
        Service.class);
  }

  @Test
  void readyPodsAreAddressesTheOthersNotReadyAtTheNamedTargetPortSortedByIp() {
    List<EndpointSubset> subsets =
        EndpointsController.subsets(
            service(""),
            List.of(
                pod("b", "127.1.0.3", true, ""),
                pod("a", "127.1.0.2", true, ""),
                pod("c", "127.1.0.4", false, ""),
                pod("gone", "127.1.0.5", true, ",'deletionTimestamp':'2024-05-01T10:00:00Z'")));

    assertThat(subsets).hasSize(1);
    EndpointSubset subset = subsets.get(0);
    assertThat(subset.getAddresses())
        .extracting(a -> a.getIp())
        .containsExactly("127.1.0.2", "127.1.0.3");
    assertThat(subset.getNotReadyAddresses())
        .extracting(a -> a.getIp())
        .containsExactly("127.1.0.4");
    assertThat(subset.getPorts().get(0).getPort()).isEqualTo(8080);
    assertThat(subset.getPorts().get(0).getName()).isEqualTo("http");
    assertThat(subset.getAddresses().get(0).getTargetRef().getName()).isEqualTo("a");
  }

  @Test
  void publishNotReadyAddressesMakesEveryPodAnAddress() {
    List<EndpointSubset> subsets =
        EndpointsController.subsets(
            service(",'publishNotReadyAddresses':true"), List.of(pod("a", "127.1.0.2", false, "")));

    assertThat(subsets.get(0).getAddresses())
        .extracting(a -> a.getIp())
        .containsExactly("127.1.0.2");
    assertThat(subsets.get(0).getNotReadyAddresses()).isNull();
  }
}
