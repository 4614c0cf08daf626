package io.streamplane.bench.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client-side record of every operation the workload sent: when it was invoked and when its
 * answer arrived (nanoseconds since the run started), how it ended, and the resourceVersions it
 * named and got back. Safe to append to from any thread.
 */
public final class Ledger {

  /** How an operation ended, as the client saw it. */
  public enum Outcome {
    /** 2xx: acknowledged. */
    OK,
    /** 4xx: refused, nothing was written. */
    FAILED,
    /** A timeout, a connection error or a 5xx: it may or may not have been applied. */
    UNKNOWN
  }

  /**
   * One operation.
   *
   * @param kind what it did: {@code configmap-create}, {@code deployment-rollout}, ...
   * @param resource the API resource ({@code configmaps}, {@code deployments})
   * @param precondition the resourceVersion it required, or null
   * @param written the value it wrote (a ConfigMap's {@code data.v}), or null
   * @param version the resourceVersion in the answer, or null
   * @param read the value in the answer (a ConfigMap's {@code data.v}), or null
   */
  public record Op(
      long id,
      int client,
      String gateway,
      String kind,
      String resource,
      String namespace,
      String name,
      long invoked,
      long completed,
      Outcome outcome,
      int status,
      String error,
      String precondition,
      String written,
      String version,
      String read) {

    public boolean isWrite() {
      return !kind.endsWith("-read");
    }

    public String key() {
      return resource + "/" + namespace + "/" + name;
    }
  }

  private final long origin;
  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();

  public Ledger(long origin) {
    this.origin = origin;
  }

  /** Nanoseconds since the run started. */
  public long now() {
    return System.nanoTime() - origin;
  }

  public long nextId() {
    return ids.incrementAndGet();
  }

  public void add(Op op) {
    ops.add(op);
  }

  public List<Op> ops() {
    return new ArrayList<>(ops);
  }

  public int size() {
    return ops.size();
  }
}
