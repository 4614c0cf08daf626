package io.streamplane.gateway.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.UserInfo;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestAuditTest {

  private static final Instant T0 = Instant.parse("2026-11-23T08:00:00Z");
  private static final UserInfo ALICE =
      UserInfo.newBuilder().setUsername("alice").setGroups(List.of("devs")).build();
  private static final RequestAudit.RequestMeta META =
      new RequestAudit.RequestMeta(
          "/api/v1/namespaces/a/pods", List.of("10.0.0.1", "127.0.0.1"), "kubectl/v1.32");

  private final List<AuditEvent> written = new ArrayList<>();

  private Auditor auditor(AuditPolicy policy) {
    return new Auditor(policy, written::add, Clock.fixed(T0.plusMillis(25), ZoneOffset.UTC));
  }

  @Test
  void aFailedHandlerWritesPanicInsteadOfResponseComplete() {
    RequestAudit audit =
        auditor(AuditPolicy.everything(AuditLevel.Metadata))
            .begin(
                "id-1",
                T0,
                RequestInfo.parse("POST", "/api/v1/namespaces/a/pods", Map.of()),
                ALICE,
                META);

    audit.panic("NullPointerException: boom");
    audit.complete(500);

    assertThat(written)
        .extracting(AuditEvent::getStage)
        .containsExactly("RequestReceived", "Panic");
    AuditEvent panic = written.get(1);
    assertThat(panic.getResponseStatus().getCode()).isEqualTo(500);
    assertThat(panic.getResponseStatus().getReason()).isEqualTo("InternalError");
    assertThat(panic.getResponseStatus().getMessage())
        .isEqualTo("APIServer panic'd: NullPointerException: boom");
    assertThat(panic.getRequestReceivedTimestamp()).isEqualTo(T0);
    assertThat(panic.getStageTimestamp()).isEqualTo(T0.plusMillis(25));
    assertThat(written.get(0).getStageTimestamp())
        .as("RequestReceived is stamped when received")
        .isEqualTo(T0);
    assertThat(panic.getSourceIPs()).containsExactly("10.0.0.1", "127.0.0.1");
    assertThat(panic.getUserAgent()).isEqualTo("kubectl/v1.32");
  }

  @Test
  void aLongRunningRequestGetsResponseStartedEvenWhenItFailsBeforeStreaming() {
    RequestAudit audit =
        auditor(AuditPolicy.everything(AuditLevel.Metadata))
            .begin(
                "id-2",
                T0,
                RequestInfo.parse("GET", "/api/v1/namespaces/a/pods", Map.of("watch", "1")),
                ALICE,
                META);

    audit.complete(410);

    assertThat(written)
        .extracting(AuditEvent::getStage)
        .containsExactly("RequestReceived", "ResponseStarted", "ResponseComplete");
    assertThat(written.get(1).getResponseStatus().getCode()).isEqualTo(410);
  }

  @Test
  void omittedStagesAndLevelNoneWriteNothing() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            omitStages: [RequestReceived]
            rules:
              - level: None
                users: [bob]
              - level: Metadata
            """);
    RequestInfo get = RequestInfo.parse("GET", "/api/v1/namespaces/a/pods/p", Map.of());
    UserInfo bob = UserInfo.newBuilder().setUsername("bob").build();

    auditor(policy).begin("id-3", T0, get, ALICE, META).complete(200);
    auditor(policy).begin("id-4", T0, get, bob, META).complete(200);

    assertThat(written).hasSize(1);
    assertThat(written.get(0).getAuditID()).isEqualTo("id-3");
    assertThat(written.get(0).getStage()).isEqualTo("ResponseComplete");
    assertThat(written.get(0).getLevel()).isEqualTo("Metadata");
  }

  @Test
  void attemptedMethodsAreNamedAsKubeApiserverNamesThem() {
    assertThat(Auditor.attempted("Bearer abc", true)).isEqualTo("bearer, x509");
    assertThat(Auditor.attempted("Basic Zm9v", false)).isEqualTo("basic");
    assertThat(Auditor.attempted(null, false)).isEmpty();
  }
}
