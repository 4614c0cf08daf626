package io.streamplane.kinds.apps;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ControllerRevision;
import org.junit.jupiter.api.Test;

class ControllerRevisionStrategyTest {

  private final ControllerRevisionStrategy strategy = new ControllerRevisionStrategy();

  private ControllerRevision revision(String data, long revision) {
    return created(
        strategy,
        "{'metadata':{'name':'web-1','namespace':'default'},"
            + data
            + "'revision':"
            + revision
            + "}",
        ControllerRevision.class);
  }

  @Test
  void dataIsRequiredAndTheRevisionNonNegative() {
    assertThat(strategy.validate(revision("'data':{'spec':{}},", 1))).isEmpty();
    assertThat(messages(strategy.validate(revision("", -1))))
        .containsExactly(
            "data: Required value: data is mandatory",
            "revision: Invalid value: -1: must be greater than or equal to 0");
  }

  @Test
  void dataCannotChangeButTheRevisionCan() {
    ControllerRevision old = revision("'data':{'spec':{'a':1}},", 1);

    assertThat(strategy.validateUpdate(revision("'data':{'spec':{'a':1}},", 2), old)).isEmpty();
    assertThat(messages(strategy.validateUpdate(revision("'data':{'spec':{'a':2}},", 1), old)))
        .containsExactly("data: Invalid value: {\"spec\":{\"a\":2}}: field is immutable");
  }

  @Test
  void printsTheControllerWithItsGroupKindAndTheRevision() {
    assertThat(columns(strategy)).containsExactly("Name", "Controller", "Revision", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web-1','ownerReferences':[{'apiVersion':'apps/v1',"
                    + "'kind':'StatefulSet','name':'web','uid':'u','controller':true}]},"
                    + "'revision':3}"))
        .containsExactly("web-1", "statefulset.apps/web", 3L, "60m");
    assertThat(row(strategy, "{'metadata':{'name':'r'},'revision':1}"))
        .containsExactly("r", "<none>", 1L, "60m");
  }
}
