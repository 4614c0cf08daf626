package io.streamplane.kinds.node;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.RuntimeClass;
import org.junit.jupiter.api.Test;

class RuntimeClassStrategyTest {

  private final RuntimeClassStrategy strategy = new RuntimeClassStrategy();

  private RuntimeClass runtimeClass(String handler) {
    return created(
        strategy,
        "{'metadata':{'name':'gvisor'},'handler':'"
            + handler
            + "','overhead':{'podFixed':{'cpu':'250m'}},'scheduling':{'nodeSelector':"
            + "{'sandbox':'true'},'tolerations':[{'key':'sandbox','operator':'Exists'}]}}",
        RuntimeClass.class);
  }

  @Test
  void theHandlerIsADnsLabel() {
    assertThat(strategy.validate(runtimeClass("runsc"))).isEmpty();
    assertThat(messages(strategy.validate(runtimeClass("Run.SC"))))
        .singleElement()
        .asString()
        .startsWith("handler: Invalid value: \"Run.SC\": a lowercase RFC 1123 label must consist");
  }

  @Test
  void theHandlerIsImmutable() {
    assertThat(messages(strategy.validateUpdate(runtimeClass("kata"), runtimeClass("runsc"))))
        .containsExactly("handler: Invalid value: \"kata\": field is immutable");
  }

  @Test
  void printsTheHandler() {
    assertThat(columns(strategy)).containsExactly("Name", "Handler", "Age");
    assertThat(row(strategy, "{'metadata':{'name':'gvisor'},'handler':'runsc'}"))
        .containsExactly("gvisor", "runsc", "60m");
  }
}
