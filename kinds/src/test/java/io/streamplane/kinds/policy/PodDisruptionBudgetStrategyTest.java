package io.streamplane.kinds.policy;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.kinds.KindFixtures;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class PodDisruptionBudgetStrategyTest {

  private final PodDisruptionBudgetStrategy strategy = new PodDisruptionBudgetStrategy();

  private static String pdb(String spec) {
    return "{'metadata':{'name':'web','namespace':'default'},'spec':{" + spec + "}}";
  }

  private PodDisruptionBudget created(String spec) {
    return KindFixtures.created(strategy, pdb(spec), PodDisruptionBudget.class);
  }

  @Test
  void aCreatedBudgetStartsWithEveryCountAtZero() {
    ObjectNode pdb = json(pdb("'minAvailable':2,'selector':{'matchLabels':{'app':'web'}}"));
    pdb.putObject("status").put("disruptionsAllowed", 5);
    strategy.prepareForCreate(pdb);

    assertThat(pdb.get("status").toString())
        .isEqualTo(
            "{\"disruptionsAllowed\":0,\"currentHealthy\":0,\"desiredHealthy\":0,\"expectedPods\":0}");
  }

  @Test
  void minAvailableAndMaxUnavailableAreExclusive() {
    assertThat(
            messages(
                strategy.validate(
                    created(
                        "'minAvailable':1,'maxUnavailable':1,"
                            + "'selector':{'matchLabels':{'app':'web'}}"))))
        .singleElement()
        .asString()
        .startsWith("spec: Invalid value: ")
        .endsWith(": minAvailable and maxUnavailable cannot be both set");
  }

  @Test
  void boundsAreNonNegativeIntegersOrPercentagesUpToAHundred() {
    assertThat(strategy.validate(created("'minAvailable':'50%'"))).isEmpty();
    assertThat(strategy.validate(created("'maxUnavailable':0"))).isEmpty();
    assertThat(messages(strategy.validate(created("'minAvailable':-1"))))
        .containsExactly(
            "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0");
    assertThat(messages(strategy.validate(created("'maxUnavailable':'120%'"))))
        .containsExactly(
            "spec.maxUnavailable: Invalid value: \"120%\": must not be greater than 100%");
    assertThat(messages(strategy.validate(created("'minAvailable':'half'"))))
        .singleElement()
        .asString()
        .startsWith("spec.minAvailable: Invalid value: \"half\": a valid percent string");
  }

  @Test
  void theSelectorsExpressionsFollowTheirOperators() {
    assertThat(
            messages(
                strategy.validate(
                    created(
                        "'minAvailable':1,'selector':{'matchExpressions':["
                            + "{'key':'app','operator':'In'},"
                            + "{'key':'tier','operator':'Exists','values':['x']},"
                            + "{'key':'zone','operator':'Near','values':['a']}]}"))))
        .containsExactly(
            "spec.selector.matchExpressions[0].values: Required value: must be specified when"
                + " `operator` is 'In' or 'NotIn'",
            "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when"
                + " `operator` is 'Exists' or 'DoesNotExist'",
            "spec.selector.matchExpressions[2].operator: Unsupported value: \"Near\": supported"
                + " values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
  }

  @Test
  void anUnknownUnhealthyPodEvictionPolicyIsRefused() {
    assertThat(messages(strategy.validate(created("'unhealthyPodEvictionPolicy':'Never'"))))
        .containsExactly(
            "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values:"
                + " \"AlwaysAllow\", \"IfHealthyBudget\"");
  }

  @Test
  void printsAsKubeApiserverDoes() {
    assertThat(columns(strategy))
        .containsExactly("Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web','creationTimestamp':'"
                    + KindFixtures.CREATED
                    + "'},'spec':{'minAvailable':2},'status':{'disruptionsAllowed':1}}"))
        .containsExactly("web", "2", "N/A", 1L, "60m");
  }

  @Test
  void isServedAsPdbInPolicyV1WithStatusAndPodsServeEviction() {
    ResourceRegistry registry = ResourceRegistry.kubernetes();
    ResourceType type = registry.served("policy", "v1", "poddisruptionbudgets").orElseThrow();
    assertThat(type.shortNames()).containsExactly("pdb");
    assertThat(type.subresource("status")).isPresent();
    ResourceType.Subresource eviction =
        registry.served("", "v1", "pods").orElseThrow().subresource("eviction").orElseThrow();
    assertThat(eviction.groupVersion()).isEqualTo("policy/v1");
    assertThat(eviction.kind()).isEqualTo("Eviction");
    assertThat(eviction.verbs()).containsExactly("create");
  }
}
