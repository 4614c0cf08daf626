package io.streamplane.cli.replay;

import io.streamplane.bench.measure.Progress;
import io.streamplane.cli.replay.StateComparison.Difference;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.schema.serde.AvroSerde;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.store.CommandPosition;
import io.streamplane.topics.Topics;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * {@code replay --verify}: rebuilds every object twice in fresh memory — by folding {@code events},
 * and by applying {@code commands} through the store's logic — and compares both, byte for byte,
 * with the live state, the store's {@code objects} changelog.
 *
 * <p>What is compared: the store keeps, per key, the whole {@code ResourceEvent} that last changed
 * it (envelope and object), and its changelog holds that event encoded with the events' value
 * serde. The fold of {@code events} keeps the same bytes, and the fold of {@code commands} encodes
 * its states with the same serde, so all three are compared as the encoded events themselves: a
 * changed object, actor, command id or resourceVersion is a difference. A state written by an
 * earlier version of the envelope (another schema fingerprint) is compared as this build reads it,
 * decoded and encoded again, so a log that spans a change of the envelope verifies exactly too.
 *
 * <p>Cuts, so that a running cluster can be verified: every source is read read_committed up to end
 * offsets taken when the verification starts, in this order: {@code events} (E0), the changelog
 * (C), {@code events} again (E). The store writes a change to the changelog and to {@code events}
 * in one transaction, so everything below C has its event below E, and every event below E0 has its
 * changelog record below C. A key whose last event lies in [E0, E) changed while the cuts were
 * taken and is not compared (counted as unsettled); every other key must be equal. {@code commands}
 * are read, per partition, up to the command of the last event below E (an event's resourceVersion
 * is its command's offset): the store had decided every command up to there and none after it that
 * changed anything below E. On an idle cluster E0 = E and every key is compared.
 */
final class Verification {

  private static final int DIFF_LINES = 20;

  private final String bootstrapServers;
  private final Topics topics;
  private final String changelog;
  private final int shown;
  private final Deserializer<ResourceEvent> events;
  private final Serializer<ResourceEvent> eventEncoder;

  Verification(String bootstrapServers, Topics topics, String changelog, int shown) {
    this.bootstrapServers = bootstrapServers;
    this.topics = topics;
    this.changelog = changelog;
    this.shown = shown;
    this.events = topics.events().valueSerde().deserializer();
    this.eventEncoder = topics.events().valueSerde().serializer();
  }

  /**
   * The states, each encoded as this build writes it: a record written with an older envelope
   * schema is decoded (upcast) and encoded again; one in the current schema is kept as it is.
   */
  private TreeMap<String, KeyState> inCurrentEncoding(TreeMap<String, KeyState> states) {
    long current = InMemorySchemaCatalog.fingerprint(ResourceEvent.getClassSchema());
    TreeMap<String, KeyState> encoded = new TreeMap<>();
    states.forEach(
        (key, s) -> {
          byte[] bytes = s.bytes();
          if (bytes.length >= 10
              && ByteBuffer.wrap(bytes, 2, 8).order(ByteOrder.LITTLE_ENDIAN).getLong() != current) {
            ResourceEvent event = s.event() != null ? s.event() : events.deserialize(null, bytes);
            bytes = eventEncoder.serialize(topics.events().name(), event);
            s = new KeyState(bytes, event, s.partition(), s.offset());
          }
          encoded.put(key, s);
        });
    return encoded;
  }

  /** Runs the verification, reporting to {@code out}; returns the exit status (1: differences). */
  int run(PrintWriter out) {
    String eventsTopic = topics.events().name();
    String commandsTopic = topics.commands().name();
    AtomicReference<String> phase = new AtomicReference<>("cuts");
    List<EventFold> liveShares = new ArrayList<>();
    List<EventFold> eventShares = new ArrayList<>();
    List<CommandFold> commandShares = new ArrayList<>();
    EventFold live;
    EventFold fold;
    CommandFold replayed;
    ReplayRate eventsRate;
    ReplayRate commandsRate;
    long[] eventsBefore;
    long[] eventsEnd;
    long[] commandsUntil;
    TreeMap<String, KeyState> liveState;
    TreeMap<String, KeyState> eventState;
    TreeMap<String, KeyState> commandState;
    try (LogReader reader = new LogReader(bootstrapServers);
        Progress progress =
            Progress.start(
                () -> Progress.Status.of(phase.get(), reader.read(), reader.total(), "records"))) {
      int partitions = reader.partitions(eventsTopic);
      if (reader.partitions(commandsTopic) != partitions
          || reader.partitions(changelog) != partitions) {
        throw new IllegalStateException(
            commandsTopic + ", " + eventsTopic + " and " + changelog + " differ in partitions");
      }
      eventsBefore = reader.ends(eventsTopic);
      long[] changelogEnd = reader.ends(changelog);
      eventsEnd = reader.ends(eventsTopic);

      phase.set("live state");
      reader.read(
          changelog,
          changelogEnd,
          LogReader.THREADS,
          thread -> {
            EventFold share = new EventFold();
            liveShares.add(share);
            return (p, o, t, k, v) -> share.addChangelog(p, o, k, v);
          });
      live = EventFold.union(liveShares);
      liveState = inCurrentEncoding(live.raw());

      phase.set("events");
      eventsRate = ReplayRate.start(reader);
      reader.read(
          eventsTopic,
          eventsEnd,
          LogReader.THREADS,
          thread -> {
            EventFold share = new EventFold();
            eventShares.add(share);
            return (p, o, t, k, v) -> share.add(p, o, k, v);
          });
      fold = EventFold.union(eventShares);
      eventState = inCurrentEncoding(fold.state(new EventDecoder(topics)));
      eventsRate.stop(reader);

      commandsUntil = new long[partitions];
      long[] commandsEnd = reader.ends(commandsTopic);
      for (int p = 0; p < partitions; p++) {
        commandsUntil[p] = Math.min(fold.highestResourceVersion(p) + 1, commandsEnd[p]);
      }
      phase.set("commands");
      commandsRate = ReplayRate.start(reader);
      reader.read(
          commandsTopic,
          commandsUntil,
          LogReader.THREADS,
          thread -> {
            CommandFold share = new CommandFold();
            commandShares.add(share);
            AvroSerde<ResourceCommand> decoder =
                new AvroSerde<>(ResourceCommand.class, topics.catalog());
            return (partition, offset, timestamp, key, value) ->
                share.apply(
                    key == null ? null : new String(key, StandardCharsets.UTF_8),
                    decoder.decode(value),
                    new CommandPosition(partition, offset, Instant.ofEpochMilli(timestamp)));
          });
      replayed = CommandFold.union(commandShares);
      commandState = replayed.state(e -> eventEncoder.serialize(eventsTopic, e));
      commandsRate.stop(reader);
      phase.set("compare");
    }

    Set<String> unsettled = new HashSet<>();
    for (Map.Entry<String, KeyState> last : fold.raw().entrySet()) {
      KeyState s = last.getValue();
      if (s.offset() >= eventsBefore[s.partition()]) {
        unsettled.add(last.getKey());
      }
    }
    List<Difference> differences = new ArrayList<>();
    differences.addAll(StateComparison.compare("events", eventState, liveState, unsettled));
    differences.addAll(StateComparison.compare("commands", commandState, liveState, unsettled));

    out.printf(
        "live state  %,10d objects  from %,d records of %s%n",
        liveState.size(), live.records(), changelog);
    out.printf(
        "events      %,10d objects  from %,d events of %s%n",
        eventState.size(), fold.records(), eventsTopic);
    out.printf(
        "commands    %,10d objects  from %,d commands of %s (%,d changed an object)%n",
        commandState.size(), replayed.commands(), commandsTopic, replayed.changes());
    out.println("by kind:    " + byKind(liveState));
    out.println(
        "cut:        events "
            + offsets(eventsEnd)
            + ", commands "
            + offsets(commandsUntil)
            + (unsettled.isEmpty()
                ? ""
                : "; " + unsettled.size() + " keys changed while reading, not compared"));
    out.println(eventsRate.line("events"));
    out.println(commandsRate.line("commands"));
    if (differences.isEmpty()) {
      out.println(
          "verified: events and commands both rebuild the live state byte for byte ("
              + (liveState.size() - unsettledLive(liveState, unsettled))
              + " objects compared)");
      out.flush();
      return 0;
    }
    out.println();
    out.println(
        differences.size()
            + " differences; the first "
            + Math.min(shown, differences.size())
            + ":");
    for (Difference d : differences.subList(0, Math.min(shown, differences.size()))) {
      out.println(d);
      if (d.problem() == StateComparison.Problem.DIFFERENT) {
        ResourceEvent liveEvent = decodeEvent(d.live().bytes());
        ResourceEvent replayedEvent =
            d.replayed().event() != null ? d.replayed().event() : decodeEvent(d.replayed().bytes());
        out.print(EventText.diff(d.source(), liveEvent, replayedEvent, DIFF_LINES));
      }
    }
    out.println("verify FAILED: the log does not rebuild the live state");
    out.flush();
    return 1;
  }

  private ResourceEvent decodeEvent(byte[] bytes) {
    return events.deserialize(topics.events().name(), bytes);
  }

  private static long unsettledLive(Map<String, KeyState> live, Set<String> unsettled) {
    return live.keySet().stream().filter(unsettled::contains).count();
  }

  /** Objects per resource, as {@code pods 12, deployments.apps 3}. */
  static String byKind(Map<String, KeyState> state) {
    Map<String, Integer> counts = new TreeMap<>();
    for (String key : state.keySet()) {
      counts.merge(resourceOf(key), 1, Integer::sum);
    }
    List<String> parts = new ArrayList<>();
    counts.forEach((kind, n) -> parts.add(kind + " " + n));
    return parts.isEmpty() ? "(none)" : String.join(", ", parts);
  }

  /** {@code pods} or {@code deployments.apps}: the resource a key names. */
  static String resourceOf(String key) {
    try {
      ResourceKey k = ResourceKey.parse(key);
      return k.group().isEmpty() ? k.resource() : k.resource() + "." + k.group();
    } catch (IllegalArgumentException e) {
      return "(not a resource key)";
    }
  }

  private static String offsets(long[] offsets) {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < offsets.length; i++) {
      s.append(i == 0 ? "" : " ").append(offsets[i]);
    }
    return s.append(']').toString();
  }
}
