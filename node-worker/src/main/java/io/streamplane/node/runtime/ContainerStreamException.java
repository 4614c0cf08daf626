package io.streamplane.node.runtime;

/**
 * Why a runtime cannot stream to a container (exec, attach, port-forward): the HTTP code, the
 * Status reason and the message kubelet would give.
 */
public final class ContainerStreamException extends RuntimeException {

  private final int code;
  private final String reason;

  public ContainerStreamException(int code, String reason, String message) {
    super(message);
    this.code = code;
    this.reason = reason;
  }

  public int code() {
    return code;
  }

  public String reason() {
    return reason;
  }

  /** kubelet's 404 for a pod it does not run. */
  public static ContainerStreamException podNotFound() {
    return new ContainerStreamException(404, "NotFound", "pod does not exist");
  }

  /** kubelet's answer for a container it does not run. */
  public static ContainerStreamException containerNotFound(String container) {
    return new ContainerStreamException(
        500, "InternalError", "container not found (\"" + container + "\")");
  }
}
