package io.streamplane.kinds.storage;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.CSINode;
import org.junit.jupiter.api.Test;

class CSINodeStrategyTest {

  private final CSINodeStrategy strategy = new CSINodeStrategy();

  @Test
  void driversAreNamedOnceEachWithANodeId() {
    CSINode node =
        created(
            strategy,
            "{'metadata':{'name':'n1'},'spec':{'drivers':[{'name':'a','nodeID':'x'},"
                + "{'name':'a'}]}}",
            CSINode.class);

    assertThat(messages(strategy.validate(node)))
        .containsExactly(
            "spec.drivers[1].name: Duplicate value: \"a\"",
            "spec.drivers[1].nodeID: Required value");
  }

  @Test
  void printsTheNumberOfDrivers() {
    assertThat(columns(strategy)).containsExactly("Name", "Drivers", "Age");
    assertThat(row(strategy, "{'metadata':{'name':'n1'},'spec':{'drivers':[{'name':'a'}]}}"))
        .containsExactly("n1", 1L, "60m");
  }
}
