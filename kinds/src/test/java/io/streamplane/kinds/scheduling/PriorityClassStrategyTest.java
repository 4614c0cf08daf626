package io.streamplane.kinds.scheduling;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.PriorityClass;
import org.junit.jupiter.api.Test;

class PriorityClassStrategyTest {

  private final PriorityClassStrategy strategy = new PriorityClassStrategy();

  private PriorityClass pc(String body) {
    return created(
        strategy,
        "{'apiVersion':'scheduling.k8s.io/v1','kind':'PriorityClass'," + body + "}",
        PriorityClass.class);
  }

  @Test
  void preemptionPolicyDefaultsToPreemptLowerPriority() {
    assertThat(pc("'metadata':{'name':'high'},'value':1000").getPreemptionPolicy())
        .isEqualTo("PreemptLowerPriority");
  }

  @Test
  void theSystemClassesAreValidAsDefinedAndTheirPrefixIsReservedOtherwise() {
    for (PriorityClass system : PriorityClassStrategy.systemPriorityClasses()) {
      assertThat(strategy.validate(system)).isEmpty();
    }
    assertThat(messages(strategy.validate(pc("'metadata':{'name':'system-mine'},'value':5"))))
        .containsExactly(
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved"
                + " for system use only. error: system-mine is not a known system priority class");
    assertThat(
            messages(strategy.validate(pc("'metadata':{'name':'system-node-critical'},'value':5"))))
        .containsExactly(
            "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved"
                + " for system use only. error: value of system-node-critical PriorityClass must"
                + " be 2000001000");
  }

  @Test
  void userClassesStayAtOrBelowOneBillion() {
    assertThat(strategy.validate(pc("'metadata':{'name':'top'},'value':1000000000"))).isEmpty();
    assertThat(messages(strategy.validate(pc("'metadata':{'name':'top'},'value':1000000001"))))
        .containsExactly(
            "value: Forbidden: maximum allowed value of a user defined priority is 1000000000");
  }

  @Test
  void preemptionPolicyIsOneOfTwo() {
    assertThat(
            messages(
                strategy.validate(
                    pc("'metadata':{'name':'p'},'value':1,'preemptionPolicy':'Sometimes'"))))
        .containsExactly(
            "preemptionPolicy: Unsupported value: \"Sometimes\": supported values:"
                + " \"PreemptLowerPriority\", \"Never\"");
  }

  @Test
  void valueAndPreemptionPolicyCannotChangeButGlobalDefaultAndDescriptionCan() {
    PriorityClass old = pc("'metadata':{'name':'p'},'value':1");
    assertThat(
            strategy.validateUpdate(
                pc("'metadata':{'name':'p'},'value':1,'globalDefault':true,'description':'d'"),
                old))
        .isEmpty();
    assertThat(
            messages(
                strategy.validateUpdate(
                    pc("'metadata':{'name':'p'},'value':2,'preemptionPolicy':'Never'"), old)))
        .containsExactly(
            "value: Forbidden: may not be changed in an update.",
            "preemptionPolicy: Invalid value: \"Never\": field is immutable");
  }

  @Test
  void printsValueGlobalDefaultAgeAndPreemptionPolicy() {
    assertThat(columns(strategy))
        .containsExactly("Name", "Value", "Global-Default", "Age", "PreemptionPolicy");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'high'},'value':1000,'globalDefault':true,"
                    + "'preemptionPolicy':'Never'}"))
        .containsExactly("high", 1000L, true, "60m", "Never");
  }
}
