package io.streamplane.kinds.certificates;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.CertificateSigningRequest;
import io.streamplane.api.CertificateSigningRequestCondition;
import io.streamplane.api.CertificateSigningRequestSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.HumanDuration;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.log.StatusCause;
import io.streamplane.log.UserInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * certificates.k8s.io/v1 CertificateSigningRequest: its requester recorded in the spec at create
 * (whatever the body said) and its status emptied, so no request arrives approved; conditions
 * without a status are True; a PEM certificate request, a signer, known usages named once each and
 * at least ten minutes of requested validity; the spec never changes; Approved and Denied exclude
 * each other; selectable by {@code spec.signerName}; printed with signer, requestor, requested
 * duration and condition.
 *
 * <p>Limits: the request's PEM block type is checked, not its DER content or signature.
 */
public final class CertificateSigningRequestStrategy implements KindStrategy {

  static final List<String> USAGES =
      List.of(
          "any",
          "cert sign",
          "client auth",
          "code signing",
          "content commitment",
          "crl sign",
          "data encipherment",
          "decipher only",
          "digital signature",
          "email protection",
          "encipher only",
          "ipsec end system",
          "ipsec tunnel",
          "ipsec user",
          "key agreement",
          "key encipherment",
          "microsoft sgc",
          "netscape sgc",
          "ocsp signing",
          "s/mime",
          "server auth",
          "signing",
          "timestamping");

