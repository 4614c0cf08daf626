package io.streamplane.kinds.apps;

import static io.streamplane.kinds.KindFixtures.avro;
import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.StatefulSet;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class StatefulSetStrategyTest {

  private final StatefulSetStrategy strategy = new StatefulSetStrategy();

  private static String statefulSet(String selector, String specExtra) {
    return "{'metadata':{'name':'web','namespace':'default'},'spec':{"
        + specExtra
        + "'serviceName':'web','selector':{'matchLabels':{"
        + selector
        + "}},'template':{'metadata':{'labels':{'app':'web'}},'spec':{"
        + "'containers':[{'name':'nginx','image':'nginx'}]}}}}";
  }

  private StatefulSet created(String selector, String specExtra) {
    return io.streamplane.kinds.KindFixtures.created(
        strategy, statefulSet(selector, specExtra), StatefulSet.class);
  }

  @Test
  void defaultsAsSetDefaultsStatefulSet() {
    ObjectNode sts =
        json(
            statefulSet(
                "'app':'web'",
                "'volumeClaimTemplates':[{'metadata':{'name':'www'},'spec':{'accessModes':"
                    + "['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}],"));
    strategy.applyDefaults(sts, true);

    assertThat(sts.at("/spec/podManagementPolicy").asText()).isEqualTo("OrderedReady");
    assertThat(sts.at("/spec/updateStrategy").toString())
        .isEqualTo("{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"partition\":0}}");
    assertThat(sts.at("/spec/persistentVolumeClaimRetentionPolicy").toString())
        .isEqualTo("{\"whenDeleted\":\"Retain\",\"whenScaled\":\"Retain\"}");
    assertThat(sts.at("/spec/replicas").asInt()).isEqualTo(1);
    assertThat(sts.at("/spec/revisionHistoryLimit").asInt()).isEqualTo(10);
    assertThat(sts.at("/spec/template/spec/restartPolicy").asText()).isEqualTo("Always");
    assertThat(sts.at("/spec/volumeClaimTemplates/0/spec/volumeMode").asText())
        .isEqualTo("Filesystem");
    assertThat(sts.at("/spec/volumeClaimTemplates/0/status/phase").asText()).isEqualTo("Pending");
    assertThat(strategy.validate(avro(sts, StatefulSet.class))).isEmpty();
  }

  @Test
  void anOnDeleteStrategyGetsNoPartitionAndMayNotHaveOne() {
    ObjectNode sts = json(statefulSet("'app':'web'", "'updateStrategy':{'type':'OnDelete'},"));
    strategy.applyDefaults(sts, true);
    assertThat(sts.at("/spec/updateStrategy").toString()).isEqualTo("{\"type\":\"OnDelete\"}");
    assertThat(strategy.validate(avro(sts, StatefulSet.class))).isEmpty();

    assertThat(
            messages(
                strategy.validate(
                    created(
                        "'app':'web'",
                        "'updateStrategy':{'type':'OnDelete','rollingUpdate':{'partition':1}},"))))
        .containsExactly(
            "spec.updateStrategy.rollingUpdate: Invalid value: {}: only allowed for"
                + " updateStrategy 'RollingUpdate'");
  }

  @Test
  void refusesBadPoliciesPartitionsAndSelectors() {
    assertThat(
            messages(
                strategy.validate(
                    created(
                        "'app':'web'",
                        "'podManagementPolicy':'Random','updateStrategy':{'type':'RollingUpdate',"
                            + "'rollingUpdate':{'partition':-1,'maxUnavailable':0}},"
                            + "'persistentVolumeClaimRetentionPolicy':{'whenScaled':'Keep'},"))))
        .containsExactly(
            "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or"
                + " 'Parallel'",
            "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than"
                + " or equal to 0",
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: must be greater"
                + " than 0",
            "spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: \"Keep\":"
                + " supported values: \"Retain\", \"Delete\"");
    assertThat(messages(strategy.validate(created("'app':'other'", ""))))
        .containsExactly(
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}:"
                + " `selector` does not match template `labels`");
  }

  @Test
  void onlyReplicasTemplateStrategyAndRetentionMayChange() {
    StatefulSet old = created("'app':'web'", "");
    StatefulSet scaled = created("'app':'web'", "'replicas':5,'minReadySeconds':3,");
    assertThat(strategy.validateUpdate(scaled, old)).isEmpty();

    StatefulSet renamed = created("'app':'web'", "'podManagementPolicy':'Parallel',");
    assertThat(messages(strategy.validateUpdate(renamed, old)))
        .containsExactly(
            "spec: Forbidden: updates to statefulset spec for fields other than 'replicas',"
                + " 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit',"
                + " 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
  }

  @Test
  void printsKubeApiserversStatefulSetColumns() {
    assertThat(columns(strategy)).containsExactly("Name", "Ready", "Age", "Containers", "Images");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'web'},'spec':{'replicas':3,'template':{'spec':{"
                    + "'containers':[{'name':'a','image':'busybox'},{'name':'b','image':'nginx'}]}}},"
                    + "'status':{'readyReplicas':2}}"))
        .containsExactly("web", "2/3", "60m", "a,b", "busybox,nginx");
  }

  @Test
  void isServedAsStsInTheAllCategoryWithStatusAndScale() {
    ResourceType row =
        ResourceRegistry.kubernetes().byApiVersionKind("apps/v1", "StatefulSet").orElseThrow();

    assertThat(row.shortNames()).containsExactly("sts");
    assertThat(row.categories()).containsExactly("all");
    assertThat(row.subresources())
        .extracting(ResourceType.Subresource::name)
        .containsExactly("scale", "status");
    assertThat(row.strategy().keepsGeneration()).isTrue();
  }
}
