package io.streamplane.gateway.testing;

import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;

/**
 * The part of a cluster every gateway integration test stands on: a cluster's topics on the
 * embedded broker, under a name no other test uses, and the store running over them. The test
 * starts the gateway it needs on top. Closing stops the store and the schema catalog.
 */
public final class TestPlane implements AutoCloseable {

  /** The API server's own identity, which creates the system namespaces. */
  public static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  private final String bootstrap;
  private final ClusterTopics topics;
  private final StreamsApp store;

  private TestPlane(String bootstrap, ClusterTopics topics, StreamsApp store) {
    this.bootstrap = bootstrap;
    this.topics = topics;
    this.store = store;
  }

  /** Topics named after {@code name} (made unique) and a store with its state under {@code dir}. */
  public static TestPlane start(EmbeddedKafkaBroker broker, String name, Path dir) {
    String bootstrap = broker.bootstrapServers();
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName(name).replaceAll("[^a-zA-Z0-9_-]", "_"));
    ClusterTopics topics;
    try (Admin admin = Admin.create(broker.clientProperties())) {
      topics = ClusterTopics.ensure(admin, bootstrap, layout);
    }
    return new TestPlane(bootstrap, topics, StoreApp.start(topics.topics(), bootstrap, dir));
  }

  public String bootstrap() {
    return bootstrap;
  }

  public Topics topics() {
    return topics.topics();
  }

  /** Closes each of {@code running} that was started (non-null), in order. */
  public static void closeAll(AutoCloseable... running) throws Exception {
    for (AutoCloseable c : running) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Override
  public void close() throws Exception {
    store.close();
    topics.close();
  }
}
