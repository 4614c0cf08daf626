package io.streamplane.kinds.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CelCostTest {

  private static final CelExpressions CEL = new CelExpressions();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  private static long estimate(String rule, String schema) throws Exception {
    CelExpressions.Compiled compiled = CEL.compile(rule, Set.of("self", "oldSelf"));
    assertThat(compiled.error()).isNull();
    return CelExpressions.estimate(compiled, Map.of("self", json(schema)));
  }

  @Test
  void theBudgetMessageIsKubeApiserversWithItsFactor() {
    assertThat(CelCost.exceedsBudget("estimated rule cost", 12_000_000, 10_000_000))
        .isEqualTo(
            "estimated rule cost exceeds budget by factor of 1.200000x (try simplifying the rule,"
                + " or adding maxItems, maxProperties, and maxLength where arrays, maps, and"
                + " strings are declared)");
    assertThat(CelCost.exceedsBudget("estimated rule cost", 25_000_000, 10_000_000))
        .startsWith("estimated rule cost exceeds budget by factor of 2.5x (");
    assertThat(CelCost.exceedsBudget("estimated rule cost", Long.MAX_VALUE, 10_000_000))
        .startsWith("estimated rule cost exceeds budget by factor of more than 100x (");
  }

  @Test
  void sizesComeFromTheSchemaOrWhatFitsInARequest() throws Exception {
    assertThat(CelCost.maxSize(json("{\"type\": \"string\", \"maxLength\": 12}"))).isEqualTo(12);
    assertThat(CelCost.maxSize(json("{\"type\": \"string\"}"))).isEqualTo(3 * 1024 * 1024 - 2);
    assertThat(CelCost.maxSize(json("{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}")))
        .isEqualTo((3 * 1024 * 1024 - 2) / 2);
    assertThat(CelCost.maxSize(json("{\"type\": \"array\", \"maxItems\": 5}"))).isEqualTo(5);
  }

  @Test
  void aBoundedRuleIsCheapAndAnUnboundedQuadraticOneIsNot() throws Exception {
    String bounded =
        "{\"type\": \"object\", \"properties\": {\"names\": {\"type\": \"array\", \"maxItems\":"
            + " 10, \"items\": {\"type\": \"string\", \"maxLength\": 20}}}}";
    long small = estimate("self.names.all(n, n.matches('^[a-z]+$'))", bounded);
    assertThat(small).isPositive().isLessThan(1_000);
    String unbounded =
        "{\"type\": \"object\", \"properties\": {\"names\": {\"type\": \"array\", \"items\":"
            + " {\"type\": \"string\"}}}}";
    assertThat(estimate("self.names.all(n, n.matches('^[a-z]+$'))", unbounded))
        .isGreaterThan(CelCost.STATIC_ESTIMATED_COST_LIMIT);
    assertThat(estimate("self.names.all(a, self.names.all(b, a == b))", unbounded))
        .isGreaterThan(CelCost.STATIC_ESTIMATED_COST_LIMIT);
    assertThat(estimate("size(self.names) < 5", unbounded)).isLessThan(10);
  }

  @Test
  void anEvaluationPastThePerCallLimitIsCancelled() throws Exception {
    ArrayNode items = JSON.createArrayNode();
    for (int i = 0; i < 2000; i++) {
      items.add(i);
    }
    CelExpressions.Compiled quadratic =
        CEL.compile("self.all(a, self.all(b, a != b || a == b))", Set.of("self"));
    assertThatThrownBy(() -> CEL.evaluate(quadratic, Map.of("self", items)))
        .hasMessage("operation cancelled: actual cost limit exceeded");
    CelExpressions.Compiled linear = CEL.compile("self.all(a, a >= 0)", Set.of("self"));
    CelExpressions.Evaluation evaluation =
        CEL.evaluate(linear, Map.of("self", items), CelCost.PER_CALL_LIMIT);
    assertThat(evaluation.value()).isEqualTo(true);
    assertThat(evaluation.cost()).isBetween(2000L, 20_000L);
    assertThatThrownBy(() -> CEL.evaluate(linear, Map.of("self", items), 100))
        .hasMessage(CelCost.LIMIT_EXCEEDED);
  }

  @Test
  void stringFunctionsCostATenthOfTheirLength() throws Exception {
    CelExpressions.Compiled contains = CEL.compile("self.contains('x')", Set.of("self"));
    long small = CEL.evaluate(contains, Map.of("self", json("\"abc\"")), 1000).cost();
    long large =
        CEL.evaluate(contains, Map.of("self", JSON.valueToTree("a".repeat(1000))), 1000).cost();
    assertThat(large - small).isGreaterThanOrEqualTo(99);
  }
}
