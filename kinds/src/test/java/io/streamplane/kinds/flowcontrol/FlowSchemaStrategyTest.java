package io.streamplane.kinds.flowcontrol;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.FlowSchema;
import org.junit.jupiter.api.Test;

class FlowSchemaStrategyTest {

  private final FlowSchemaStrategy strategy = new FlowSchemaStrategy();

  private FlowSchema schema(String spec) {
    return created(strategy, "{'metadata':{'name':'fs'},'spec':" + spec + "}", FlowSchema.class);
  }

  @Test
  void precedenceDefaultsTo1000AndAPriorityLevelIsRequired() {
    FlowSchema schema = schema("{'priorityLevelConfiguration':{'name':'global-default'}}");

    assertThat(schema.getSpec().getMatchingPrecedence()).isEqualTo(1000);
    assertThat(strategy.validate(schema)).isEmpty();
    assertThat(
            messages(
                strategy.validate(
                    schema("{'matchingPrecedence':20000,'distinguisherMethod':{'type':'ByPod'}}"))))
        .containsExactly(
            "spec.priorityLevelConfiguration.name: Required value: must reference a priority"
                + " level",
            "spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000",
            "spec.distinguisherMethod.type: Unsupported value: \"ByPod\": supported values:"
                + " \"ByUser\", \"ByNamespace\"");
  }

  @Test
  void printsPriorityLevelPrecedenceDistinguisherAndMissingLevel() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "PriorityLevel",
            "MatchingPrecedence",
            "DistinguisherMethod",
            "Age",
            "MissingPL");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'fs'},'spec':{'priorityLevelConfiguration':{'name':'low'},"
                    + "'matchingPrecedence':9000,'distinguisherMethod':{'type':'ByUser'}},"
                    + "'status':{'conditions':[{'type':'Dangling','status':'False'}]}}"))
        .containsExactly("fs", "low", 9000L, "ByUser", "60m", "False");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'fs'},'spec':{'priorityLevelConfiguration':{'name':'low'},"
                    + "'matchingPrecedence':1}}"))
        .containsExactly("fs", "low", 1L, "<none>", "60m", "?");
  }
}
