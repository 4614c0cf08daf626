package io.streamplane.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KafkaBrokerExtension.class)
class KafkaBrokerExtensionIT {

  private static EmbeddedKafkaBroker beforeAllBroker;
  private final EmbeddedKafkaBroker constructorBroker;

  KafkaBrokerExtensionIT(EmbeddedKafkaBroker constructorBroker) {
    this.constructorBroker = constructorBroker;
  }

  @BeforeAll
  static void rememberBroker(EmbeddedKafkaBroker broker) {
    beforeAllBroker = broker;
    System.out.printf(
        "[embedded-kafka] extension broker start took %d ms (%s)%n",
        broker.startupTime().toMillis(), broker.bootstrapServers());
  }

  @Test
  void injectsARunningBrokerThatAnswersAnAdminClient(EmbeddedKafkaBroker broker) throws Exception {
    try (Admin admin = Admin.create(broker.clientProperties())) {
      DescribeClusterResult cluster = admin.describeCluster();
      assertThat(cluster.clusterId().get(10, TimeUnit.SECONDS)).isEqualTo(broker.clusterId());
      assertThat(cluster.nodes().get(10, TimeUnit.SECONDS)).hasSize(1);
    }
  }

  @Test
  void injectsTheSameBrokerIntoConstructorBeforeAllAndTestMethods(EmbeddedKafkaBroker broker) {
    assertThat(broker).isSameAs(constructorBroker).isSameAs(beforeAllBroker);
  }

  @Test
  void uniqueNamesDoNotRepeat() {
    assertThat(KafkaBrokerExtension.uniqueName("sp"))
        .startsWith("sp-")
        .isNotEqualTo(KafkaBrokerExtension.uniqueName("sp"));
  }

  @Nested
  class NestedClass {
    @Test
    void sharesTheEnclosingClassBroker(EmbeddedKafkaBroker broker) {
      assertThat(broker).isSameAs(beforeAllBroker);
    }
  }
}
