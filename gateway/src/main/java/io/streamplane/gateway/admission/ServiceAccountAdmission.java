package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.schema.admission.ServiceAccountVolume;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * kube-apiserver's ServiceAccount plugin (plugin/pkg/admission/serviceaccount), for pods created:
 *
 * <ul>
 *   <li>mutating: names the ServiceAccount {@code default} when the pod names none; mounts the
 *       projected token volume {@code kube-api-access-xxxxx} at {@code
 *       /var/run/secrets/kubernetes.io/serviceaccount} in every container (see {@link
 *       ServiceAccountVolume}) unless the pod, or else its ServiceAccount, says {@code
 *       automountServiceAccountToken: false}; copies the ServiceAccount's imagePullSecrets when the
 *       pod has none;
 *   <li>validating: the ServiceAccount must exist, else 403 {@code error looking up service account
 *       ns/name: serviceaccount "name" not found}.
 * </ul>
 *
 * <p>Mirror pods (annotation {@code kubernetes.io/config.mirror}) are left alone. As in Kubernetes,
 * a ServiceAccount missing from the cache is looked up again after the cache caught up with the
 * log, and the {@code default} one up to ten times 100-200 ms apart, since the ServiceAccount
 * controller creates it just after its namespace.
 */
public final class ServiceAccountAdmission implements MutatingAdmission, ValidatingAdmission {

  static final String MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";
  private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final int DEFAULT_ACCOUNT_ATTEMPTS = 10;

  private final ClusterObjects objects;
  private final SecureRandom random = new SecureRandom();

  public ServiceAccountAdmission(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (!applies(request)) {
      return;
    }
    ObjectNode spec = request.object().with("spec");
    String name = ServiceAccountVolume.defaultServiceAccount(spec);
    ObjectNode account = lookUp(request, name);
    if (ServiceAccountVolume.shouldAutomount(spec, account)) {
      ServiceAccountVolume.mount(spec, suffix());
    }
    if ((!spec.path("imagePullSecrets").isArray() || spec.path("imagePullSecrets").isEmpty())
        && account.path("imagePullSecrets").isArray()
        && !account.path("imagePullSecrets").isEmpty()) {
      ArrayNode secrets = spec.putArray("imagePullSecrets");
      for (JsonNode secret : account.path("imagePullSecrets")) {
        secrets.addObject().put("name", secret.path("name").asText(""));
      }
    }
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (!applies(request)) {
      return;
    }
    lookUp(request, request.object().path("spec").path("serviceAccountName").asText(""));
  }

  private boolean applies(AdmissionRequest request) {
    return request.operation() == Operation.CREATE
        && request.type().group().isEmpty()
        && request.type().plural().equals("pods")
        && request.subresource().isEmpty()
        && request.object() != null
        && !request.object().path("metadata").path("annotations").has(MIRROR_POD_ANNOTATION);
  }

  private ObjectNode lookUp(AdmissionRequest request, String name) {
    String namespace = request.namespace();
    int attempts =
        name.equals(ServiceAccountVolume.DEFAULT_SERVICE_ACCOUNT) ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
    long pause = 100 + random.nextInt(100);
    for (int attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) {
        try {
          Thread.sleep(pause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      Optional<ObjectNode> account = objects.getFresh("", "serviceaccounts", namespace, name);
      if (account.isPresent()) {
        return account.get();
      }
    }
    throw new ApiException(
        Statuses.forbidden(
            request.type().group(),
            request.type().plural(),
            request.name(),
            "error looking up service account "
                + namespace
                + "/"
                + name
                + ": serviceaccount \""
                + name
                + "\" not found"));
  }

  private String suffix() {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      s.append(NAME_ALPHABET.charAt(random.nextInt(NAME_ALPHABET.length())));
    }
    return s.toString();
  }
}
