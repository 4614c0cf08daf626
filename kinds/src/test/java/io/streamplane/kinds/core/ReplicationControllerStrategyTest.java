package io.streamplane.kinds.core;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ReplicationController;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicationControllerStrategyTest {

  private final ReplicationControllerStrategy strategy = new ReplicationControllerStrategy();

  private static String rc(String selector, String restartPolicy) {
    return "{'metadata':{'name':'web','namespace':'default'},'spec':{"
        + selector
        + "'template':{'metadata':{'labels':{'app':'web'}},'spec':{"
        + restartPolicy
        + "'containers':[{'name':'nginx','image':'nginx:1.27'}]}}}}";
  }

  @Test
  void selectorLabelsAndReplicasDefaultFromTheTemplate() {
    ReplicationController rc = created(strategy, rc("", ""), ReplicationController.class);

    assertThat(rc.getSpec().getSelector()).isEqualTo(Map.of("app", "web"));
    assertThat(rc.getMetadata().getLabels()).isEqualTo(Map.of("app", "web"));
    assertThat(rc.getSpec().getReplicas()).isEqualTo(1);
    assertThat(strategy.validate(rc)).isEmpty();
  }

  @Test
  void theSelectorMustSelectTheTemplateWhosePodsRestartAlways() {
    ReplicationController rc =
        created(
            strategy,
            rc("'selector':{'app':'api'},", "'restartPolicy':'Never',"),
            ReplicationController.class);

    assertThat(messages(strategy.validate(rc)))
        .containsExactly(
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}:"
                + " `selector` does not match template `labels`",
            "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values:"
                + " \"Always\"");
  }

  @Test
  void keepsAGenerationAndIsSelectableByReplicas() {
    assertThat(strategy.keepsGeneration()).isTrue();
    assertThat(
            strategy
                .selectableFields()
                .get("status.replicas")
                .apply(json("{'status':{'replicas':3}}")))
        .isEqualTo("3");
  }

  @Test
  void printsReplicasAndWideContainersImagesAndSelector() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web'},'spec':{'replicas':2,'selector':{'app':'web','tier':"
                    + "'fe'},'template':{'spec':{'containers':[{'name':'nginx','image':'nginx'}]}}},"
                    + "'status':{'replicas':2,'readyReplicas':1}}"))
        .containsExactly("web", 2L, 2L, 1L, "60m", "nginx", "nginx", "app=web,tier=fe");
  }
}
