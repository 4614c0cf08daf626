package io.streamplane.kinds.admissionregistration;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ValidatingAdmissionPolicy;
import io.streamplane.kinds.KindFixtures;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidatingAdmissionPolicyStrategyTest {

  private final ValidatingAdmissionPolicyStrategy strategy =
      new ValidatingAdmissionPolicyStrategy();

  private static final String RULES =
      "'matchConstraints':{'resourceRules':[{'apiGroups':['apps'],'apiVersions':['v1'],"
          + "'operations':['CREATE','UPDATE'],'resources':['deployments']}]}";

  private static String policy(String spec) {
    return "{'metadata':{'name':'max-replicas'},'spec':{" + spec + "}}";
  }

  private List<String> problems(String spec) {
    ObjectNode json = json(policy(spec));
    strategy.applyDefaults(json, true);
    return messages(strategy.validate(KindFixtures.avro(json, ValidatingAdmissionPolicy.class)));
  }

  @Test
  void defaultsFailurePolicyAndMatchConstraintsAsKubeApiserver() {
    ObjectNode json = json(policy(RULES));
    strategy.applyDefaults(json, true);

    assertThat(json.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
    assertThat(json.at("/spec/matchConstraints/matchPolicy").asText()).isEqualTo("Equivalent");
    assertThat(json.at("/spec/matchConstraints/namespaceSelector").isObject()).isTrue();
    assertThat(json.at("/spec/matchConstraints/objectSelector").isObject()).isTrue();
    assertThat(json.at("/spec/matchConstraints/resourceRules/0/scope").asText()).isEqualTo("*");
  }

  @Test
  void aPolicyWithCompilingExpressionsIsValid() {
    assertThat(
            problems(
                RULES
                    + ",'variables':[{'name':'replicas','expression':'object.spec.replicas'}],"
                    + "'matchConditions':[{'name':'not-system','expression':"
                    + "'request.namespace != \"kube-system\"'}],"
                    + "'validations':[{'expression':'variables.replicas <= 5',"
                    + "'messageExpression':'\"replicas: \" + string(variables.replicas)',"
                    + "'reason':'Forbidden'}],"
                    + "'auditAnnotations':[{'key':'replicas',"
                    + "'valueExpression':'string(object.spec.replicas)'}]"))
        .isEmpty();
  }

  @Test
  void anExpressionThatDoesNotCompileIsRefusedWithTheCompilerError() {
    assertThat(problems(RULES + ",'validations':[{'expression':'object.spec.replicas <='}]"))
        .singleElement()
        .asString()
        .startsWith(
            "spec.validations[0].expression: Invalid value: \"object.spec.replicas <=\":"
                + " compilation failed: ERROR: <input>:1:");
  }

  @Test
  void paramsAreDeclaredOnlyForAPolicyWithAParamKind() {
    String validations = ",'validations':[{'expression':'object.spec.replicas <= params.max'}]";
    assertThat(problems(RULES + validations))
        .singleElement()
        .asString()
        .contains("compilation failed:")
        .contains("undeclared reference to 'params'");
    assertThat(
            problems(RULES + validations + ",'paramKind':{'apiVersion':'v1','kind':'ConfigMap'}"))
        .isEmpty();
  }

  @Test
  void aVariableIsNamedOnlyAfterItIsDeclared() {
    assertThat(
            problems(
                RULES
                    + ",'variables':[{'name':'a','expression':'variables.b'},"
                    + "{'name':'b','expression':'1'},{'name':'in','expression':'2'}],"
                    + "'validations':[{'expression':'variables.a == variables.b'}]"))
        .containsExactly(
            "spec.variables[0].expression: Invalid value: \"variables.b\": compilation failed:"
                + " ERROR: <input>: undefined field 'b'",
            "spec.variables[2].name: Invalid value: \"in\": name is not a valid CEL identifier");
  }

  @Test
  void requiresMatchConstraintsWithRulesAndValidationsOrAuditAnnotations() {
    assertThat(problems("'failurePolicy':'Sometimes'"))
        .containsExactly(
            "spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\","
                + " \"Ignore\"",
            "spec.matchConstraints: Required value",
            "spec.validations: Required value: validations or auditAnnotations must contain at"
                + " least one item",
            "spec.auditAnnotations: Required value: validations or auditAnnotations must contain"
                + " at least one item");
    assertThat(
            problems(
                "'matchConstraints':{'resourceRules':[{'apiGroups':['apps'],"
                    + "'operations':['CREATE','*'],'resources':['deployments']}]},"
                    + "'validations':[{'expression':'true','reason':'Teapot'}]"))
        .containsExactly(
            "spec.matchConstraints.resourceRules[0].operations: Invalid value: []string{\"CREATE\","
                + " \"*\"}: if '*' is present, must not specify other operations",
            "spec.matchConstraints.resourceRules[0].apiVersions: Required value",
            "spec.validations[0].reason: Unsupported value: \"Teapot\": supported values:"
                + " \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\", \"Unauthorized\"");
  }

  @Test
  void auditAnnotationKeysAreQualifiedWithThePolicyNameAndUnique() {
    assertThat(
            problems(
                RULES
                    + ",'auditAnnotations':[{'key':'ok','valueExpression':'\"x\"'},"
                    + "{'key':'ok','valueExpression':'\"y\"'},{'key':'a b','valueExpression':'1'}]"))
        .containsExactly(
            "spec.auditAnnotations[1].key: Duplicate value: \"ok\"",
            "spec.auditAnnotations[2].key: Invalid value: \"max-replicas/a b\": name part must"
                + " consist of alphanumeric characters, '-', '_' or '.', and must start and end"
                + " with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or"
                + " '123-abc', regex used for validation is"
                + " '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  }

  @Test
  void printsAsKubeApiserverDoes() {
    assertThat(columns(strategy)).containsExactly("Name", "Validations", "ParamKind", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'max-replicas','creationTimestamp':'"
                    + KindFixtures.CREATED
                    + "'},'spec':{'validations':[{'expression':'true'}],"
                    + "'paramKind':{'apiVersion':'v1','kind':'ConfigMap'}}}"))
        .containsExactly("max-replicas", 1L, "v1/ConfigMap", "60m");
    assertThat(
            row(strategy, "{'metadata':{'name':'p','creationTimestamp':'2024-05-01T10:00:00Z'}}"))
        .containsExactly("p", 0L, "<unset>", "60m");
  }

  @Test
  void isServedWithStatusInTheApiExtensionsCategory() {
    ResourceType type =
        ResourceRegistry.kubernetes()
            .served("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies")
            .orElseThrow();
    assertThat(type.namespaced()).isFalse();
    assertThat(type.categories()).containsExactly("api-extensions");
    assertThat(type.subresource("status")).isPresent();
  }
}
