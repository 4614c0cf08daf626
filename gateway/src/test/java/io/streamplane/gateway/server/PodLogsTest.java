package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.gateway.api.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodLogsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void theOnlyContainerIsChosenWhenNoneIsNamed() throws Exception {
    JsonNode pod = json("{'spec':{'containers':[{'name':'web'}]}}");

    assertThat(PodLogs.container(pod, "p", "")).isEqualTo("web");
  }

  @Test
  void severalContainersNeedANameAndTheMessageListsInitContainersFirst() throws Exception {
    JsonNode pod =
        json(
            "{'spec':{'initContainers':[{'name':'init'}],"
                + "'containers':[{'name':'a'},{'name':'b'}]}}");

    assertThatThrownBy(() -> PodLogs.container(pod, "p", ""))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(400);
              assertThat(e.reason()).isEqualTo("BadRequest");
              assertThat(e.getMessage())
                  .isEqualTo(
                      "a container name must be specified for pod p, choose one of: [init a b]");
            });
    assertThat(PodLogs.container(pod, "p", "init")).isEqualTo("init");
  }

  @Test
  void anUnknownContainerIsABadRequest() throws Exception {
    JsonNode pod = json("{'spec':{'containers':[{'name':'web'}]}}");

    assertThatThrownBy(() -> PodLogs.container(pod, "p", "db"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(400);
              assertThat(e.getMessage()).isEqualTo("container db is not valid for pod p");
            });
  }

  @Test
  void theNodeIsReachedAtItsInternalIpElseItsHostnameOnItsKubeletPortElse10250() throws Exception {
    JsonNode both =
        json(
            "{'status':{'addresses':[{'type':'Hostname','address':'n1'},"
                + "{'type':'InternalIP','address':'10.0.0.7'}],"
                + "'daemonEndpoints':{'kubeletEndpoint':{'Port':10260}}}}");
    JsonNode hostnameOnly =
        json(
            "{'status':{'addresses':[{'type':'Hostname','address':'n1'}],"
                + "'daemonEndpoints':{'kubeletEndpoint':{'Port':0}}}}");

    assertThat(PodLogs.hostPort(both)).isEqualTo("10.0.0.7:10260");
    assertThat(PodLogs.hostPort(hostnameOnly)).isEqualTo("n1:10250");
    assertThatThrownBy(() -> PodLogs.hostPort(json("{'status':{}}")))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(500);
              assertThat(e.getMessage())
                  .isEqualTo("no preferred addresses found; known addresses: []");
            });
  }

  @Test
  void nodeErrorsBecomeStatusesAsKubeApiserversResponseCheckerMakesThem() {
    byte[] waiting =
        ("{'kind':'Status','apiVersion':'v1','status':'Failure','message':"
                + "'container \\'c\\' in pod \\'p\\' is waiting to start: ContainerCreating',"
                + "'reason':'BadRequest','code':400}")
            .replace('\'', '"')
            .getBytes(StandardCharsets.UTF_8);

    JsonNode badRequest = PodLogs.kubeletError(400, "p", waiting);
    JsonNode notFound =
        PodLogs.kubeletError(404, "p", "pod \"p\" does not exist".getBytes(StandardCharsets.UTF_8));
    JsonNode internal =
        PodLogs.kubeletError(500, "p", "disk on fire".getBytes(StandardCharsets.UTF_8));

    assertThat(badRequest.path("code").asInt()).isEqualTo(400);
    assertThat(badRequest.path("message").asText())
        .isEqualTo("container \"c\" in pod \"p\" is waiting to start: ContainerCreating");
    assertThat(notFound.path("code").asInt()).isEqualTo(404);
    assertThat(notFound.path("reason").asText()).isEqualTo("NotFound");
    assertThat(notFound.path("message").asText())
        .isEqualTo("the server could not find the requested resource ( pods/log p)");
    assertThat(internal.path("message").asText())
        .isEqualTo("Internal error occurred: disk on fire");
  }

  @Test
  void optionsAreValidatedAsPodLogOptionsAndPassedToTheNodeAsLogLocationDoes() {
    PodLogs.Options options =
        PodLogs.Options.parse(
            Map.of(
                "follow", "true",
                "tailLines", "5",
                "sinceTime", "2026-03-01T13:00:00.5+01:00",
                "timestamps", "1",
                "insecureSkipTLSVerifyBackend", "true"));
    assertThat(options.validate()).isEmpty();
    assertThat(options.kubeletQuery())
        .isEqualTo("follow=true&sinceTime=2026-03-01T12%3A00%3A00Z&tailLines=5&timestamps=true");

    PodLogs.Options invalid =
        PodLogs.Options.parse(Map.of("tailLines", "-1", "sinceSeconds", "0", "limitBytes", "0"));
    assertThat(invalid.validate())
        .extracting(e -> e.message())
        .containsExactly(
            "tailLines: Invalid value: -1: must be greater than or equal to 0",
            "limitBytes: Invalid value: 0: must be greater than 0",
            "sinceSeconds: Invalid value: 0: must be greater than 0");
    // Booleans as kube-apiserver's parameter codec reads them: anything but 0 and false is true.
    assertThat(PodLogs.Options.parse(Map.of("follow", "yes")).follow()).isTrue();
    assertThat(PodLogs.Options.parse(Map.of("follow", "False")).follow()).isFalse();
  }
}
