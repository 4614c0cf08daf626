package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.gateway.admission.PolicyEvaluation.AuditAnnotation;
import io.streamplane.gateway.admission.PolicyEvaluation.Decision;
import io.streamplane.gateway.admission.PolicyEvaluation.Inputs;
import io.streamplane.gateway.admission.PolicyEvaluation.Result;
import org.junit.jupiter.api.Test;

class PolicyEvaluationTest {

  private static final JsonNode DEPLOYMENT =
      json(
          "{'metadata':{'name':'web','namespace':'shop','labels':{'app':'web'}},"
              + "'spec':{'replicas':7}}");
  private static final JsonNode REQUEST =
      json("{'operation':'CREATE','namespace':'shop','userInfo':{'username':'alice'}}");

  private static Result evaluate(String spec) {
    return evaluate(spec, null);
  }

  private static Result evaluate(String spec, JsonNode params) {
    return PolicyEvaluation.evaluate(
        json("{'metadata':{'name':'p'},'spec':{" + spec + "}}"),
        new Inputs(
            DEPLOYMENT,
            null,
            REQUEST,
            params,
            json("{'metadata':{'name':'shop','labels':{'env':'prod'}}}")));
  }

  @Test
  void aTrueValidationAdmitsAndAFalseOneDeniesWithTheExpressionAsMessage() {
    Result result =
        evaluate(
            "'validations':[{'expression':'object.spec.replicas > 0'},"
                + "{'expression':' object.spec.replicas <= 5 '}]");

    assertThat(result.decisions())
        .containsExactly(
            new Decision(false, false, null, null, 0),
            new Decision(
                true, false, "failed expression: object.spec.replicas <= 5", "Invalid", 1));
  }

  @Test
  void theMessageExpressionWinsOverTheMessageUnlessItFailsOrIsEmpty() {
    assertThat(
            evaluate(
                    "'validations':[{'expression':'false','message':'static',"
                        + "'messageExpression':'\\\"replicas \\\" + string(object.spec.replicas)',"
                        + "'reason':'Forbidden'}]")
                .decisions())
        .containsExactly(new Decision(true, false, "replicas 7", "Forbidden", 0));
    assertThat(
            evaluate(
                    "'validations':[{'expression':'false','message':' static ',"
                        + "'messageExpression':'object.spec.missing'},"
                        + "{'expression':'false','message':'m','messageExpression':'\\\"  \\\"'}]")
                .decisions())
        .extracting(Decision::message)
        .containsExactly("static", "m");
  }

  @Test
  void aFalseMatchConditionSkipsThePolicyAndAnErrorFollowsTheFailurePolicy() {
    assertThat(
            evaluate(
                "'matchConditions':[{'name':'prod','expression':'namespaceObject.metadata.labels.env"
                    + " == \\\"dev\\\"'}],'validations':[{'expression':'false'}]"))
        .isEqualTo(new Result(java.util.List.of(), java.util.List.of()));

    Result failing =
        evaluate(
            "'matchConditions':[{'name':'broken','expression':'object.spec.nothing == 1'}],"
                + "'validations':[{'expression':'false'}]");
    assertThat(failing.decisions())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.deny()).isTrue();
              assertThat(d.error()).isTrue();
              assertThat(d.message())
                  .startsWith("expression 'object.spec.nothing == 1' resulted in error: ");
            });

    Result ignored =
        evaluate(
            "'failurePolicy':'Ignore','matchConditions':[{'name':'broken',"
                + "'expression':'object.spec.nothing == 1'}],'validations':[{'expression':'false'}]");
    assertThat(ignored.decisions()).singleElement().satisfies(d -> assertThat(d.deny()).isFalse());
  }

  @Test
  void variablesSeeTheOnesBeforeThemAndTheValidationsSeeAll() {
    Result result =
        evaluate(
            "'variables':[{'name':'replicas','expression':'object.spec.replicas'},"
                + "{'name':'doubled','expression':'variables.replicas * 2'}],"
                + "'validations':[{'expression':'variables.doubled == 14'},"
                + "{'expression':'variables.replicas < 3',"
                + "'messageExpression':'\\\"too many: \\\" + string(variables.doubled)'}]");

    assertThat(result.decisions())
        .extracting(Decision::deny, Decision::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(false, null),
            org.assertj.core.groups.Tuple.tuple(true, "too many: 14"));
  }

  @Test
  void paramsRequestAndNamespaceObjectAreBound() {
    Result result =
        evaluate(
            "'paramKind':{'apiVersion':'v1','kind':'ConfigMap'},'validations':["
                + "{'expression':'object.spec.replicas <= int(params.data.max)'},"
                + "{'expression':'request.userInfo.username == \\\"alice\\\"'},"
                + "{'expression':'namespaceObject.metadata.labels.env == \\\"prod\\\"'},"
                + "{'expression':'oldObject == null'}]",
            json("{'data':{'max':'10'}}"));

    assertThat(result.decisions()).extracting(Decision::deny).containsOnly(false);
  }

  @Test
  void anEvaluationErrorDeniesUnderFailAndAdmitsUnderIgnore() {
    assertThat(evaluate("'validations':[{'expression':'object.spec.nothing > 1'}]").decisions())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.deny()).isTrue();
              assertThat(d.error()).isTrue();
              assertThat(d.reason()).isNull();
            });
    assertThat(
            evaluate(
                    "'failurePolicy':'Ignore','validations':[{'expression':'object.spec.nothing"
                        + " > 1'}]")
                .decisions())
        .singleElement()
        .satisfies(d -> assertThat(d.deny()).isFalse());
  }

  @Test
  void auditAnnotationsPublishStringsLeaveOutNullsAndFailOnOtherTypes() {
    Result result =
        evaluate(
            "'auditAnnotations':[{'key':'replicas','valueExpression':'\\\" \\\" +"
                + " string(object.spec.replicas)'},{'key':'none','valueExpression':'null'},"
                + "{'key':'empty','valueExpression':'\\\"\\\"'},"
                + "{'key':'number','valueExpression':'object.spec.replicas'}]");

    assertThat(result.auditAnnotations()).containsExactly(new AuditAnnotation("replicas", "7"));
    assertThat(result.decisions())
        .singleElement()
        .extracting(Decision::message)
        .isEqualTo(
            "valueExpression 'object.spec.replicas' resulted in unsupported return type: int."
                + " Return type must be either string or null.");
  }

  @Test
  void kubernetesLibrariesAreThereAndAnExpressionPastItsCostLimitIsCancelled() {
    assertThat(
            evaluate(
                    "'validations':[{'expression':"
                        + "'quantity(\\\"512Mi\\\").isLessThan(quantity(\\\"1Gi\\\"))"
                        + " && [3, 1].max() == 3'}]")
                .decisions())
        .containsExactly(new Decision(false, false, null, null, 0));
    Result result =
        evaluate(
            "'validations':[{'expression':"
                + "'[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(a, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(b,"
                + " [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(c, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(d,"
                + " [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(e, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(f,"
                + " a + b + c + d + e + f)))))).size() > 0'}]");
    assertThat(result.decisions()).hasSize(1);
    assertThat(result.decisions().get(0).deny()).isTrue();
    assertThat(result.decisions().get(0).message())
        .endsWith("resulted in error: operation cancelled: actual cost limit exceeded");
  }
}
