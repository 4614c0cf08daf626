package io.streamplane.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.schema.convert.KubeJson;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceEnvTest {

  @Test
  void everyPortGivesTheKubeletsVariablesAndHeadlessServicesNone() {
    Map<String, String> env =
        ServiceEnv.of(
            List.of(
                json(
                    "{'metadata':{'name':'redis-primary'},'spec':{'clusterIP':'127.96.1.2',"
                        + "'ports':[{'name':'redis','port':6379,'protocol':'TCP'},"
                        + "{'name':'metrics-udp','port':9121,'protocol':'UDP'}]}}"),
                json(
                    "{'metadata':{'name':'db'},'spec':{'clusterIP':'None',"
                        + "'ports':[{'port':5432}]}}")));
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("REDIS_PRIMARY_SERVICE_HOST", "127.96.1.2");
    expected.put("REDIS_PRIMARY_SERVICE_PORT", "6379");
    expected.put("REDIS_PRIMARY_SERVICE_PORT_REDIS", "6379");
    expected.put("REDIS_PRIMARY_SERVICE_PORT_METRICS_UDP", "9121");
    expected.put("REDIS_PRIMARY_PORT", "tcp://127.96.1.2:6379");
    expected.put("REDIS_PRIMARY_PORT_6379_TCP", "tcp://127.96.1.2:6379");
    expected.put("REDIS_PRIMARY_PORT_6379_TCP_PROTO", "tcp");
    expected.put("REDIS_PRIMARY_PORT_6379_TCP_PORT", "6379");
    expected.put("REDIS_PRIMARY_PORT_6379_TCP_ADDR", "127.96.1.2");
    expected.put("REDIS_PRIMARY_PORT_9121_UDP", "udp://127.96.1.2:9121");
    expected.put("REDIS_PRIMARY_PORT_9121_UDP_PROTO", "udp");
    expected.put("REDIS_PRIMARY_PORT_9121_UDP_PORT", "9121");
    expected.put("REDIS_PRIMARY_PORT_9121_UDP_ADDR", "127.96.1.2");
    assertEquals(expected, env);
  }

  private static JsonNode json(String text) {
    return KubeJson.parseJson(text.replace('\'', '"'));
  }
}
