package io.streamplane.node;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.EnvFromSource;
import io.streamplane.api.EnvVar;
import io.streamplane.api.Pod;
import io.streamplane.api.Secret;
import io.streamplane.api.Volume;
import io.streamplane.api.VolumeProjection;
import io.streamplane.node.runtime.PodInputs;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads the ConfigMaps and Secrets a pod refers to through the gateway, as the kubelet does before
 * it creates the containers, and checks that what is required exists.
 *
 * <p>Contract: every ConfigMap and Secret named by a volume, an {@code env[].valueFrom} key ref or
 * an {@code envFrom} source is read once. A missing object, or a missing key of a key ref, that is
 * not marked {@code optional} fails the future with a {@link MissingInput} whose message is the
 * kubelet's ({@code configmap "x" not found}, {@code couldn't find key k in ConfigMap ns/x}).
 *
 * <p>For a runtime that runs processes it also gives what the kubelet derives from the cluster: the
 * Services' variables ({@link ServiceEnv}: the {@code kubernetes} Service's always, those of the
 * pod's namespace unless {@code enableServiceLinks: false}), read when the pod starts, and the
 * pod's {@code /etc/resolv.conf} and {@code /etc/hosts} ({@link PodDns}). Without a {@code
 * kubernetes} Service, {@code KUBERNETES_SERVICE_HOST} names the gateway the node talks to.
 */
final class PodInputsResolver {

  /** A required ConfigMap, Secret or key that does not exist: CreateContainerConfigError. */
  static final class MissingInput extends RuntimeException {
    MissingInput(String message) {
      super(message);
    }
  }

  /**
   * The API did not answer, or answered that it cannot serve now (5xx, 429): the start is tried
   * again after the kubelet's pod worker back-off, as the kubelet retries a sync that failed, not
   * after a container's doubling one.
   */
  static final class Unavailable extends RuntimeException {
    Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Whether {@code reply} says the API cannot serve the request now. */
  static boolean unavailable(GatewayClient.Reply reply) {
    return reply.status() >= 500 || reply.status() == 429;
  }

  private final GatewayClient api;
  private final PodDns dns;
  private final Map<String, String> serviceEnv;

  /** {@code dns} null: a runtime without processes, which needs no Services nor files. */
  PodInputsResolver(GatewayClient api, PodDns dns) {
    this.api = api;
    this.dns = dns;
    URI server = URI.create(api.apiServer());
    int port = server.getPort() > 0 ? server.getPort() : 443;
    this.serviceEnv =
        Map.of(
            "KUBERNETES_SERVICE_HOST", server.getHost(),
            "KUBERNETES_SERVICE_PORT", Integer.toString(port),
            "KUBERNETES_PORT", "tcp://" + server.getHost() + ":" + port);
  }

