package io.streamplane.kinds.flowcontrol;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.PriorityLevelConfiguration;
import org.junit.jupiter.api.Test;

class PriorityLevelConfigurationStrategyTest {

  private final PriorityLevelConfigurationStrategy strategy =
      new PriorityLevelConfigurationStrategy();

  private PriorityLevelConfiguration level(String spec) {
    return created(
        strategy,
        "{'metadata':{'name':'pl'},'spec':" + spec + "}",
        PriorityLevelConfiguration.class);
  }

  @Test
  void limitedLevelsAndTheirQueuingHaveTheV1Defaults() {
    PriorityLevelConfiguration level =
        level("{'type':'Limited','limited':{'limitResponse':{'type':'Queue','queuing':{}}}}");

    var limited = level.getSpec().getLimited();
    assertThat(limited.getNominalConcurrencyShares()).isEqualTo(30);
    assertThat(limited.getLendablePercent()).isZero();
    var queuing = limited.getLimitResponse().getQueuing();
    assertThat(queuing.getQueues()).isEqualTo(64);
    assertThat(queuing.getHandSize()).isEqualTo(8);
    assertThat(queuing.getQueueLengthLimit()).isEqualTo(50);
    assertThat(strategy.validate(level)).isEmpty();
    assertThat(level("{'type':'Exempt','exempt':{}}").getSpec().getExempt().getLendablePercent())
        .isZero();
  }

  @Test
  void theTypeIsExemptOrLimitedAndALimitedLevelHasItsLimits() {
    assertThat(messages(strategy.validate(level("{'type':'Unlimited'}"))))
        .containsExactly(
            "spec.type: Unsupported value: \"Unlimited\": supported values: \"Exempt\","
                + " \"Limited\"");
    assertThat(messages(strategy.validate(level("{'type':'Limited'}"))))
        .containsExactly("spec.limited: Required value: must not be empty when type is Limited");
    assertThat(
            messages(
                strategy.validate(
                    level("{'type':'Limited','limited':{'limitResponse':{'type':'Queue'}}}"))))
        .containsExactly(
            "spec.limited.limitResponse.queuing: Required value: must not be empty if"
                + " limitResponse.type is Queue");
  }

  @Test
  void printsTypeSharesAndQueuing() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "Type",
            "NominalConcurrencyShares",
            "Queues",
            "HandSize",
            "QueueLengthLimit",
            "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'pl'},'spec':{'type':'Limited','limited':"
                    + "{'nominalConcurrencyShares':100,'limitResponse':{'type':'Queue','queuing':"
                    + "{'queues':128,'handSize':6,'queueLengthLimit':50}}}}}"))
        .containsExactly("pl", "Limited", 100L, 128L, 6L, 50L, "60m");
    assertThat(row(strategy, "{'metadata':{'name':'exempt'},'spec':{'type':'Exempt'}}"))
        .containsExactly("exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "60m");
  }
}
