package io.streamplane.cli.replay;

import static io.streamplane.cli.replay.ReplayFixtures.EVENTS;
import static io.streamplane.cli.replay.ReplayFixtures.command;
import static io.streamplane.cli.replay.ReplayFixtures.key;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ConfigMap;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.store.CommandPosition;
import java.time.Instant;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CommandFoldTest {

  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static CommandPosition at(long offset) {
    return new CommandPosition(0, offset, T.plusSeconds(offset));
  }

  @Test
  void commandsGoThroughTheStoresLogicAtTheirLogPositions() {
    CommandFold fold = new CommandFold();
    fold.apply(key("default", "a"), command(CommandVerb.CREATE, "a", "one"), at(0));
    fold.apply(key("default", "b"), command(CommandVerb.CREATE, "b", "one"), at(1));
    // Refused by the store (it exists): changes nothing.
    fold.apply(key("default", "a"), command(CommandVerb.CREATE, "a", "again"), at(2));
    fold.apply(key("default", "a"), command(CommandVerb.UPDATE, "a", "two"), at(3));
    fold.apply(key("default", "b"), command(CommandVerb.DELETE, "b", null), at(4));

    TreeMap<String, KeyState> state = fold.state(EVENTS::encode);

    assertThat(state).containsOnlyKeys(key("default", "a"));
    KeyState a = state.get(key("default", "a"));
    ConfigMap object = (ConfigMap) KindObjects.of(a.event());
    assertThat(object.getData()).containsEntry("version", "two");
    assertThat(object.getMetadata().getResourceVersion()).isEqualTo("4");
    assertThat(a.event().getResourceVersion()).isEqualTo(3);
    assertThat(a.bytes()).isEqualTo(EVENTS.encode(a.event()));
    assertThat(fold.commands()).isEqualTo(5);
    assertThat(fold.changes()).isEqualTo(4);
  }
}
