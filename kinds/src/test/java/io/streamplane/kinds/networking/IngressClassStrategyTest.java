package io.streamplane.kinds.networking;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.IngressClass;
import org.junit.jupiter.api.Test;

class IngressClassStrategyTest {

  private final IngressClassStrategy strategy = new IngressClassStrategy();

  private IngressClass ingressClass(String spec) {
    return created(
        strategy, "{'metadata':{'name':'nginx'},'spec':" + spec + "}", IngressClass.class);
  }

  @Test
  void parametersAreClusterScopedByDefault() {
    IngressClass c =
        ingressClass("{'controller':'k8s.io/nginx','parameters':{'kind':'P','name':'p'}}");

    assertThat(c.getSpec().getParameters().getScope()).isEqualTo("Cluster");
    assertThat(strategy.validate(c)).isEmpty();
  }

  @Test
  void aControllerIsRequiredAndNamespaceScopedParametersNameTheirNamespace() {
    assertThat(
            messages(
                strategy.validate(
                    ingressClass("{'parameters':{'kind':'P','name':'p','scope':'Namespace'}}"))))
        .containsExactly(
            "spec.controller: Required value",
            "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'");
  }

  @Test
  void theControllerIsImmutable() {
    assertThat(
            messages(
                strategy.validateUpdate(
                    ingressClass("{'controller':'example.com/b'}"),
                    ingressClass("{'controller':'example.com/a'}"))))
        .containsExactly("spec.controller: Invalid value: \"example.com/b\": field is immutable");
  }

  @Test
  void printsControllerAndParameters() {
    assertThat(columns(strategy)).containsExactly("Name", "Controller", "Parameters", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'nginx'},'spec':{'controller':'k8s.io/ingress-nginx',"
                    + "'parameters':{'apiGroup':'k8s.example.com','kind':'IngressParameters',"
                    + "'name':'lb'}}}"))
        .containsExactly(
            "nginx", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/lb", "60m");
    assertThat(row(strategy, "{'metadata':{'name':'a'},'spec':{'controller':'x/y'}}"))
        .containsExactly("a", "x/y", "<none>", "60m");
  }
}
