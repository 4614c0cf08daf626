package io.streamplane.topics;

import org.apache.kafka.common.serialization.Serde;

/** One topic of the log contract: where it is, and how its keys and values are encoded. */
public record Topic<K, V>(TopicSpec spec, Serde<K> keySerde, Serde<V> valueSerde) {

  public String name() {
    return spec.name();
  }
}
