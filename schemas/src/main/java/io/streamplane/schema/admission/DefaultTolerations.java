package io.streamplane.schema.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What Kubernetes' DefaultTolerationSeconds admission plugin adds to a pod: a NoExecute toleration
 * of {@code node.kubernetes.io/not-ready} and of {@code node.kubernetes.io/unreachable} for {@code
 * seconds} (kube-apiserver's {@code --default-not-ready-toleration-seconds} and {@code
 * --default-unreachable-toleration-seconds}, 300 s), each unless the pod already tolerates that
 * taint: a toleration whose key is the taint's or empty and whose effect is NoExecute or empty.
 *
 * <p>A pure function of the pod spec (Kubernetes JSON), shared by the gateway's admission plugin
 * and the controllers that write pods to the log themselves, so that both give pods the same
 * tolerations.
 */
public final class DefaultTolerations {

  public static final String NOT_READY = "node.kubernetes.io/not-ready";
  public static final String UNREACHABLE = "node.kubernetes.io/unreachable";
  public static final long DEFAULT_SECONDS = 300;

  private DefaultTolerations() {}

  /** Adds the missing default tolerations to {@code podSpec} in place; true if it changed. */
  public static boolean apply(ObjectNode podSpec, long seconds) {
    boolean notReady = false;
    boolean unreachable = false;
    for (JsonNode toleration : podSpec.path("tolerations")) {
      String key = toleration.path("key").asText("");
      String effect = toleration.path("effect").asText("");
      boolean noExecute = effect.isEmpty() || effect.equals("NoExecute");
      notReady |= noExecute && (key.isEmpty() || key.equals(NOT_READY));
      unreachable |= noExecute && (key.isEmpty() || key.equals(UNREACHABLE));
    }
    if (notReady && unreachable) {
      return false;
    }
    ArrayNode tolerations =
        podSpec.path("tolerations") instanceof ArrayNode list
            ? list
            : podSpec.putArray("tolerations");
    if (!notReady) {
      add(tolerations, NOT_READY, seconds);
    }
    if (!unreachable) {
      add(tolerations, UNREACHABLE, seconds);
    }
    return true;
  }

  private static void add(ArrayNode tolerations, String key, long seconds) {
    tolerations
        .addObject()
        .put("key", key)
        .put("operator", "Exists")
        .put("effect", "NoExecute")
        .put("tolerationSeconds", seconds);
  }
}
