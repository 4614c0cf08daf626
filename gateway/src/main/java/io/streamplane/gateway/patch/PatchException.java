package io.streamplane.gateway.patch;

/**
 * A patch that cannot be applied to an object, with the HTTP answer kube-apiserver would give.
 *
 * <p>Contract: every failure of {@link JsonMergePatch}, {@link JsonPatch} and {@link
 * StrategicMergePatch} caused by the patch or by the object's shape surfaces as this exception,
 * never as a NullPointerException or ClassCastException, so the gateway can turn it into a
 * Kubernetes {@code Status} with {@link #reason()} and {@link #code()}. The message is written for
 * the person who ran kubectl and never contains a stack trace.
 *
 * <p>Limits: where kube-apiserver answers 500 for a malformed strategic merge patch (for errors
 * apimachinery does not classify, e.g. a missing merge key) this exception says 400, because the
 * cause is the request and not the server.
 */
public final class PatchException extends RuntimeException {

  /** The Kubernetes {@code StatusReason} and HTTP code of the failure. */
  public enum Reason {
    BAD_REQUEST(400, "BadRequest"),
    REQUEST_ENTITY_TOO_LARGE(413, "RequestEntityTooLarge"),
    INVALID(422, "Invalid");

    private final int code;
    private final String statusReason;

    Reason(int code, String statusReason) {
      this.code = code;
      this.statusReason = statusReason;
    }

    public int code() {
      return code;
    }

    /** The {@code reason} field of the Kubernetes {@code Status} object. */
    public String statusReason() {
      return statusReason;
    }
  }

  private final Reason reason;

  public PatchException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  static PatchException badRequest(String format, Object... args) {
    return new PatchException(Reason.BAD_REQUEST, String.format(format, args));
  }

  static PatchException invalid(String format, Object... args) {
    return new PatchException(Reason.INVALID, String.format(format, args));
  }

  public Reason reason() {
    return reason;
  }

  public int code() {
    return reason.code();
  }
}
