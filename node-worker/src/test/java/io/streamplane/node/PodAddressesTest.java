package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PodAddressesTest {

  @Test
  void fleetNodesGetDistinctCidrs() {
    Set<String> cidrs = new HashSet<>();
    for (int i = 0; i < 5000; i++) {
      cidrs.add(PodAddresses.cidrForIndex(i));
    }
    assertThat(cidrs).hasSize(5000);
    assertThat(PodAddresses.cidrForIndex(257)).isEqualTo("10.1.1.0/24");
  }

  @Test
  void handsOutFreeAddressesKeepsAPreferredOneAndReusesReleasedOnes() {
    PodAddresses addresses = new PodAddresses("10.0.3.0/24");

    assertThat(addresses.allocate(null)).isEqualTo("10.0.3.2");
    assertThat(addresses.allocate("10.0.3.77")).isEqualTo("10.0.3.77");
    assertThat(addresses.allocate("10.0.3.77")).as("taken: the lowest free").isEqualTo("10.0.3.3");
    assertThat(addresses.allocate("10.9.9.9")).as("not ours").isEqualTo("10.0.3.4");
    addresses.release("10.0.3.2");
    assertThat(addresses.allocate(null)).isEqualTo("10.0.3.2");
  }

  @Test
  void rejectsAnythingButASlash24AndRunsOutAfter253Pods() {
    assertThatThrownBy(() -> new PodAddresses("10.0.0.0/16"))
        .isInstanceOf(IllegalArgumentException.class);
    PodAddresses addresses = new PodAddresses("10.0.0.0/24");
    for (int i = 0; i < 253; i++) {
      addresses.allocate(null);
    }
    assertThatThrownBy(() -> addresses.allocate(null)).isInstanceOf(IllegalStateException.class);
  }
}
