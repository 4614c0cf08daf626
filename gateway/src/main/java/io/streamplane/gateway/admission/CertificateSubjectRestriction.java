package io.streamplane.gateway.admission;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

/**
 * kube-apiserver's CertificateSubjectRestriction plugin: a CertificateSigningRequest for the signer
 * {@code kubernetes.io/kube-apiserver-client} may not ask for the group {@code system:masters} (an
 * organization of its subject), whoever would approve it; one whose request does not parse is
 * refused too.
 */
public final class CertificateSubjectRestriction implements ValidatingAdmission {

  static final String SIGNER = "kubernetes.io/kube-apiserver-client";
  static final String PRIVILEGED_GROUP = "system:masters";

  private static final String GROUP = "certificates.k8s.io";
  private static final String RESOURCE = "certificatesigningrequests";

  @Override
  public void validate(AdmissionRequest request) {
    if (request.operation() != Operation.CREATE
        || !request.type().group().equals(GROUP)
        || !request.type().plural().equals(RESOURCE)
        || !request.subresource().isEmpty()
        || request.object() == null
        || !request.object().path("spec").path("signerName").asText("").equals(SIGNER)) {
      return;
    }
    PKCS10CertificationRequest csr;
    try {
      csr = parse(request.object().path("spec").path("request").asText(""));
    } catch (IOException | IllegalArgumentException e) {
      throw forbidden(request, "failed to parse CSR: " + e.getMessage());
    }
    for (RDN organization : csr.getSubject().getRDNs(BCStyle.O)) {
      if (PRIVILEGED_GROUP.equals(IETFUtils.valueToString(organization.getFirst().getValue()))) {
        throw forbidden(
            request,
            "use of " + SIGNER + " signer with " + PRIVILEGED_GROUP + " group is not allowed");
      }
    }
  }

  private static PKCS10CertificationRequest parse(String base64) throws IOException {
    String pem = new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      if (parser.readObject() instanceof PKCS10CertificationRequest csr) {
        return csr;
      }
      throw new IllegalArgumentException("PEM block type must be CERTIFICATE REQUEST");
    }
  }

  private static ApiException forbidden(AdmissionRequest request, String cause) {
    return new ApiException(Statuses.forbidden(GROUP, RESOURCE, request.name(), cause));
  }
}
