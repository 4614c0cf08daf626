package io.streamplane.kinds.admissionregistration;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ValidatingAdmissionPolicyBinding;
import io.streamplane.kinds.KindFixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidatingAdmissionPolicyBindingStrategyTest {

  private final ValidatingAdmissionPolicyBindingStrategy strategy =
      new ValidatingAdmissionPolicyBindingStrategy();

  private List<String> problems(String spec) {
    ObjectNode json = json("{'metadata':{'name':'b'},'spec':{" + spec + "}}");
    strategy.applyDefaults(json, true);
    return messages(
        strategy.validate(KindFixtures.avro(json, ValidatingAdmissionPolicyBinding.class)));
  }

  @Test
  void aBindingNamesItsPolicyAndAtLeastOneAction() {
    assertThat(problems("'policyName':'max-replicas','validationActions':['Deny']")).isEmpty();
    assertThat(problems(""))
        .containsExactly(
            "spec.policyName: Required value",
            "spec.validationActions: Required value: at least one validation action is required");
  }

  @Test
  void denyAndWarnAreExclusiveAndActionsKnownAndUnique() {
    assertThat(
            problems("'policyName':'p','validationActions':['Deny','Warn','Audit','Audit','Log']"))
        .containsExactly(
            "spec.validationActions[3]: Duplicate value: \"Audit\"",
            "spec.validationActions[4]: Unsupported value: \"Log\": supported values: \"Audit\","
                + " \"Deny\", \"Warn\"",
            "spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"
                + "\"Deny\", \"Warn\", \"Audit\", \"Audit\", \"Log\"}: must not contain both Deny"
                + " and Warn (repeating the same validation failure information in the API"
                + " response and headers serves no purpose)");
  }

  @Test
  void aParamRefHasANameOrASelectorAndAParameterNotFoundAction() {
    assertThat(
            problems(
                "'policyName':'p','validationActions':['Deny'],"
                    + "'paramRef':{'name':'limits','namespace':'default',"
                    + "'parameterNotFoundAction':'Deny'}"))
        .isEmpty();
    assertThat(problems("'policyName':'p','validationActions':['Deny'],'paramRef':{}"))
        .containsExactly(
            "spec.paramRef: Required value: one of name or selector must be specified",
            "spec.paramRef.parameterNotFoundAction: Required value");
    assertThat(
            problems(
                "'policyName':'p','validationActions':['Deny'],'paramRef':{'name':'a',"
                    + "'selector':{},'parameterNotFoundAction':'Maybe'}"))
        .containsExactly(
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.parameterNotFoundAction: Unsupported value: \"Maybe\": supported"
                + " values: \"Deny\", \"Allow\"");
  }

  @Test
  void printsAsKubeApiserverDoes() {
    assertThat(columns(strategy)).containsExactly("Name", "PolicyName", "ParamRef", "Age");
    String meta = "'metadata':{'name':'b','creationTimestamp':'" + KindFixtures.CREATED + "'}";
    assertThat(row(strategy, "{" + meta + ",'spec':{'policyName':'p'}}"))
        .containsExactly("b", "p", "<unset>", "60m");
    assertThat(row(strategy, "{" + meta + ",'spec':{'policyName':'p','paramRef':{'name':'x'}}}"))
        .containsExactly("b", "p", "*/x", "60m");
    assertThat(
            row(
                strategy,
                "{" + meta + ",'spec':{'policyName':'p','paramRef':{'name':'x','namespace':'n'}}}"))
        .containsExactly("b", "p", "n/x", "60m");
  }
}
