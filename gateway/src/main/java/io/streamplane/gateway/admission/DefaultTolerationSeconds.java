package io.streamplane.gateway.admission;

import io.streamplane.schema.admission.DefaultTolerations;

/**
 * kube-apiserver's DefaultTolerationSeconds plugin: a pod created or updated that does not tolerate
 * the {@code node.kubernetes.io/not-ready} or {@code node.kubernetes.io/unreachable} NoExecute
 * taints gets a toleration of each for {@code seconds} (300 by default), so that it is evicted from
 * a node gone silent only after five minutes (see {@link DefaultTolerations}).
 */
public final class DefaultTolerationSeconds implements MutatingAdmission {

  /** kube-apiserver's default for both taints. */
  public static final long KUBERNETES_DEFAULT = DefaultTolerations.DEFAULT_SECONDS;

  private final long seconds;

  public DefaultTolerationSeconds(long seconds) {
    this.seconds = seconds;
  }

  public DefaultTolerationSeconds() {
    this(DefaultTolerations.DEFAULT_SECONDS);
  }

  @Override
  public void admit(AdmissionRequest request) {
    if ((request.operation() == Operation.CREATE || request.operation() == Operation.UPDATE)
        && request.type().group().isEmpty()
        && request.type().plural().equals("pods")
        && request.subresource().isEmpty()
        && request.object() != null) {
      DefaultTolerations.apply(request.object().with("spec"), seconds);
    }
  }
}
