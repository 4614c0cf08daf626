package io.streamplane.node.runtime.process;

import io.streamplane.api.Pod;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of the downward API's {@code fieldRef} paths a container's {@code env} can name, as
 * the kubelet resolves them: {@code metadata.name}, {@code metadata.namespace}, {@code
 * metadata.uid}, {@code metadata.labels['k']}, {@code metadata.annotations['k']}, {@code
 * spec.nodeName}, {@code spec.serviceAccountName}, {@code status.hostIP}, {@code status.podIP} (and
 * the plural forms). An unknown path, or a value the pod does not have, is null.
 */
final class FieldRefs {

  private static final Pattern SUBSCRIPT =
      Pattern.compile("metadata\\.(labels|annotations)\\['([^']+)'\\]");

  private FieldRefs() {}

  static String value(Pod pod, String podIP, String path) {
    if (path == null) {
      return null;
    }
    var meta = pod.getMetadata();
    var spec = pod.getSpec();
    var status = pod.getStatus();
    Matcher subscript = SUBSCRIPT.matcher(path);
    if (subscript.matches()) {
      Map<String, String> values =
          "labels".equals(subscript.group(1)) ? meta.getLabels() : meta.getAnnotations();
      return values == null ? null : values.get(subscript.group(2));
    }
    return switch (path) {
      case "metadata.name" -> meta.getName();
      case "metadata.namespace" -> meta.getNamespace();
      case "metadata.uid" -> meta.getUid();
      case "spec.nodeName" -> spec == null ? null : spec.getNodeName();
      case "spec.serviceAccountName" -> spec == null ? null : spec.getServiceAccountName();
      case "status.hostIP", "status.hostIPs" -> status == null ? null : status.getHostIP();
      case "status.podIP", "status.podIPs" -> podIP;
      default -> null;
    };
  }
}