  private static final List<String> CONDITION_STATUSES = List.of("False", "True", "Unknown");
  private static final String PEM_HEADER = "-----BEGIN CERTIFICATE REQUEST-----";

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    for (JsonNode condition : object.path("status").path("conditions")) {
      if (condition instanceof ObjectNode c && c.path("status").asText("").isEmpty()) {
        c.put("status", "True");
      }
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object, UserInfo requester) {
    ObjectNode spec = object.with("spec");
    spec.remove(List.of("username", "uid", "groups", "extra"));
    if (requester != null) {
      spec.put("username", requester.getUsername());
      if (requester.getUid() != null && !requester.getUid().isEmpty()) {
        spec.put("uid", requester.getUid());
      }
      ArrayNode groups = spec.putArray("groups");
      requester.getGroups().forEach(groups::add);
      if (!requester.getExtra().isEmpty()) {
        ObjectNode extra = spec.putObject("extra");
        requester.getExtra().forEach((k, v) -> v.forEach(extra.withArray(k)::add));
      }
    }
    object.putObject("status").putArray("conditions");
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    CertificateSigningRequest csr = (CertificateSigningRequest) object;
    List<StatusCause> causes = new ArrayList<>();
    CertificateSigningRequestSpec spec = csr.getSpec();
    if (spec == null) {
      causes.add(required("spec.request"));
      causes.add(required("spec.signerName"));
      causes.add(required("spec.usages"));
      return causes;
    }
    if (spec.getRequest() == null || spec.getRequest().remaining() == 0) {
      causes.add(required("spec.request"));
    } else if (!pemRequest(spec.getRequest())) {
      causes.add(
          invalid("spec.request", "[]byte{...}", "PEM block type must be CERTIFICATE REQUEST"));
    }
    String signer = spec.getSignerName();
    if (signer == null || signer.isEmpty()) {
      causes.add(required("spec.signerName"));
    } else if (!signer.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9._-]+")) {
      causes.add(
          invalid(
              "spec.signerName",
              "\"" + signer + "\"",
              "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    }
    if (spec.getExpirationSeconds() != null && spec.getExpirationSeconds() < 600) {
      causes.add(
          invalid(
              "spec.expirationSeconds",
              spec.getExpirationSeconds().toString(),
              "may not specify a duration less than 600 seconds (10 minutes)"));
    }
    List<String> usages = spec.getUsages() == null ? List.of() : spec.getUsages();
    if (usages.isEmpty()) {
      causes.add(required("spec.usages"));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < usages.size(); i++) {
      String usage = usages.get(i);
      if (!USAGES.contains(usage)) {
        causes.add(notSupported("spec.usages[" + i + "]", usage, USAGES));
      } else if (!seen.add(usage)) {
        causes.add(duplicate("spec.usages[" + i + "]", usage));
      }
    }
    conditions(csr, causes);
    return causes;
  }

  private static boolean pemRequest(java.nio.ByteBuffer request) {
    byte[] bytes = new byte[request.remaining()];
    request.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.US_ASCII).contains(PEM_HEADER);
  }

  private static void conditions(CertificateSigningRequest csr, List<StatusCause> causes) {
    if (csr.getStatus() == null || csr.getStatus().getConditions() == null) {
      return;
    }
    List<CertificateSigningRequestCondition> conditions = csr.getStatus().getConditions();
    Set<String> types = new HashSet<>();
    for (int i = 0; i < conditions.size(); i++) {
      CertificateSigningRequestCondition c = conditions.get(i);
      String path = "status.conditions[" + i + "]";
      String type = c.getType() == null ? "" : c.getType();
      if (type.isEmpty()) {
        causes.add(required(path + ".type"));
      }
      String status = c.getStatus() == null ? "" : c.getStatus();
      if (!CONDITION_STATUSES.contains(status)) {
        causes.add(notSupported(path + ".status", status, CONDITION_STATUSES));
      }
      if (List.of("Approved", "Denied", "Failed").contains(type) && !types.add(type)) {
        causes.add(duplicate(path + ".type", type));
      }
      if ((type.equals("Approved") || type.equals("Denied")) && !status.equals("True")) {
        causes.add(notSupported(path + ".status", status, List.of("True")));
      }
    }
    if (types.contains("Approved") && types.contains("Denied")) {
      causes.add(
          invalid(
              "status.conditions",
              "\"Approved\"",
              "Approved and Denied conditions are mutually exclusive"));
    }
  }

  /** The spec is the requester's and stays as created. */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    if (!Objects.equals(
        ((CertificateSigningRequest) object).getSpec(),
        ((CertificateSigningRequest) old).getSpec())) {
      causes.add(
          new StatusCause("FieldValueInvalid", "Invalid value: \"\": field is immutable", "spec"));
    }
    return causes;
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.clusterObjectMeta();
    fields.put("spec.signerName", Fields.path("spec.signerName"));
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              age(),
              col(
                  "SignerName",
                  "string",
                  "Requested signer for the request. It is a qualified name in the form:"
                      + " `scope-hostname.io/name`."),
              col("Requestor", "string", "Base64-encoded PKCS#10 CSR data"),
              col(
                  "RequestedDuration",
                  "string",
                  "expirationSeconds is the requested duration of validity of the issued"
                      + " certificate."),
              col(
                  "Condition",
                  "string",
                  "Conditions applied to the request, such as approval or denial.")),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            return List.of(
                name(o),
                age(o, now),
                spec.path("signerName").asText("").isEmpty()
                    ? "<none>"
                    : spec.path("signerName").asText(),
                spec.path("username").asText(""),
                spec.hasNonNull("expirationSeconds")
                    ? HumanDuration.format(
                        Duration.ofSeconds(spec.path("expirationSeconds").asLong()))
                    : "<none>",
                condition(o.path("status")));
          });

  /** {@code extractCSRStatus}: Denied over Approved over Pending, then Failed and Issued. */
  static String condition(JsonNode status) {
    boolean approved = false;
    boolean denied = false;
    boolean failed = false;
    for (JsonNode c : status.path("conditions")) {
      switch (c.path("type").asText("")) {
        case "Approved" -> approved = true;
        case "Denied" -> denied = true;
        case "Failed" -> failed = true;
        default -> {}
      }
    }
    String text = denied ? "Denied" : approved ? "Approved" : "Pending";
    if (failed) {
      text += ",Failed";
    }
    if (!status.path("certificate").asText("").isEmpty()) {
      text += ",Issued";
    }
    return text;
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
