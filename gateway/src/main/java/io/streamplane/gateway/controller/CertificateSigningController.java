package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.pki.CertificateAuthority;
import io.streamplane.gateway.pki.Pem;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.kinds.ResourceType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code csrsigning} controller for the signer {@code
 * kubernetes.io/kube-apiserver-client}: an approved, not failed, not yet issued request of that
 * signer gets a client certificate from the cluster CA in {@code status.certificate} (PEM), valid
 * for its {@code expirationSeconds} (at least ten minutes) and at most a year; a request whose
 * usages are not those of a client certificate, or that does not parse, gets a {@code Failed}
 * condition ({@code SignerValidationFailure}) instead. Both are written through the status
 * subresource.
 *
 * <p>{@link #sign} is the decision, a pure function of the request; the controller around it reacts
 * to the changes of requests in the gateway's cache and looks at every request when it starts.
 * Limits: the other signers ({@code kubernetes.io/kube-apiserver-client-kubelet}, {@code
 * kubernetes.io/kubelet-serving}) are left to others, as kube-controller-manager leaves unknown
 * signers; a write that conflicts waits for the next change of the request.
 */
public final class CertificateSigningController implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CertificateSigningController.class);

  static final String SIGNER = "kubernetes.io/kube-apiserver-client";

  /** kube-controller-manager's {@code --cluster-signing-duration} default. */
  static final Duration MAX_DURATION = Duration.ofDays(365);

  private static final Duration MIN_DURATION = Duration.ofMinutes(10);

  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread thread = new Thread(r, "csrsigning-controller");
            thread.setDaemon(true);
            return thread;
          });
  private final WatchCache.Registration watch;

  private CertificateSigningController(
      WatchCache cache,
      ResourceService service,
      ResourceType type,
      CertificateAuthority ca,
      WriteOptions options,
      Clock clock) {
    this.watch =
        cache.watch(
            type.group(),
            type.plural(),
            null,
            event -> !event.type().equals("DELETED"),
            event ->
                worker.execute(() -> write(service, type, event.object(), ca, options, clock)));
    for (ObjectNode csr : cache.list(type.group(), type.plural(), null, o -> true).items()) {
      worker.execute(() -> write(service, type, csr, ca, options, clock));
    }
  }

  /** Signs the requests of the CertificateSigningRequests {@code type} in {@code cache}. */
  public static CertificateSigningController start(
      WatchCache cache,
      ResourceService service,
      ResourceType type,
      CertificateAuthority ca,
      WriteOptions options) {
    return new CertificateSigningController(cache, service, type, ca, options, Clock.systemUTC());
  }

  private static void write(
      ResourceService service,
      ResourceType type,
      ObjectNode csr,
      CertificateAuthority ca,
      WriteOptions options,
      Clock clock) {
    Optional<ObjectNode> signed = sign(csr, ca, clock.instant());
    if (signed.isEmpty()) {
      return;
    }
    String name = csr.path("metadata").path("name").asText();
    try {
      service.updateStatus(type, null, name, signed.get(), options);
    } catch (ApiException e) {
      LOG.debug(
          "could not write the status of CertificateSigningRequest {}: {}", name, e.getMessage());
    }
  }

  /**
   * The request with the status the signer gives it: a certificate, or a Failed condition; empty
   * when it is not this signer's to sign now (another signer, not approved, denied, failed or
   * issued already).
   */
  static Optional<ObjectNode> sign(ObjectNode csr, CertificateAuthority ca, Instant now) {
    JsonNode spec = csr.path("spec");
    JsonNode status = csr.path("status");
    if (!spec.path("signerName").asText("").equals(SIGNER)
        || !status.path("certificate").asText("").isEmpty()
        || !hasCondition(status, "Approved")
        || hasCondition(status, "Denied")
        || hasCondition(status, "Failed")) {
      return Optional.empty();
    }
    ObjectNode answered = csr.deepCopy();
    try {
      List<String> usages = new ArrayList<>();
      spec.path("usages").forEach(u -> usages.add(u.asText()));
      int keyUsage = clientKeyUsage(usages);
      PKCS10CertificationRequest request = parse(spec.path("request").binaryValue());
      Duration validity = MAX_DURATION;
      if (spec.hasNonNull("expirationSeconds")) {
        Duration asked = Duration.ofSeconds(spec.path("expirationSeconds").asLong());
        validity = asked.compareTo(MIN_DURATION) < 0 ? MIN_DURATION : asked;
        validity = validity.compareTo(MAX_DURATION) > 0 ? MAX_DURATION : validity;
      }
      X509Certificate certificate =
          ca.sign(request, validity, keyUsage, List.of(KeyPurposeId.id_kp_clientAuth));
      answered
          .with("status")
          .put(
              "certificate",
              Base64.getEncoder()
                  .encodeToString(Pem.encode(certificate).getBytes(StandardCharsets.US_ASCII)));
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      ObjectNode failed = answered.with("status").withArray("conditions").addObject();
      failed.put("type", "Failed");
      failed.put("status", "True");
      failed.put("reason", "SignerValidationFailure");
      failed.put("message", e.getMessage());
      failed.put(
          "lastUpdateTime",
          DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS)));
    }
    return Optional.of(answered);
  }

  /**
   * {@code validAPIServerClientUsages}: client auth required, digital signature and key
   * encipherment allowed; the key usage bits of the certificate.
   */
  static int clientKeyUsage(List<String> usages) {
    boolean clientAuth = false;
    int bits = 0;
    for (String usage : usages) {
      switch (usage) {
        case "digital signature" -> bits |= KeyUsage.digitalSignature;
        case "key encipherment" -> bits |= KeyUsage.keyEncipherment;
        case "client auth" -> clientAuth = true;
        default ->
            throw new IllegalArgumentException("invalid usage for client certificate: " + usage);
      }
    }
    if (!clientAuth) {
      throw new IllegalArgumentException(
          "missing required usage for client certificate: client auth");
    }
    return bits == 0 ? KeyUsage.digitalSignature : bits;
  }

  private static PKCS10CertificationRequest parse(byte[] pem) throws IOException {
    try (PEMParser parser =
        new PEMParser(new java.io.StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
      Object object = parser.readObject();
      if (object instanceof PKCS10CertificationRequest request) {
        return request;
      }
      throw new IllegalArgumentException("PEM block type must be CERTIFICATE REQUEST");
    }
  }

  private static boolean hasCondition(JsonNode status, String type) {
    for (JsonNode condition : status.path("conditions")) {
      if (condition.path("type").asText("").equals(type)
          && condition.path("status").asText("True").equals("True")) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    try {
      watch.close();
    } catch (Exception e) {
      LOG.debug("could not stop watching CertificateSigningRequests: {}", e.toString());
    }
    worker.shutdownNow();
  }
}
