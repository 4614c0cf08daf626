package io.streamplane.kinds.apps;

import static io.streamplane.kinds.KindFixtures.avro;
import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.DaemonSet;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class DaemonSetStrategyTest {

  private final DaemonSetStrategy strategy = new DaemonSetStrategy();

  private static String daemonSet(String selector, String specExtra, String podSpecExtra) {
    return "{'metadata':{'name':'agent','namespace':'default'},'spec':{"
        + specExtra
        + "'selector':{'matchLabels':{"
        + selector
        + "}},'template':{'metadata':{'labels':{'app':'agent'}},'spec':{"
        + podSpecExtra
        + "'containers':[{'name':'a','image':'busybox'}]}}}}";
  }

  private DaemonSet created(String selector, String specExtra, String podSpecExtra) {
    return io.streamplane.kinds.KindFixtures.created(
        strategy, daemonSet(selector, specExtra, podSpecExtra), DaemonSet.class);
  }

  @Test
  void defaultsToARollingUpdateOfOneNodeAtATimeWithoutSurgeAndKeepsTenRevisions() {
    ObjectNode ds = json(daemonSet("'app':'agent'", "", ""));
    strategy.applyDefaults(ds, true);

    assertThat(ds.at("/spec/updateStrategy").toString())
        .isEqualTo(
            "{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":1,\"maxSurge\":0}}");
    assertThat(ds.at("/spec/revisionHistoryLimit").asInt()).isEqualTo(10);
    assertThat(ds.at("/spec/template/spec/restartPolicy").asText()).isEqualTo("Always");
    assertThat(ds.at("/spec/template/spec/dnsPolicy").asText()).isEqualTo("ClusterFirst");
    assertThat(ds.at("/spec/template/spec/containers/0/imagePullPolicy").asText())
        .isEqualTo("Always");
  }

  @Test
  void anOnDeleteStrategyGetsNoRollingUpdateParameters() {
    ObjectNode ds = json(daemonSet("'app':'agent'", "'updateStrategy':{'type':'OnDelete'},", ""));
    strategy.applyDefaults(ds, true);

    assertThat(ds.at("/spec/updateStrategy").toString()).isEqualTo("{\"type\":\"OnDelete\"}");
    assertThat(strategy.validate(avro(ds, DaemonSet.class))).isEmpty();
  }

  @Test
  void theSelectorMustSelectTheTemplateAndPodsMustRestartAlways() {
    assertThat(strategy.validate(created("'app':'agent'", "", ""))).isEmpty();
    assertThat(messages(strategy.validate(created("'app':'other'", "", ""))))
        .containsExactly(
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"agent\"}:"
                + " `selector` does not match template `labels`");
    assertThat(
            messages(strategy.validate(created("'app':'agent'", "", "'restartPolicy':'Never',"))))
        .containsExactly(
            "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values:"
                + " \"Always\"");
    assertThat(
            messages(strategy.validate(created("'app':'agent'", "", "'activeDeadlineSeconds':5,"))))
        .containsExactly(
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in"
                + " DaemonSet is not Supported");
  }

  @Test
  void exactlyOneOfMaxUnavailableAndMaxSurgeIsNonZero() {
    String both =
        "'updateStrategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':1,'maxSurge':'10%'}},";
    String none =
        "'updateStrategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':'0%','maxSurge':0}},";
    String surge =
        "'updateStrategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':0,'maxSurge':'25%'}},";
    String tooMuch =
        "'updateStrategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':'150%'}},";

    assertThat(messages(strategy.validate(created("'app':'agent'", both, ""))))
        .containsExactly(
            "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: \"10%\": may not be set"
                + " when maxUnavailable is non-zero");
    assertThat(messages(strategy.validate(created("'app':'agent'", none, ""))))
        .containsExactly(
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when"
                + " maxSurge is 0");
    assertThat(strategy.validate(created("'app':'agent'", surge, ""))).isEmpty();
    assertThat(messages(strategy.validate(created("'app':'agent'", tooMuch, ""))))
        .containsExactly(
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\": must not"
                + " be greater than 100%");
    assertThat(
            messages(
                strategy.validate(
                    created("'app':'agent'", "'updateStrategy':{'type':'Recreate'},", ""))))
        .containsExactly(
            "spec.updateStrategy.type: Unsupported value: \"Recreate\": supported values:"
                + " \"OnDelete\", \"RollingUpdate\"");
  }

  @Test
  void theSelectorIsImmutable() {
    DaemonSet old = created("'app':'agent'", "", "");
    ObjectNode changed = json(daemonSet("'app':'agent','tier':'node'", "", ""));
    changed.with("spec").with("template").with("metadata").with("labels").put("tier", "node");
    strategy.applyDefaults(changed, false);

    assertThat(strategy.validateUpdate(created("'app':'agent'", "", ""), old)).isEmpty();
    assertThat(messages(strategy.validateUpdate(avro(changed, DaemonSet.class), old)))
        .containsExactly(
            "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"
                + "\"app\":\"agent\", \"tier\":\"node\"},"
                + " MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
  }

  @Test
  void printsKubeApiserversDaemonSetColumns() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "Desired",
            "Current",
            "Ready",
            "Up-to-date",
            "Available",
            "Node Selector",
            "Age",
            "Containers",
            "Images",
            "Selector");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'agent'},'spec':{'selector':{'matchLabels':{'app':'agent'}},"
                    + "'template':{'spec':{'nodeSelector':{'role':'edge','disk':'ssd'},"
                    + "'containers':[{'name':'a','image':'busybox'},{'name':'b','image':'nginx'}]}}},"
                    + "'status':{'desiredNumberScheduled':3,'currentNumberScheduled':3,"
                    + "'numberReady':2,'updatedNumberScheduled':1,'numberAvailable':2}}"))
        .containsExactly(
            "agent",
            3L,
            3L,
            2L,
            1L,
            2L,
            "disk=ssd,role=edge",
            "60m",
            "a,b",
            "busybox,nginx",
            "app=agent");
    assertThat(row(strategy, "{'metadata':{'name':'agent'},'spec':{'template':{'spec':{}}}}"))
        .containsExactly("agent", 0L, 0L, 0L, 0L, 0L, "<none>", "60m", "", "", "<none>");
  }

  @Test
  void isServedAsDsInTheAllCategoryWithAStatusSubresource() {
    ResourceType row =
        ResourceRegistry.kubernetes().byApiVersionKind("apps/v1", "DaemonSet").orElseThrow();

    assertThat(row.shortNames()).containsExactly("ds");
    assertThat(row.categories()).containsExactly("all");
    assertThat(row.subresources())
        .extracting(ResourceType.Subresource::name)
        .containsExactly("status");
    assertThat(row.strategy().keepsGeneration()).isTrue();
  }
}
