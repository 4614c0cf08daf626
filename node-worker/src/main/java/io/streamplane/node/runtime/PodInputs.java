package io.streamplane.node.runtime;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.Secret;
import java.util.Map;

/**
 * What a pod's containers read from outside the pod spec, fetched by the node before the start: the
 * ConfigMaps and Secrets of its namespace that its volumes, {@code env} and {@code envFrom} name
 * (by name; one that does not exist is absent), and the variables every container gets for reaching
 * the API server ({@code KUBERNETES_SERVICE_HOST}, {@code KUBERNETES_SERVICE_PORT}), and the
 * ServiceAccount tokens its projected volumes hold, by {@link #tokenKey} (requested with
 * TokenRequest, bound to the pod), and the files the node writes for the pod, by their path in its
 * containers ({@code /etc/resolv.conf}, {@code /etc/hosts}), and the directories the node's volume
 * manager published the pod's CSI volumes at ({@code persistentVolumeClaim} and {@code csi}
 * volumes), by volume name.
 */
public record PodInputs(
    Map<String, ConfigMap> configMaps,
    Map<String, Secret> secrets,
    Map<String, String> serviceEnv,
    Map<String, String> serviceAccountTokens,
    Map<String, String> podFiles,
    Map<String, String> mountedVolumes) {

  public static final PodInputs NONE = new PodInputs(Map.of(), Map.of(), Map.of());

  public PodInputs {
    configMaps = Map.copyOf(configMaps);
    secrets = Map.copyOf(secrets);
    serviceEnv = Map.copyOf(serviceEnv);
    serviceAccountTokens = Map.copyOf(serviceAccountTokens);
    podFiles = Map.copyOf(podFiles);
    mountedVolumes = Map.copyOf(mountedVolumes);
  }

  public PodInputs(
      Map<String, ConfigMap> configMaps,
      Map<String, Secret> secrets,
      Map<String, String> serviceEnv,
      Map<String, String> serviceAccountTokens,
      Map<String, String> podFiles) {
    this(configMaps, secrets, serviceEnv, serviceAccountTokens, podFiles, Map.of());
  }

  /** These inputs with the pod's published volumes. */
  public PodInputs withMountedVolumes(Map<String, String> mounted) {
    return new PodInputs(configMaps, secrets, serviceEnv, serviceAccountTokens, podFiles, mounted);
  }

  public PodInputs(
      Map<String, ConfigMap> configMaps, Map<String, Secret> secrets, Map<String, String> env) {
    this(configMaps, secrets, env, Map.of(), Map.of());
  }

  /** Where a token is kept: the projected volume's name and the token's path in it. */
  public static String tokenKey(String volume, String path) {
    return volume + "/" + path;
  }
}