  CompletableFuture<PodInputs> resolve(Pod pod, String podIP) {
    Set<String> configMapNames = new LinkedHashSet<>();
    Set<String> secretNames = new LinkedHashSet<>();
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    Map<String, String> tokens = new LinkedHashMap<>();
    for (Volume volume : list(pod.getSpec().getVolumes())) {
      if (volume.getConfigMap() != null) {
        configMapNames.add(volume.getConfigMap().getName());
      }
      if (volume.getSecret() != null) {
        secretNames.add(volume.getSecret().getSecretName());
      }
      if (volume.getProjected() != null) {
        for (VolumeProjection source : list(volume.getProjected().getSources())) {
          if (source.getConfigMap() != null) {
            configMapNames.add(source.getConfigMap().getName());
          }
          if (source.getSecret() != null) {
            secretNames.add(source.getSecret().getName());
          }
          if (source.getServiceAccountToken() != null) {
            reads.add(
                ServiceAccountTokenRequest.request(api, pod, source.getServiceAccountToken())
                    .thenAccept(
                        token -> {
                          synchronized (tokens) {
                            tokens.put(
                                PodInputs.tokenKey(
                                    volume.getName(), source.getServiceAccountToken().getPath()),
                                token.token());
                          }
                        }));
          }
        }
      }
    }
    for (Container container : containers(pod)) {
      for (EnvVar var : list(container.getEnv())) {
        if (var.getValueFrom() != null && var.getValueFrom().getConfigMapKeyRef() != null) {
          configMapNames.add(var.getValueFrom().getConfigMapKeyRef().getName());
        }
        if (var.getValueFrom() != null && var.getValueFrom().getSecretKeyRef() != null) {
          secretNames.add(var.getValueFrom().getSecretKeyRef().getName());
        }
      }
      for (EnvFromSource from : list(container.getEnvFrom())) {
        if (from.getConfigMapRef() != null) {
          configMapNames.add(from.getConfigMapRef().getName());
        }
        if (from.getSecretRef() != null) {
          secretNames.add(from.getSecretRef().getName());
        }
      }
    }
    String namespace = pod.getMetadata().getNamespace();
    Map<String, ConfigMap> configMaps = new LinkedHashMap<>();
    Map<String, Secret> secrets = new LinkedHashMap<>();
    for (String name : configMapNames) {
      reads.add(read(namespace, "configmaps", name, ConfigMap.class, configMaps));
    }
    for (String name : secretNames) {
      reads.add(read(namespace, "secrets", name, Secret.class, secrets));
    }
    CompletableFuture<Map<String, String>> env = serviceEnv(pod);
    reads.add(env.thenAccept(e -> {}));
    Map<String, String> files =
        dns == null
            ? Map.of()
            : Map.of("/etc/resolv.conf", dns.resolvConf(pod), "/etc/hosts", dns.hosts(pod, podIP));
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
        .thenApply(
            v -> {
              PodInputs inputs = new PodInputs(configMaps, secrets, env.join(), tokens, files);
              check(pod, inputs);
              return inputs;
            })
        .handle(
            (inputs, failure) -> {
              if (failure == null) {
                return inputs;
              }
              for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                if (cause instanceof IOException) {
                  throw new Unavailable("the API did not answer: " + cause, cause);
                }
              }
              throw failure instanceof CompletionException completion
                  ? completion
                  : new CompletionException(failure);
            });
  }

  /** The Services' variables of the pod (see the class comment). */
  private CompletableFuture<Map<String, String>> serviceEnv(Pod pod) {
    if (dns == null) {
      return CompletableFuture.completedFuture(serviceEnv);
    }
    String namespace = pod.getMetadata().getNamespace();
    boolean links = !Boolean.FALSE.equals(pod.getSpec().getEnableServiceLinks());
    CompletableFuture<List<JsonNode>> inNamespace =
        links
            ? list("/api/v1/namespaces/" + namespace + "/services")
            : CompletableFuture.completedFuture(List.of());
    CompletableFuture<List<JsonNode>> master =
        api.get("/api/v1/namespaces/default/services/kubernetes")
            .thenApply(reply -> reply.ok() ? List.of(reply.body()) : List.<JsonNode>of());
    return inNamespace.thenCombine(
        master,
        (own, kubernetes) -> {
          Map<String, String> env =
              new LinkedHashMap<>(kubernetes.isEmpty() ? serviceEnv : Map.of());
          List<JsonNode> services = new ArrayList<>(kubernetes);
          for (JsonNode service : own) {
            // The master Service is listed once; in another namespace, one of its name wins.
            if (!(namespace.equals("default")
                && service.at("/metadata/name").asText().equals("kubernetes"))) {
              services.add(service);
            }
          }
          env.putAll(ServiceEnv.of(services));
          return env;
        });
  }

  private CompletableFuture<List<JsonNode>> list(String path) {
    return api.get(path)
        .thenApply(
            reply -> {
              if (unavailable(reply)) {
                throw new Unavailable("list " + path + ": " + reply, null);
              }
              if (!reply.ok()) {
                throw new IllegalStateException("list " + path + ": " + reply);
              }
              List<JsonNode> items = new ArrayList<>();
              reply.body().path("items").forEach(items::add);
              return items;
            });
  }

