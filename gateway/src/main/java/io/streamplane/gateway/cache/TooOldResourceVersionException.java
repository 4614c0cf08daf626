package io.streamplane.gateway.cache;

/** A watch asked to resume from changes that have left the cache's window: 410 Gone. */
public final class TooOldResourceVersionException extends RuntimeException {

  private final String requested;
  private final String current;

  public TooOldResourceVersionException(String requested, String current) {
    super("too old resource version: " + requested + " (" + current + ")");
    this.requested = requested;
    this.current = current;
  }

  public String requested() {
    return requested;
  }

  public String current() {
    return current;
  }
}
