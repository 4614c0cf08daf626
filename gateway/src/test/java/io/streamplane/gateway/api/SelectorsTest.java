package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectorsTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final ResourceRegistry registry = ResourceRegistry.kubernetes();

  private static ObjectNode json(String s) throws Exception {
    return (ObjectNode) MAPPER.readTree(s.replace('\'', '"'));
  }

  @Test
  void equalityAndSetRequirementsMatchAsKubernetes() {
    Selectors.LabelSelector s =
        Selectors.parseLabels("app=web, tier in (front, back),env notin (prod),!canary,owner");
    assertThat(s.matches(Map.of("app", "web", "tier", "front", "owner", "me"))).isTrue();
    assertThat(s.matches(Map.of("app", "web", "tier", "front", "owner", "me", "env", "prod")))
        .isFalse();
    assertThat(s.matches(Map.of("app", "web", "tier", "front", "owner", "me", "canary", "")))
        .isFalse();
    assertThat(s.matches(Map.of("app", "web", "tier", "middle", "owner", "me"))).isFalse();
    assertThat(s.matches(Map.of("app", "web", "tier", "front"))).isFalse();
  }

  @Test
  void notEqualsMatchesObjectsWithoutTheLabel() {
    Selectors.LabelSelector s = Selectors.parseLabels("app!=web");
    assertThat(s.matches(Map.of())).isTrue();
    assertThat(s.matches(Map.of("app", "db"))).isTrue();
    assertThat(s.matches(Map.of("app", "web"))).isFalse();
    assertThat(Selectors.parseLabels("app==web").matches(Map.of("app", "web"))).isTrue();
  }

  @Test
  void stringFormIsSortedByKey() {
    assertThat(Selectors.parseLabels("z=1,a in (y,x),!m").toString())
        .isEqualTo("a in (x,y),!m,z=1");
  }

  @Test
  void emptySelectorMatchesEverything() {
    assertThat(Selectors.parseLabels("").isEverything()).isTrue();
    assertThat(Selectors.parseLabels(null).matches(Map.of("a", "b"))).isTrue();
  }

  @Test
  void matchesObjectLabels() throws Exception {
    ObjectNode pod = json("{'metadata':{'name':'p','labels':{'app':'web'}}}");
    assertThat(Selectors.parseLabels("app=web").matches(pod)).isTrue();
    assertThat(Selectors.parseLabels("app=db").matches(pod)).isFalse();
  }

  @Test
  void badLabelSelectorsAreBadRequests() {
    for (String bad : new String[] {"app in", "a b", "app in ()", "=x", "-bad=1", "a=b c"}) {
      assertThatThrownBy(() -> Selectors.parseLabels(bad))
          .as(bad)
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400));
    }
  }

  @Test
  void specSelectorConvertsAsLabelSelectorAsSelector() throws Exception {
    Selectors.LabelSelector s =
        Selectors.fromLabelSelector(
            json(
                "{'matchLabels':{'app':'web'},'matchExpressions':[{'key':'tier','operator':'In','values':['b','a']}]}"));
    assertThat(s.toString()).isEqualTo("app=web,tier in (a,b)");
    assertThat(Selectors.fromLabelSelector(null).matches(Map.of())).isFalse();
    assertThat(Selectors.fromLabelSelector(json("{}")).matches(Map.of())).isTrue();
  }

  @Test
  void podFieldSelectorsMatchNodeAndPhase() throws Exception {
    ResourceType pods = registry.byResource("", "pods").orElseThrow();
    ObjectNode pod =
        json(
            "{'metadata':{'name':'p','namespace':'default'},'spec':{'nodeName':'n1'},'status':{'phase':'Running'}}");
    assertThat(Selectors.parseFields("spec.nodeName=n1,status.phase!=Failed", pods).matches(pod))
        .isTrue();
    assertThat(Selectors.parseFields("spec.nodeName==n2", pods).matches(pod)).isFalse();
    assertThat(Selectors.parseFields("metadata.namespace=default", pods).matches(pod)).isTrue();
    assertThat(Selectors.parseFields("spec.nodeName=", pods).matches(pod)).isFalse();
    assertThat(Selectors.parseFields("spec.nodeName=n1", pods).requiredValue("spec.nodeName"))
        .contains("n1");
  }

  @Test
  void eventAndNodeFieldSelectors() throws Exception {
    ResourceType events = registry.byResource("", "events").orElseThrow();
    ObjectNode event =
        json(
            "{'metadata':{'name':'e'},'involvedObject':{'kind':'Pod','name':'p'},'reason':'Started','source':{'component':'kubelet'}}");
    assertThat(
            Selectors.parseFields(
                    "involvedObject.kind=Pod,involvedObject.name=p,source=kubelet", events)
                .matches(event))
        .isTrue();
    ResourceType nodes = registry.byResource("", "nodes").orElseThrow();
    assertThat(Selectors.parseFields("spec.unschedulable=false", nodes).matches(json("{}")))
        .isTrue();
  }

  @Test
  void unsupportedFieldLabelIsBadRequest() {
    ResourceType pods = registry.byResource("", "pods").orElseThrow();
    assertThatThrownBy(() -> Selectors.parseFields("spec.foo=bar", pods))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(400);
              assertThat(e.getMessage()).isEqualTo("field label not supported: spec.foo");
            });
    ResourceType namespaces = registry.byResource("", "namespaces").orElseThrow();
    assertThatThrownBy(() -> Selectors.parseFields("spec.nodeName=x", namespaces))
        .isInstanceOf(ApiException.class);
    assertThatThrownBy(() -> Selectors.parseFields("nonsense", pods))
        .hasMessage("invalid selector: 'nonsense'; can't understand 'nonsense'");
  }

  @Test
  void escapedCommasStayInValues() throws Exception {
    ResourceType events = registry.byResource("", "events").orElseThrow();
    ObjectNode event = json("{'reason':'a,b'}");
    assertThat(Selectors.parseFields("reason=a\\,b", events).matches(event)).isTrue();
  }
}
