package io.streamplane.schema.convert;

/**
 * A JSON document that cannot be converted to the requested Avro schema (or an Avro datum that does
 * not match its own schema on the way back).
 *
 * <p>The message reads like Kubernetes' decode errors, the field path first: {@code spec.replicas:
 * expected integer, got string "two"}. {@link #path()} is empty when the problem is the document
 * itself. Unchecked, because the gateway turns it into one {@code 400 BadRequest} Status wherever
 * it surfaces.
 */
public final class ConversionException extends RuntimeException {

  private final String path;
  private final String problem;
  private String restoreError;

  public ConversionException(String path, String problem) {
    this(path, problem, null);
  }

  public ConversionException(String path, String problem, Throwable cause) {
    super(path.isEmpty() ? problem : path + ": " + problem, cause);
    this.path = path;
    this.problem = problem;
  }

  /** The Kubernetes-style field path, e.g. {@code spec.containers[0].ports[0].containerPort}. */
  public String path() {
    return path;
  }

  /**
   * For a value of the wrong shape, how Kubernetes' unstructured converter words it ({@code cannot
   * restore map from string}, {@code cannot restore slice from map}, {@code cannot restore struct
   * from: string}); null for other problems.
   */
  public String restoreError() {
    return restoreError;
  }

  ConversionException withRestoreError(String restoreError) {
    this.restoreError = restoreError;
    return this;
  }

  /** The message without the path. */
  public String problem() {
    return problem;
  }
}
