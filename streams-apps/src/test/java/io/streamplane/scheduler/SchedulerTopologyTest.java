package io.streamplane.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

class SchedulerTopologyTest {

  @Test
  void theSchedulerReadsClaimsVolumesAndClassesAsAGlobalStoreItsInstancesFeed() {
    Topics topics = new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
    TopologyDescription description =
        SchedulerTopology.scheduler(topics, SchedulerConfig.defaults(), "s1").describe();
    assertThat(description.globalStores())
        .anySatisfy(
            g -> assertThat(g.source().topicSet()).contains(topics.storageObjects().name()));
    assertThat(description.toString()).contains(topics.storageObjects().name());
  }
}
