package io.streamplane.schema.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What Kubernetes' ServiceAccount admission plugin does to a pod's spec once it knows the pod's
 * ServiceAccount: names the ServiceAccount {@code default} when the pod names none, and, when the
 * token is to be mounted, adds the projected volume {@code kube-api-access-xxxxx} (a bound token
 * for 3607 s, {@code ca.crt} from the ConfigMap {@code kube-root-ca.crt}, the pod's namespace from
 * the downward API) and its read-only mount at {@value #MOUNT_PATH} in every container and init
 * container that has nothing mounted there yet. An existing {@code kube-api-access-} volume is
 * reused, as the plugin does.
 *
 * <p>A pure function of the pod spec (Kubernetes JSON), shared by the gateway's plugin and the
 * controllers that write pods to the log themselves.
 */
public final class ServiceAccountVolume {

  public static final String DEFAULT_SERVICE_ACCOUNT = "default";
  public static final String MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
  public static final String VOLUME_PREFIX = "kube-api-access-";
  public static final String ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";

  /** kube-apiserver's WarnOnlyBoundTokenExpirationSeconds: an hour and seven seconds. */
  public static final int TOKEN_EXPIRATION_SECONDS = 3607;

  private ServiceAccountVolume() {}

  /** Names the {@code default} ServiceAccount when the pod names none; returns the name. */
  public static String defaultServiceAccount(ObjectNode podSpec) {
    String name = podSpec.path("serviceAccountName").asText("");
    if (name.isEmpty()) {
      name = DEFAULT_SERVICE_ACCOUNT;
      podSpec.put("serviceAccountName", name);
    }
    return name;
  }

  /**
   * Kubernetes' shouldAutomount: the pod's {@code automountServiceAccountToken} when set, else the
   * ServiceAccount's ({@code serviceAccount} may be null: unknown), else true.
   */
  public static boolean shouldAutomount(JsonNode podSpec, JsonNode serviceAccount) {
    if (podSpec.path("automountServiceAccountToken").isBoolean()) {
      return podSpec.get("automountServiceAccountToken").asBoolean();
    }
    if (serviceAccount != null && serviceAccount.path("automountServiceAccountToken").isBoolean()) {
      return serviceAccount.get("automountServiceAccountToken").asBoolean();
    }
    return true;
  }

  /**
   * Mounts the token volume in every container of {@code podSpec} in place; {@code suffix} is the
   * five random characters of a new volume's name.
   */
  public static void mount(ObjectNode podSpec, String suffix) {
    String volumeName = null;
    for (JsonNode volume : podSpec.path("volumes")) {
      if (volume.path("name").asText("").startsWith(VOLUME_PREFIX)) {
        volumeName = volume.path("name").asText();
        break;
      }
    }
    boolean hasVolume = volumeName != null;
    if (!hasVolume) {
      volumeName = VOLUME_PREFIX + suffix;
    }
    boolean needsVolume = false;
    for (String list : new String[] {"initContainers", "containers"}) {
      for (JsonNode node : podSpec.path(list)) {
        if (!(node instanceof ObjectNode container)) {
          continue;
        }
        boolean mounted = false;
        for (JsonNode mount : container.path("volumeMounts")) {
          mounted |= mount.path("mountPath").asText("").equals(MOUNT_PATH);
        }
        if (!mounted) {
          ArrayNode mounts =
              container.path("volumeMounts") instanceof ArrayNode existing
                  ? existing
                  : container.putArray("volumeMounts");
          mounts
              .addObject()
              .put("name", volumeName)
              .put("readOnly", true)
              .put("mountPath", MOUNT_PATH);
          needsVolume = true;
        }
      }
    }
    if (!hasVolume && needsVolume) {
      ArrayNode volumes =
          podSpec.path("volumes") instanceof ArrayNode existing
              ? existing
              : podSpec.putArray("volumes");
      ObjectNode projected = volumes.addObject().put("name", volumeName).putObject("projected");
      projected.put("defaultMode", 420);
      ArrayNode sources = projected.putArray("sources");
      sources
          .addObject()
          .putObject("serviceAccountToken")
          .put("expirationSeconds", TOKEN_EXPIRATION_SECONDS)
          .put("path", "token");
      ObjectNode configMap = sources.addObject().putObject("configMap");
      configMap.put("name", ROOT_CA_CONFIG_MAP);
      configMap.putArray("items").addObject().put("key", "ca.crt").put("path", "ca.crt");
      ObjectNode item = sources.addObject().putObject("downwardAPI").putArray("items").addObject();
      item.put("path", "namespace");
      item.putObject("fieldRef").put("apiVersion", "v1").put("fieldPath", "metadata.namespace");
    }
  }
}
