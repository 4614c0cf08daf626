package io.streamplane.kinds.certificates;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.CertificateSigningRequest;
import io.streamplane.log.UserInfo;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CertificateSigningRequestStrategyTest {

  private final CertificateSigningRequestStrategy strategy =
      new CertificateSigningRequestStrategy();

  private static final String PEM =
      Base64.getEncoder()
          .encodeToString(
              "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n"
                  .getBytes(StandardCharsets.US_ASCII));

  private static String csr(String spec, String status) {
    return "{'metadata':{'name':'alice'},'spec':" + spec + ",'status':" + status + "}";
  }

  private static final String SPEC =
      "{'request':'"
          + PEM
          + "','signerName':'kubernetes.io/kube-apiserver-client','usages':['client auth']}";

  @Test
  void theRequesterIsRecordedAndTheStatusEmptiedAtCreate() {
    ObjectNode object =
        json(
            csr(
                "{'request':'" + PEM + "','username':'mallory','groups':['system:masters']}",
                "{'conditions':[{'type':'Approved','status':'True'}]}"));

    strategy.prepareForCreate(
        object,
        UserInfo.newBuilder()
            .setUsername("alice")
            .setUid("u1")
            .setGroups(List.of("devs", "system:authenticated"))
            .setExtra(Map.of("scopes", List.of("read")))
            .build());

    assertThat(object.path("spec").path("username").asText()).isEqualTo("alice");
    assertThat(object.path("spec").path("uid").asText()).isEqualTo("u1");
    assertThat(object.path("spec").path("groups").toString())
        .isEqualTo("[\"devs\",\"system:authenticated\"]");
    assertThat(object.path("spec").path("extra").toString()).isEqualTo("{\"scopes\":[\"read\"]}");
    assertThat(object.path("status").toString()).isEqualTo("{\"conditions\":[]}");
  }

  @Test
  void aRequestNeedsAPemRequestASignerAndKnownUsagesOnce() {
    assertThat(
            strategy.validate(created(strategy, csr(SPEC, "{}"), CertificateSigningRequest.class)))
        .isEmpty();
    String bad =
        "{'request':'"
            + Base64.getEncoder().encodeToString("junk".getBytes(StandardCharsets.US_ASCII))
            + "','signerName':'nodomain','usages':['client auth','client auth','flying'],"
            + "'expirationSeconds':60}";
    assertThat(
            messages(
                strategy.validate(
                    created(strategy, csr(bad, "{}"), CertificateSigningRequest.class))))
        .containsExactly(
            "spec.request: Invalid value: []byte{...}: PEM block type must be CERTIFICATE REQUEST",
            "spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain and"
                + " path of the form 'example.com/signer-name'",
            "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600"
                + " seconds (10 minutes)",
            "spec.usages[1]: Duplicate value: \"client auth\"",
            "spec.usages[2]: Unsupported value: \"flying\": supported values: "
                + String.join(
                    ", ",
                    CertificateSigningRequestStrategy.USAGES.stream()
                        .map(u -> "\"" + u + "\"")
                        .toList()));
  }

  @Test
  void conditionsWithoutAStatusAreTrueAndApprovedExcludesDenied() {
    CertificateSigningRequest csr =
        created(
            strategy,
            csr(SPEC, "{'conditions':[{'type':'Approved'},{'type':'Denied'}]}"),
            CertificateSigningRequest.class);

    assertThat(csr.getStatus().getConditions().get(0).getStatus()).isEqualTo("True");
    assertThat(messages(strategy.validate(csr)))
        .containsExactly(
            "status.conditions: Invalid value: \"Approved\": Approved and Denied conditions are"
                + " mutually exclusive");
  }

  @Test
  void theSpecCannotChange() {
    CertificateSigningRequest old =
        created(strategy, csr(SPEC, "{}"), CertificateSigningRequest.class);
    CertificateSigningRequest changed =
        created(
            strategy,
            csr(SPEC.replace("'client auth'", "'client auth','digital signature'"), "{}"),
            CertificateSigningRequest.class);

    assertThat(messages(strategy.validateUpdate(changed, old)))
        .containsExactly("spec: Invalid value: \"\": field is immutable");
  }

  @Test
  void isSelectableBySignerName() {
    assertThat(strategy.selectableFields().keySet())
        .containsExactly("metadata.name", "spec.signerName");
  }

  @Test
  void printsSignerRequestorDurationAndCondition() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'alice'},'spec':{'signerName':'kubernetes.io/kube-apiserver-client',"
                    + "'username':'alice','expirationSeconds':86400},'status':{'conditions':"
                    + "[{'type':'Approved','status':'True'}],'certificate':'Y2VydA=='}}"))
        .containsExactly(
            "alice",
            "60m",
            "kubernetes.io/kube-apiserver-client",
            "alice",
            "24h",
            "Approved,Issued");
    assertThat(row(strategy, "{'metadata':{'name':'b'},'spec':{}}"))
        .containsExactly("b", "60m", "<none>", "", "<none>", "Pending");
    assertThat(
            CertificateSigningRequestStrategy.condition(
                json("{'conditions':[{'type':'Approved'},{'type':'Denied'},{'type':'Failed'}]}")))
        .isEqualTo("Denied,Failed");
  }
}
