package io.streamplane.gateway.authn;

import io.streamplane.log.UserInfo;
import java.security.GeneralSecurityException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Client certificates, as kube-apiserver's {@code x509} authenticator with {@code
 * --client-ca-file}: a chain that verifies to one of the client CAs, for client authentication, at
 * the current time, names the user by its subject's common name and its groups by the subject's
 * organizations. A certificate the CAs did not sign, or an expired one, is a 401 ({@code x509:
 * certificate signed by unknown authority}); a request without one is not this authenticator's.
 * Revocation is not checked (kube-apiserver does not either).
 */
public final class X509Authenticator implements Authenticator {

  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String ANY_USAGE = "2.5.29.37.0";

  private final Set<TrustAnchor> anchors;
  private final Clock clock;

  public X509Authenticator(List<X509Certificate> clientCas, Clock clock) {
    this.anchors =
        clientCas.stream().map(ca -> new TrustAnchor(ca, null)).collect(Collectors.toSet());
    this.clock = clock;
  }

  @Override
  public Optional<UserInfo> authenticate(Credentials credentials) throws AuthenticationException {
    List<X509Certificate> chain = credentials.clientCertificates();
    if (chain.isEmpty()) {
      return Optional.empty();
    }
    X509Certificate leaf = chain.get(0);
    verify(chain);
    String user = null;
    List<String> groups = new ArrayList<>();
    try {
      // LdapName lists the RDNs in the certificate's (DER) order, the reverse of the string's.
      for (Rdn rdn : new LdapName(leaf.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          user = rdn.getValue().toString();
        } else if (rdn.getType().equalsIgnoreCase("O")) {
          groups.add(rdn.getValue().toString());
        }
      }
    } catch (InvalidNameException e) {
      throw new AuthenticationException("x509: malformed subject: " + e.getMessage());
    }
    if (user == null || user.isEmpty()) {
      throw new AuthenticationException("common name of user cert is empty");
    }
    return Optional.of(UserInfo.newBuilder().setUsername(user).setGroups(groups).build());
  }

  private void verify(List<X509Certificate> chain) throws AuthenticationException {
    X509Certificate leaf = chain.get(0);
    try {
      List<String> usages = leaf.getExtendedKeyUsage();
      if (usages != null && !usages.contains(CLIENT_AUTH) && !usages.contains(ANY_USAGE)) {
        throw new AuthenticationException(
            failed(leaf, "x509: certificate specifies an incompatible key usage"));
      }
    } catch (java.security.cert.CertificateParsingException e) {
      throw new AuthenticationException(failed(leaf, "x509: " + e.getMessage()));
    }
    if (anchors.isEmpty()) {
      throw new AuthenticationException(
          failed(leaf, "x509: certificate signed by unknown authority"));
    }
    try {
      CertPath path = CertificateFactory.getInstance("X.509").generateCertPath(chain);
      PKIXParameters parameters = new PKIXParameters(anchors);
      parameters.setRevocationEnabled(false);
      parameters.setDate(Date.from(clock.instant()));
      CertPathValidator.getInstance("PKIX").validate(path, parameters);
    } catch (java.security.cert.CertPathValidatorException e) {
      String reason =
          e.getReason() == java.security.cert.CertPathValidatorException.BasicReason.EXPIRED
                  || e.getReason()
                      == java.security.cert.CertPathValidatorException.BasicReason.NOT_YET_VALID
              ? "x509: certificate has expired or is not yet valid"
              : "x509: certificate signed by unknown authority";
      throw new AuthenticationException(failed(leaf, reason));
    } catch (GeneralSecurityException e) {
      throw new AuthenticationException(failed(leaf, "x509: " + e.getMessage()));
    }
  }

  /** kube-apiserver's wording of a failed verification, naming the certificate. */
  private static String failed(X509Certificate leaf, String reason) {
    return "verifying certificate SN="
        + leaf.getSerialNumber()
        + ", subject="
        + leaf.getSubjectX500Principal().getName()
        + " failed: "
        + reason;
  }
}
