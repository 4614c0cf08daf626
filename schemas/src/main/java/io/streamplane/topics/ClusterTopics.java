package io.streamplane.topics;

import io.streamplane.schema.serde.KafkaSchemaCatalog;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;

/**
 * A cluster's topics made ready, as its first process makes them: the {@code schemas} topic first
 * (the catalog reads it), then the catalog on it, then every other topic with serdes from that
 * catalog. Closing closes the catalog.
 */
public record ClusterTopics(Topics topics, KafkaSchemaCatalog catalog) implements AutoCloseable {

  /** Creates what is missing of {@code layout}'s topics and opens the catalog. */
  public static ClusterTopics ensure(Admin admin, String bootstrapServers, TopicLayout layout) {
    TopicInitializer initializer = new TopicInitializer(admin);
    initializer.ensure(List.of(Topics.schemasSpec(layout)));
    KafkaSchemaCatalog catalog =
        new KafkaSchemaCatalog(bootstrapServers, layout.topicName(Topics.SCHEMAS));
    Topics topics = new Topics(layout, catalog);
    initializer.ensure(topics.all());
    return new ClusterTopics(topics, catalog);
  }

  @Override
  public void close() {
    catalog.close();
  }
}
