package io.streamplane.cli.replay;

import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.serde.AvroSerde;
import io.streamplane.topics.Topics;
import java.util.function.Function;

/** Decodes stored events on any number of threads at once: one Avro decoder per thread. */
final class EventDecoder implements Function<byte[], ResourceEvent> {

  private final ThreadLocal<AvroSerde<ResourceEvent>> serdes;

  EventDecoder(Topics topics) {
    this.serdes =
        ThreadLocal.withInitial(() -> new AvroSerde<>(ResourceEvent.class, topics.catalog()));
  }

  @Override
  public ResourceEvent apply(byte[] bytes) {
    return serdes.get().decode(bytes);
  }
}
