package io.streamplane.kinds.core;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.PodTemplate;
import org.junit.jupiter.api.Test;

class PodTemplateStrategyTest {

  private final PodTemplateStrategy strategy = new PodTemplateStrategy();

  private static final String TEMPLATE =
      "{'metadata':{'name':'t','namespace':'default'},'template':{'metadata':{'labels':"
          + "{'b':'2','a':'1'}},'spec':{'containers':[{'name':'c','image':'busybox'},"
          + "{'name':'d','image':'nginx'}]}}}";

  @Test
  void theTemplatesPodSpecIsDefaulted() {
    PodTemplate template = created(strategy, TEMPLATE, PodTemplate.class);

    assertThat(template.getTemplate().getSpec().getRestartPolicy()).isEqualTo("Always");
    assertThat(template.getTemplate().getSpec().getContainers().get(0).getImagePullPolicy())
        .isEqualTo("Always");
  }

  @Test
  void aTemplateNeedsContainers() {
    assertThat(strategy.validate(created(strategy, TEMPLATE, PodTemplate.class))).isEmpty();
    assertThat(
            messages(
                strategy.validate(
                    created(
                        strategy,
                        "{'metadata':{'name':'t'},'template':{'spec':{}}}",
                        PodTemplate.class))))
        .containsExactly("template.spec.containers: Required value");
  }

  @Test
  void printsContainersImagesAndPodLabels() {
    assertThat(columns(strategy)).containsExactly("Name", "Containers", "Images", "Pod Labels");
    assertThat(row(strategy, TEMPLATE)).containsExactly("t", "c,d", "busybox,nginx", "a=1,b=2");
    assertThat(row(strategy, "{'metadata':{'name':'t'},'template':{}}"))
        .containsExactly("t", "", "", "<none>");
  }
}
