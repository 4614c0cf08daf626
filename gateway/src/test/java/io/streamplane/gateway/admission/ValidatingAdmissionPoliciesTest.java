package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValidatingAdmissionPoliciesTest {

  private static final ResourceType DEPLOYMENTS =
      Cluster.REGISTRY.byResource("apps", "deployments").orElseThrow();
  private static final ResourceType POLICIES =
      Cluster.REGISTRY
          .byResource("admissionregistration.k8s.io", "validatingadmissionpolicies")
          .orElseThrow();
  private static final String RULES =
      "'matchConstraints':{'resourceRules':[{'apiGroups':['apps'],'apiVersions':['v1'],"
          + "'operations':['CREATE','UPDATE'],'resources':['deployments']}]}";
  private static final String MAX_REPLICAS =
      "{'metadata':{'name':'max-replicas'},'spec':{'failurePolicy':'Fail',"
          + RULES
          + ","
          + "'validations':[{'expression':'object.spec.replicas <= 5'}]}}";

  private final Cluster cluster =
      new Cluster()
          .with("namespaces", "{'metadata':{'name':'shop','labels':{'env':'prod'}}}")
          .with("namespaces", "{'metadata':{'name':'lab','labels':{'env':'dev'}}}");
  private final ValidatingAdmissionPolicies plugin =
      new ValidatingAdmissionPolicies(cluster, Cluster.REGISTRY);
  private final Map<String, String> audit = new LinkedHashMap<>();

  private Cluster policy(String policy) {
    return cluster.with("admissionregistration.k8s.io/validatingadmissionpolicies", policy);
  }

  private Cluster binding(String name, String spec) {
    return cluster.with(
        "admissionregistration.k8s.io/validatingadmissionpolicybindings",
        "{'metadata':{'name':'" + name + "'},'spec':{" + spec + "}}");
  }

  private AdmissionRequest deployment(String namespace, String name, int replicas) {
    ObjectNode object =
        json(
            "{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'"
                + name
                + "','namespace':'"
                + namespace
                + "','labels':{'app':'"
                + name
                + "'}},'spec':{'replicas':"
                + replicas
                + "}}");
    return new AdmissionRequest(
        Operation.CREATE,
        DEPLOYMENTS,
        "",
        namespace,
        name,
        object,
        null,
        Cluster.ADMIN,
        false,
        audit::put);
  }

  private ObjectNode denial(AdmissionRequest request) {
    ApiException e = catchThrowableOfType(() -> plugin.validate(request), ApiException.class);
    assertThat(e).as("a denial").isNotNull();
    return e.status();
  }

  @Test
  void aDenyBindingRefusesABreakingWriteAsKubeApiserverWordsIt() {
    policy(MAX_REPLICAS);
    binding("max-replicas-binding", "'policyName':'max-replicas','validationActions':['Deny']");

    ObjectNode status = denial(deployment("shop", "web", 7));

    String message =
        "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied"
            + " request: failed expression: object.spec.replicas <= 5";
    assertThat(status.path("code").asInt()).isEqualTo(422);
    assertThat(status.path("reason").asText()).isEqualTo("Invalid");
    assertThat(status.path("message").asText())
        .isEqualTo("deployments.apps \"web\" is forbidden: " + message);
    assertThat(status.at("/details/kind").asText()).isEqualTo("deployments");
    assertThat(status.at("/details/causes/0/message").asText()).isEqualTo(message);
    assertThatCode(() -> plugin.validate(deployment("shop", "small", 3)))
        .doesNotThrowAnyException();
  }

  @Test
  void aPolicyWithoutBindingAndAWriteItDoesNotMatchArePassed() {
    policy(MAX_REPLICAS);
    binding("other", "'policyName':'another-policy','validationActions':['Deny']");
    assertThatCode(() -> plugin.validate(deployment("shop", "web", 9))).doesNotThrowAnyException();

    binding("max-replicas", "'policyName':'max-replicas','validationActions':['Deny']");
    ObjectNode configMap =
        json("{'metadata':{'name':'c','namespace':'shop'},'spec':{'replicas':9}}");
    assertThatCode(
            () ->
                plugin.validate(
                    Cluster.create(
                        Cluster.REGISTRY.byResource("", "configmaps").orElseThrow(),
                        "shop",
                        configMap)))
        .doesNotThrowAnyException();
  }

  @Test
  void theReasonGivesTheCode() {
    policy(MAX_REPLICAS.replace("<= 5'}", "<= 5','reason':'Forbidden','message':'at most 5'}"));
    binding("b", "'policyName':'max-replicas','validationActions':['Deny']");

    ObjectNode status = denial(deployment("shop", "web", 7));

    assertThat(status.path("code").asInt()).isEqualTo(403);
    assertThat(status.path("reason").asText()).isEqualTo("Forbidden");
    assertThat(status.path("message").asText()).endsWith("denied request: at most 5");
  }

  @Test
  void theBindingsMatchResourcesAndTheExclusionsNarrowThePolicy() {
    policy(
        MAX_REPLICAS.replace(
            "'resources':['deployments']}]",
            "'resources':['deployments']}],'excludeResourceRules':[{'apiGroups':['apps'],"
                + "'apiVersions':['*'],'operations':['*'],'resources':['deployments'],"
                + "'resourceNames':['legacy']}]"));
    binding(
        "prod-only",
        "'policyName':'max-replicas','validationActions':['Deny'],"
            + "'matchResources':{'namespaceSelector':{'matchLabels':{'env':'prod'}}}");

    assertThat(denial(deployment("shop", "web", 7))).isNotNull();
    assertThatCode(() -> plugin.validate(deployment("lab", "web", 7))).doesNotThrowAnyException();
    assertThatCode(() -> plugin.validate(deployment("shop", "legacy", 7)))
        .doesNotThrowAnyException();

    binding(
        "prod-only",
        "'policyName':'max-replicas','validationActions':['Deny'],"
            + "'matchResources':{'resourceRules':[{'apiGroups':['apps'],'apiVersions':['v1'],"
            + "'operations':['UPDATE'],'resources':['deployments']}]}");
    assertThatCode(() -> plugin.validate(deployment("shop", "web", 7)))
        .as("a create, which the binding's rules leave out")
        .doesNotThrowAnyException();
  }

  @Test
  void warnAnswersAWarningAndAuditAnnotatesTheAuditEvent() {
    policy(
        MAX_REPLICAS.replace(
            "}]}}",
            "}],'auditAnnotations':[{'key':'replicas',"
                + "'valueExpression':'string(object.spec.replicas)'}]}}"));
    binding("warn", "'policyName':'max-replicas','validationActions':['Warn','Audit']");
    AdmissionRequest request = deployment("shop", "web", 7);

    assertThatCode(() -> plugin.validate(request)).doesNotThrowAnyException();

    assertThat(plugin.warnings(request))
        .containsExactly(
            "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'warn':"
                + " failed expression: object.spec.replicas <= 5");
    assertThat(audit)
        .containsEntry("max-replicas/replicas", "7")
        .containsEntry(
            "validation.policy.admission.k8s.io/validation_failure",
            "[{\"message\":\"failed expression: object.spec.replicas <= 5\","
                + "\"policy\":\"max-replicas\",\"binding\":\"warn\",\"expressionIndex\":0,"
                + "\"validationActions\":[\"Warn\",\"Audit\"]}]");
  }

  @Test
  void paramsComeFromTheReferencedObjectAndAMissingOneFollowsTheBinding() {
    policy(
        "{'metadata':{'name':'limit'},'spec':{'failurePolicy':'Fail',"
            + "'paramKind':{'apiVersion':'v1','kind':'ConfigMap'},"
            + RULES
            + ",'validations':[{'expression':'object.spec.replicas <= int(params.data.max)',"
            + "'messageExpression':'\\\"at most \\\" + params.data.max'}]}}");
    binding(
        "limit",
        "'policyName':'limit','validationActions':['Deny'],"
            + "'paramRef':{'name':'limits','parameterNotFoundAction':'Deny'}");
    cluster.with(
        "configmaps", "{'metadata':{'name':'limits','namespace':'shop'},'data':{'max':'4'}}");

    assertThat(denial(deployment("shop", "web", 5)).path("message").asText())
        .endsWith("with binding 'limit' denied request: at most 4");
    assertThatCode(() -> plugin.validate(deployment("shop", "web", 4))).doesNotThrowAnyException();
    assertThat(denial(deployment("lab", "web", 1)).path("message").asText())
        .endsWith(
            "denied request: failed to configure binding: no params found for policy binding"
                + " with `Deny` parameterNotFoundAction");

    binding(
        "limit",
        "'policyName':'limit','validationActions':['Deny'],"
            + "'paramRef':{'name':'limits','parameterNotFoundAction':'Allow'}");
    assertThatCode(() -> plugin.validate(deployment("lab", "web", 100))).doesNotThrowAnyException();
  }

  @Test
  void aSelectorEvaluatesThePolicyOncePerParam() {
    policy(
        "{'metadata':{'name':'limit'},'spec':{'failurePolicy':'Fail',"
            + "'paramKind':{'apiVersion':'v1','kind':'ConfigMap'},"
            + RULES
            + ",'validations':[{'expression':'object.spec.replicas <= int(params.data.max)',"
            + "'messageExpression':'params.metadata.name'}]}}");
    binding(
        "limit",
        "'policyName':'limit','validationActions':['Warn'],'paramRef':{"
            + "'selector':{'matchLabels':{'limit':'replicas'}},'parameterNotFoundAction':'Allow'}");
    cluster
        .with(
            "configmaps",
            "{'metadata':{'name':'a','namespace':'shop','labels':{'limit':'replicas'}},"
                + "'data':{'max':'2'}}")
        .with(
            "configmaps",
            "{'metadata':{'name':'b','namespace':'shop','labels':{'limit':'replicas'}},"
                + "'data':{'max':'3'}}")
        .with("configmaps", "{'metadata':{'name':'c','namespace':'shop'},'data':{'max':'1'}}");

    assertThat(plugin.warnings(deployment("shop", "web", 3)))
        .containsExactly(
            "Validation failed for ValidatingAdmissionPolicy 'limit' with binding 'limit': a");
  }

  @Test
  void thePoliciesAndBindingsThemselvesAreNeverChecked() {
    policy(
        "{'metadata':{'name':'deny-all'},'spec':{'failurePolicy':'Fail',"
            + "'matchConstraints':{'resourceRules':[{'apiGroups':['*'],'apiVersions':['*'],"
            + "'operations':['*'],'resources':['*']}]},'validations':[{'expression':'false'}]}}");
    binding("deny-all", "'policyName':'deny-all','validationActions':['Deny']");

    assertThatCode(
            () ->
                plugin.validate(
                    Cluster.create(POLICIES, null, json("{'metadata':{'name':'fix'}}"))))
        .doesNotThrowAnyException();
    assertThat(denial(deployment("shop", "web", 1))).isNotNull();
  }
}
