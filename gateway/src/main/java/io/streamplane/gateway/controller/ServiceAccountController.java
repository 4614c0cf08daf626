package io.streamplane.gateway.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.gateway.storage.WriteOptions;
import io.streamplane.kinds.ResourceType;
import io.streamplane.schema.admission.ServiceAccountVolume;
import java.util.Optional;

/**
 * kube-controller-manager's ServiceAccount controller and root-CA publisher, for one namespace at a
 * time: every active namespace has the ServiceAccount {@code default} (created when missing,
 * created again when deleted) and, when the cluster's CA is known, the ConfigMap {@code
 * kube-root-ca.crt} whose {@code ca.crt} is that CA (created when missing, its data put back when
 * changed), which the projected token volume of every pod reads. A namespace being terminated is
 * left alone.
 *
 * <p>Writes go through the {@link ResourceService}, so through admission, as the controller's
 * writes through kube-apiserver do; when several gateways race, the store answers the second create
 * AlreadyExists and the update Conflict, and the next sync sees the winner's object.
 */
final class ServiceAccountController {

  static final String ROOT_CA_DESCRIPTION =
      "Contains a CA bundle that can be used to verify the kube-apiserver when using internal"
          + " endpoints such as the internal service IP or kubernetes.default.svc. No other usage"
          + " is guaranteed across distributions of Kubernetes clusters.";

  private final WatchCache cache;
  private final ResourceService service;
  private final ResourceType serviceAccounts;
  private final ResourceType configMaps;
  private final WriteOptions options;
  private volatile String rootCa;

  /** {@code rootCa}: the cluster CA's PEM, or null to publish none. */
  ServiceAccountController(
      WatchCache cache,
      ResourceService service,
      ResourceType serviceAccounts,
      ResourceType configMaps,
      WriteOptions options,
      String rootCa) {
    this.cache = cache;
    this.service = service;
    this.serviceAccounts = serviceAccounts;
    this.configMaps = configMaps;
    this.options = options;
    this.rootCa = rootCa;
  }

  void rootCa(String pem) {
    this.rootCa = pem;
  }

  void sync(String namespace) {
    Optional<ObjectNode> ns = cache.get("", "namespaces", null, namespace);
    if (ns.isEmpty()
        || ns.get().path("metadata").has("deletionTimestamp")
        || !"Active".equals(ns.get().path("status").path("phase").asText("Active"))) {
      return;
    }
    if (cache
        .get("", "serviceaccounts", namespace, ServiceAccountVolume.DEFAULT_SERVICE_ACCOUNT)
        .isEmpty()) {
      ObjectNode account = JsonNodeFactory.instance.objectNode();
      account.putObject("metadata").put("name", ServiceAccountVolume.DEFAULT_SERVICE_ACCOUNT);
      createIgnoringExisting(serviceAccounts, namespace, account);
    }
    String pem = rootCa;
    if (pem != null) {
      publishRootCa(namespace, pem);
    }
  }

  private void publishRootCa(String namespace, String rootCa) {
    Optional<ObjectNode> existing =
        cache.get("", "configmaps", namespace, ServiceAccountVolume.ROOT_CA_CONFIG_MAP);
    if (existing.isEmpty()) {
      ObjectNode configMap = JsonNodeFactory.instance.objectNode();
      configMap
          .putObject("metadata")
          .put("name", ServiceAccountVolume.ROOT_CA_CONFIG_MAP)
          .putObject("annotations")
          .put("kubernetes.io/description", ROOT_CA_DESCRIPTION);
      configMap.putObject("data").put("ca.crt", rootCa);
      createIgnoringExisting(configMaps, namespace, configMap);
      return;
    }
    JsonNode data = existing.get().path("data");
    if (data.size() == 1 && rootCa.equals(data.path("ca.crt").asText(null))) {
      return;
    }
    ObjectNode updated = existing.get().deepCopy();
    updated.putObject("data").put("ca.crt", rootCa);
    service.update(
        configMaps, namespace, ServiceAccountVolume.ROOT_CA_CONFIG_MAP, updated, options);
  }

  private void createIgnoringExisting(ResourceType type, String namespace, ObjectNode object) {
    try {
      service.create(type, namespace, object, options);
    } catch (ApiException e) {
      // AlreadyExists: another gateway was first. Forbidden/NotFound: the namespace is going.
      if (e.code() != 409 && e.code() != 403 && e.code() != 404) {
        throw e;
      }
    }
  }
}
