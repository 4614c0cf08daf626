package io.streamplane.cli.replay;

import static io.streamplane.cli.replay.ReplayFixtures.EVENTS;
import static io.streamplane.cli.replay.ReplayFixtures.bytes;
import static io.streamplane.cli.replay.ReplayFixtures.encoded;
import static io.streamplane.cli.replay.ReplayFixtures.event;
import static io.streamplane.cli.replay.ReplayFixtures.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class EventFoldTest {

  @Test
  void theLastEventOfEachKeyIsItsStateAndOnlyThoseAreDecoded() {
    EventFold fold = new EventFold();
    ResourceEvent a1 = event(EventType.ADDED, "a", "one", 0);
    ResourceEvent a2 = event(EventType.MODIFIED, "a", "two", 3);
    ResourceEvent b1 = event(EventType.ADDED, "b", "one", 1);
    fold.add(0, 0, bytes(key("default", "a")), encoded(a1));
    fold.add(1, 0, bytes(key("default", "b")), encoded(b1));
    fold.add(0, 1, bytes(key("default", "a")), encoded(a2));
    List<ResourceEvent> decoded = new ArrayList<>();

    TreeMap<String, KeyState> state =
        fold.state(
            b -> {
              ResourceEvent e = EVENTS.decode(b);
              decoded.add(e);
              return e;
            });

    assertThat(state).containsOnlyKeys(key("default", "a"), key("default", "b"));
    assertThat(state.get(key("default", "a")).bytes()).isEqualTo(encoded(a2));
    assertThat(state.get(key("default", "a")).offset()).isEqualTo(1);
    assertThat(decoded).containsExactlyInAnyOrder(a2, b1);
    assertThat(fold.records()).isEqualTo(3);
    assertThat(fold.highestResourceVersion(0)).isEqualTo(3);
    assertThat(fold.highestResourceVersion(1)).isEqualTo(1);
    assertThat(fold.highestResourceVersion(2)).isEqualTo(-1);
  }

  @Test
  void aKeyWhoseLastEventIsDeletedIsGoneAndComesBackWhenAddedAgain() {
    EventFold fold = new EventFold();
    fold.add(0, 0, bytes(key("default", "a")), encoded(event(EventType.ADDED, "a", "one", 0)));
    fold.add(0, 1, bytes(key("default", "b")), encoded(event(EventType.ADDED, "b", "one", 1)));
    fold.add(0, 2, bytes(key("default", "a")), encoded(event(EventType.DELETED, "a", "one", 2)));
    fold.add(0, 3, bytes(key("default", "b")), encoded(event(EventType.DELETED, "b", "one", 3)));
    ResourceEvent again = event(EventType.ADDED, "b", "new", 4);
    fold.add(0, 4, bytes(key("default", "b")), encoded(again));

    TreeMap<String, KeyState> state = fold.state(EVENTS::decode);

    assertThat(state).containsOnlyKeys(key("default", "b"));
    assertThat(state.get(key("default", "b")).event()).isEqualTo(again);
  }

  @Test
  void aChangelogTombstoneRemovesItsKey() {
    EventFold live = new EventFold();
    live.addChangelog(0, 0, bytes("k1"), bytes("v1"));
    live.addChangelog(0, 1, bytes("k2"), bytes("v2"));
    live.addChangelog(0, 2, bytes("k1"), null);
    live.addChangelog(0, 3, bytes("k2"), bytes("v3"));

    TreeMap<String, KeyState> state = live.raw();

    assertThat(state).containsOnlyKeys("k2");
    assertThat(state.get("k2").bytes()).isEqualTo(bytes("v3"));
  }
}
