package io.streamplane.kinds.storage;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.CSIStorageCapacity;
import org.junit.jupiter.api.Test;

class CSIStorageCapacityStrategyTest {

  private final CSIStorageCapacityStrategy strategy = new CSIStorageCapacityStrategy();

  @Test
  void aStorageClassNameIsRequired() {
    CSIStorageCapacity capacity =
        created(
            strategy, "{'metadata':{'name':'c','namespace':'default'}}", CSIStorageCapacity.class);

    assertThat(messages(strategy.validate(capacity)))
        .containsExactly("storageClassName: Required value");
  }

  @Test
  void printsTheStorageClassAndCapacity() {
    assertThat(columns(strategy)).containsExactly("Name", "StorageClassName", "Capacity");
    assertThat(
            row(strategy, "{'metadata':{'name':'c'},'storageClassName':'fast','capacity':'10Gi'}"))
        .containsExactly("c", "fast", "10Gi");
    assertThat(row(strategy, "{'metadata':{'name':'c'},'storageClassName':'fast'}"))
        .containsExactly("c", "fast", "<unset>");
  }
}
