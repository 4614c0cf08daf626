package io.streamplane.gateway.testing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.cache.ListVersion;
import io.streamplane.gateway.cache.StoredObjects;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.write.CommandLog;
import io.streamplane.log.CommandResult;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.store.CommandPosition;
import io.streamplane.store.Outcome;
import io.streamplane.store.StoreLogic;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The store in memory, for testing the registry without a broker: one partition, each command
 * decided by the store's own {@link StoreLogic} at the next offset, the objects read back as
 * Kubernetes JSON as the watch cache renders them. Every command is remembered, and a test can have
 * another writer change an object just before the registry's next command ({@link
 * #beforeNextCommand}), as a concurrent client would.
 */
public final class InMemoryStore implements CommandLog, StoredObjects {

  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  private final KubeJson json = new KubeJson();
  private final TreeMap<String, ResourceEvent> state = new TreeMap<>();
  private final List<ResourceCommand> commands = new ArrayList<>();
  private Runnable beforeNext;
  private long offset;

  /** Runs {@code write} (once) just before the next command is decided. */
  public void beforeNextCommand(Runnable write) {
    this.beforeNext = write;
  }

  /** The commands decided so far, in order. */
  public List<ResourceCommand> commands() {
    return commands;
  }

  @Override
  public synchronized CommandResult execute(ResourceCommand command, Duration timeout) {
    if (beforeNext != null) {
      Runnable write = beforeNext;
      beforeNext = null;
      write.run();
    }
    commands.add(command);
    String key = ResourceKey.of(command).toString();
    CommandPosition at = new CommandPosition(0, offset, T0.plusSeconds(offset));
    offset++;
    Outcome outcome = StoreLogic.apply(command, at, state.get(key));
    if (outcome.changed()) {
      if (outcome.state() == null) {
        state.remove(key);
      } else {
        state.put(key, outcome.state());
      }
    }
    return outcome.result();
  }

  @Override
  public synchronized Optional<ObjectNode> get(
      String group, String resource, String namespace, String name) {
    ResourceEvent event = state.get(new ResourceKey(resource, group, namespace, name).toString());
    return Optional.ofNullable(event).map(e -> json.toJson(KindObjects.of(e)));
  }

  @Override
  public synchronized WatchCache.Snapshot list(
      String group, String resource, String namespace, Predicate<ObjectNode> filter) {
    List<ObjectNode> items = new ArrayList<>();
    for (ResourceEvent event : state.values()) {
      if (event.getResource().equals(resource)
          && event.getGroup().equals(group)
          && (namespace == null || namespace.equals(event.getNamespace()))) {
        ObjectNode object = json.toJson(KindObjects.of(event));
        if (filter.test(object)) {
          items.add(object);
        }
      }
    }
    return new WatchCache.Snapshot(items, version());
  }

  @Override
  public synchronized ListVersion version() {
    return new ListVersion(new long[] {offset});
  }

  @Override
  public void catchUpWithLog(Duration timeout) {}
}
