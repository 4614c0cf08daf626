package io.streamplane.controller;

import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A controller, as Kubernetes' sample-controller is one: it says which keys an event touches, keeps
 * what it needs of the events in its cache, builds its view of a key from that cache, and
 * reconciles a key as a pure function of the view, the writes it still has pending and the time,
 * returning the writes to make and when to look again. Registered with {@link
 * ControllerManager#register}, it runs in a {@link ControllerProcessor}, which owns everything
 * else: the re-keying, the work queue (one reconcile per queued key per batch of input, however
 * many events queued it), the timers of {@link Result#requeueAt}, the expectations of what was sent
 * and not yet observed, and the commands. All of that is state-store state, so it commits with the
 * input that caused it and survives a crash or a rebalance.
 *
 * <p>Stores: the processor gives a controller named {@code n} the stores {@code n-objects} (its
 * cache, {@link ControllerCache}), {@code n-queue} and {@code n-expectations}, plus any it declares
 * in {@link #stores}.
 *
 * <p>Contract: {@link #keysOf} and {@link #reduce} run before the re-keying and see every event;
 * {@link #observe} and {@link #view} run on the key's task and may only touch the cache; {@link
 * #reconcile} is pure and must be deterministic in its arguments. A reconcile's intents are sent
 * unless a write to the same object is still pending; only writes whose effect comes back to the
 * same key through {@link #keysOf} may be made, or they stay pending until {@link
 * #expectationTimeout()}.
 *
 * @param <V> what the controller knows of one key
 */
public interface Controller<V> {

  /** One write to make, and who makes it (the controller's service account). */
  record Decision(Intent intent, UserInfo actor) {}

  /**
   * What a reconcile decided: the writes to make, the moment to reconcile the key again if only
   * time can change the answer (null: when input arrives; controller-runtime's RequeueAfter), and
   * whether the key's cache can be forgotten ({@link #forget}).
   */
  record Result(List<Decision> decisions, Instant requeueAt, boolean forget) {

    public Result {
      decisions = List.copyOf(decisions);
    }

    public static Result of(List<Decision> decisions, Instant requeueAt) {
      return new Result(decisions, requeueAt, false);
    }

    public static Result nothing() {
      return new Result(List.of(), null, false);
    }

    /** The same decisions, looked at again no later than {@code at}. */
    public Result requeueNoLaterThan(Instant at) {
      Instant earliest = requeueAt == null || at.isBefore(requeueAt) ? at : requeueAt;
      return new Result(decisions, earliest, forget);
    }

    /** The same decisions, and the key's cache forgotten after they are sent. */
    public Result forgetting() {
      return new Result(decisions, requeueAt, true);
    }

    /** The decisions, each intent with its actor, in the order given. */
    public static List<Decision> by(UserInfo actor, List<Intent> intents) {
      List<Decision> decisions = new ArrayList<>();
      intents.forEach(intent -> decisions.add(new Decision(intent, actor)));
      return decisions;
    }
  }

  /**
   * Names the controller's stores, its work queue's metrics ({@code workqueue_*{name=...}}) and,
   * unless {@link #rekeyedAs()} says otherwise, its re-keyed topic.
   */
  String name();

  /** The name of the re-keyed topic, {@code <application id>-<this>-repartition}. */
  default String rekeyedAs() {
    return name() + "-by-key";
  }

  /**
   * The keys an event touches: client-go's event handlers, which queue the keys of the objects an
   * informer's change concerns. An event may touch several keys, or none.
   */
  List<String> keysOf(ResourceEvent event);

  /** The event as the re-keyed topic carries it: the controller may reduce it to what it reads. */
  default ResourceEvent reduce(ResourceEvent event) {
    return event;
  }

  /**
   * Records {@code event} (written at {@code timestampMs}) in the cache of {@code key}; returns
   * whether the key needs a reconcile.
   */
  boolean observe(String key, ResourceEvent event, long timestampMs, ControllerCache cache);

  /** What the controller knows of {@code key}, read from its cache. */
  V view(String key, ControllerCache cache);

  /**
   * Decides the writes that bring {@code key} to where its view says it should be, at {@code now}.
   * Pure; {@code expectations} are the key's writes still pending, which the controller may consult
   * (a ReplicaSet with creates pending creates no more) but not change.
   */
  Result reconcile(String key, V view, Expectations expectations, Instant now);

  /** Drops the cache of {@code key} after a reconcile that said {@link Result#forgetting()}. */
  default void forget(String key, ControllerCache cache) {}

  /**
   * The keys to reconcile when a task starts, besides those its queue already holds: for a
   * controller whose decisions depend on when it started watching (client-go's initial list).
   */
  default List<String> resync(ControllerCache cache) {
    return List.of();
  }

  /** How long a write may stay unobserved before it is decided again. */
  default Duration expectationTimeout() {
    return Expectations.TIMEOUT;
  }

  /**
   * The stores the controller needs besides its cache, reached with {@link ControllerCache#store},
   * each made by {@code supplier} from its name (RocksDB in a cluster, memory in a test).
   */
  default List<StoreBuilder<?>> stores(Function<String, KeyValueBytesStoreSupplier> supplier) {
    return List.of();
  }
}
