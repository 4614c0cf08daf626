package io.streamplane.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StagesTest {

  @Test
  void threadsAreNamedAfterTheRoleTheyWorkFor() {
    assertThat(Stages.hop("gateway-17")).isEqualTo("gateway");
    assertThat(Stages.hop("watch-cache")).isEqualTo("gateway");
    assertThat(Stages.hop("sp-store-3e3a-4c1d-StreamThread-1")).isEqualTo("store");
    assertThat(
            Stages.hop(
                "kafka-producer-network-thread | sp-store-3e3a-4c1d-StreamThread-1-producer"))
        .isEqualTo("store");
    assertThat(Stages.hop("kafka-coordinator-heartbeat-thread | sp-controllers-2"))
        .isEqualTo("controllers");
    assertThat(Stages.hop("sp-scheduler-default-scheduler-9c1b-StreamThread-1"))
        .isEqualTo("scheduler");
    assertThat(Stages.hop("kafka-coordinator-heartbeat-thread | sp-scheduler-default-scheduler"))
        .isEqualTo("scheduler");
    assertThat(Stages.hop("sp-binder-c1b2-StreamThread-1")).isEqualTo("binder");
    assertThat(Stages.hop("data-plane-kafka-request-handler-3")).isEqualTo("broker");
    assertThat(Stages.hop("TxnMarkerSenderThread-1")).isEqualTo("broker");
    assertThat(Stages.hop("kafka-producer-network-thread | streamplane-gateway-audit"))
        .isEqualTo("gateway");
    assertThat(Stages.hop("kafka-admin-client-thread | adminclient-3"))
        .isEqualTo("Kafka clients (admin, other)");
    assertThat(Stages.hop("HttpClient-4-Worker-0")).isEqualTo("nodes");
    assertThat(Stages.hop("C2 CompilerThread0")).isEqualTo("JVM: JIT compiler");
    assertThat(Stages.hop("G1 Conc#0")).isEqualTo("JVM: garbage collector");
    assertThat(Stages.hop("JFR Recorder Thread")).isEqualTo("JVM: Flight Recorder");
    assertThat(Stages.hop("something-else")).isEqualTo(Stages.OTHER);
  }

  @Test
  void aStackIsTheFirstStageAnyOfItsFramesNames() {
    // Innermost first: a JSON parse inside admission is JSON, the admission code around it is not.
    assertThat(
            Stages.stage(
                List.of(
                    "java.util.HashMap.get",
                    "com.fasterxml.jackson.core.json.UTF8StreamJsonParser.nextToken",
                    "io.streamplane.gateway.admission.PodSecurity.admit",
                    "org.eclipse.jetty.server.Server.handle")))
        .isEqualTo("JSON");
    assertThat(
            Stages.stage(
                List.of(
                    "java.util.HashMap.get",
                    "io.streamplane.gateway.admission.PodSecurity.admit",
                    "io.streamplane.gateway.server.RequestChain.handle",
                    "org.eclipse.jetty.server.Server.handle")))
        .isEqualTo("admission");
    // The producer's work inside a Kafka Streams commit is the commit.
    assertThat(
            Stages.stage(
                List.of(
                    "org.apache.kafka.clients.producer.KafkaProducer.commitTransaction",
                    "org.apache.kafka.streams.processor.internals.StreamsProducer.commitTransaction",
                    "org.apache.kafka.streams.processor.internals.TaskExecutor"
                        + ".commitOffsetsOrTransaction")))
        .isEqualTo("Kafka Streams commit (transaction)");
    assertThat(
            Stages.stage(
                List.of(
                    "org.apache.kafka.storage.internals.log.LogSegment.append",
                    "kafka.server.KafkaApis.handleProduceRequest",
                    "kafka.server.KafkaRequestHandler.run")))
        .isEqualTo("broker: produce (append, replication)");
    assertThat(Stages.stage(List.of("java.lang.Thread.run"))).isEqualTo("other code");
  }
}
