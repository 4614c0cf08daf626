package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.schema.convert.KubeJson;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A read-only gateway refuses every write with a 405 Status saying why, before storage. */
class ReadOnlyApiTest {

  private static final String REASON =
      "this API serves the cluster as it was at L1.2 and is read-only";

  @ParameterizedTest
  @CsvSource({
    "POST, /api/v1/namespaces/default/configmaps, create",
    "PUT, /api/v1/namespaces/default/configmaps/x, update",
    "PATCH, /apis/apps/v1/namespaces/default/deployments/web/scale, patch",
    "DELETE, /api/v1/namespaces/default/pods/web-0, delete",
    "DELETE, /api/v1/namespaces/default/pods, deletecollection",
    "POST, /api/v1/namespaces, create"
  })
  void everyWriteIsAnswered405WithTheReason(String method, String path, String verb)
      throws Exception {
    try (BrokerlessHandler handler =
        new BrokerlessHandler(
            ResourceService.readOnly(null, new KubeJson(), Duration.ofSeconds(1), REASON))) {
      HttpResponse<String> answer = handler.send(method, path);

      assertThat(answer.statusCode()).isEqualTo(405);
      JsonNode status = new ObjectMapper().readTree(answer.body());
      assertThat(status.path("kind").asText()).isEqualTo("Status");
      assertThat(status.path("reason").asText()).isEqualTo("MethodNotAllowed");
      assertThat(status.path("code").asInt()).isEqualTo(405);
      assertThat(status.path("message").asText())
          .isEqualTo(REASON + ": " + verb + " is not allowed");
    }
  }
}
