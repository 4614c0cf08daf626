package io.streamplane.gateway.controller;

import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.cache.WatchEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A work queue of namespaces for a gateway-side controller, as client-go's workqueue: a namespace
 * queued several times before it is synced is synced once; changes of the watched resources in the
 * gateway's cache queue their namespace; every namespace is queued again every {@code resync}; a
 * sync that fails is tried again after {@code retry}. One thread runs the syncs.
 */
final class NamespaceQueue implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NamespaceQueue.class);

  private final String name;
  private final WatchCache cache;
  private final Consumer<String> sync;
  private final Duration retry;
  private final LinkedHashSet<String> queued = new LinkedHashSet<>();
  private final List<WatchCache.Registration> watches = new ArrayList<>();
  private final ScheduledExecutorService timer;
  private final Thread worker;
  private volatile boolean running = true;

  NamespaceQueue(String name, WatchCache cache, Consumer<String> sync, Duration retry) {
    this.name = name;
    this.cache = cache;
    this.sync = sync;
    this.retry = retry;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, name + "-resync");
              thread.setDaemon(true);
              return thread;
            });
    this.worker = new Thread(this::work, name);
    this.worker.setDaemon(true);
  }

  /** Queues the namespace of every change of {@code group/resource} (a namespace's own name). */
  NamespaceQueue watch(String group, String resource) {
    return watch(group, resource, change -> true);
  }

  /**
   * Queues the namespace of the changes of {@code group/resource} that {@code relevant} accepts (a
   * namespace's own name).
   */
  NamespaceQueue watch(String group, String resource, Predicate<WatchEvent> relevant) {
    boolean namespaces = group.isEmpty() && resource.equals("namespaces");
    watches.add(
        cache.watch(
            group,
            resource,
            null,
            relevant,
            change -> {
              var metadata = change.object().path("metadata");
              String namespace =
                  namespaces
                      ? metadata.path("name").asText("")
                      : metadata.path("namespace").asText("");
              if (!namespace.isEmpty()) {
                add(namespace);
              }
            }));
    return this;
  }

  /** Starts the worker and queues every namespace every {@code resync}. */
  NamespaceQueue start(Duration resync) {
    worker.start();
    timer.scheduleWithFixedDelay(
        () ->
            cache
                .list("", "namespaces", null, o -> true)
                .items()
                .forEach(ns -> add(ns.path("metadata").path("name").asText())),
        resync.toMillis(),
        resync.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
  }

  void add(String namespace) {
    synchronized (queued) {
      if (queued.add(namespace)) {
        queued.notifyAll();
      }
    }
  }

  private void work() {
    while (running) {
      String namespace;
      synchronized (queued) {
        while (queued.isEmpty() && running) {
          try {
            queued.wait(1000);
          } catch (InterruptedException e) {
            return;
          }
        }
        if (!running) {
          return;
        }
        namespace = queued.iterator().next();
        queued.remove(namespace);
      }
      try {
        sync.accept(namespace);
      } catch (RuntimeException e) {
        LOG.debug("{}: could not sync namespace {}: {}", name, namespace, e.toString());
        if (running) {
          timer.schedule(() -> add(namespace), retry.toMillis(), TimeUnit.MILLISECONDS);
        }
      }
    }
  }

  @Override
  public void close() {
    running = false;
    for (WatchCache.Registration watch : watches) {
      try {
        watch.close();
      } catch (Exception e) {
        LOG.debug("{}: could not stop a watch: {}", name, e.toString());
      }
    }
    timer.shutdownNow();
    worker.interrupt();
  }
}