  private <T extends org.apache.avro.specific.SpecificRecord> CompletableFuture<Void> read(
      String namespace, String resource, String name, Class<T> type, Map<String, T> into) {
    return api.get("/api/v1/namespaces/" + namespace + "/" + resource + "/" + name)
        .thenAccept(
            reply -> {
              if (reply.status() == 404) {
                return;
              }
              if (unavailable(reply)) {
                throw new Unavailable("read " + resource + " " + name + ": " + reply, null);
              }
              if (!reply.ok()) {
                throw new IllegalStateException("read " + resource + " " + name + ": " + reply);
              }
              synchronized (into) {
                into.put(name, api.decode(reply, type));
              }
            });
  }

  /** Fails with the kubelet's message when something required is missing. */
  static void check(Pod pod, PodInputs inputs) {
    String namespace = pod.getMetadata().getNamespace();
    for (Volume volume : list(pod.getSpec().getVolumes())) {
      var configMap = volume.getConfigMap();
      if (configMap != null
          && !Boolean.TRUE.equals(configMap.getOptional())
          && !inputs.configMaps().containsKey(configMap.getName())) {
        throw new MissingInput("configmap \"" + configMap.getName() + "\" not found");
      }
      var secret = volume.getSecret();
      if (secret != null
          && !Boolean.TRUE.equals(secret.getOptional())
          && !inputs.secrets().containsKey(secret.getSecretName())) {
        throw new MissingInput("secret \"" + secret.getSecretName() + "\" not found");
      }
      if (volume.getProjected() != null) {
        for (VolumeProjection source : list(volume.getProjected().getSources())) {
          var projected = source.getConfigMap();
          if (projected != null
              && !Boolean.TRUE.equals(projected.getOptional())
              && !inputs.configMaps().containsKey(projected.getName())) {
            throw new MissingInput("configmap \"" + projected.getName() + "\" not found");
          }
        }
      }
    }
    for (Container container : containers(pod)) {
      for (EnvFromSource from : list(container.getEnvFrom())) {
        var cm = from.getConfigMapRef();
        if (cm != null
            && !Boolean.TRUE.equals(cm.getOptional())
            && !inputs.configMaps().containsKey(cm.getName())) {
          throw new MissingInput("configmap \"" + cm.getName() + "\" not found");
        }
        var s = from.getSecretRef();
        if (s != null
            && !Boolean.TRUE.equals(s.getOptional())
            && !inputs.secrets().containsKey(s.getName())) {
          throw new MissingInput("secret \"" + s.getName() + "\" not found");
        }
      }
      for (EnvVar var : list(container.getEnv())) {
        var from = var.getValueFrom();
        if (from == null) {
          continue;
        }
        var cmKey = from.getConfigMapKeyRef();
        if (cmKey != null && !Boolean.TRUE.equals(cmKey.getOptional())) {
          ConfigMap cm = inputs.configMaps().get(cmKey.getName());
          if (cm == null) {
            throw new MissingInput("configmap \"" + cmKey.getName() + "\" not found");
          }
          if (cm.getData() == null || !cm.getData().containsKey(cmKey.getKey())) {
            throw new MissingInput(
                "couldn't find key "
                    + cmKey.getKey()
                    + " in ConfigMap "
                    + namespace
                    + "/"
                    + cmKey.getName());
          }
        }
        var secretKey = from.getSecretKeyRef();
        if (secretKey != null && !Boolean.TRUE.equals(secretKey.getOptional())) {
          Secret secret = inputs.secrets().get(secretKey.getName());
          if (secret == null) {
            throw new MissingInput("secret \"" + secretKey.getName() + "\" not found");
          }
          if (secret.getData() == null || !secret.getData().containsKey(secretKey.getKey())) {
            throw new MissingInput(
                "couldn't find key "
                    + secretKey.getKey()
                    + " in Secret "
                    + namespace
                    + "/"
                    + secretKey.getName());
          }
        }
      }
    }
  }

  private static List<Container> containers(Pod pod) {
    List<Container> all = new ArrayList<>(list(pod.getSpec().getInitContainers()));
    all.addAll(list(pod.getSpec().getContainers()));
    return all;
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
