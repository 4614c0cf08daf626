package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Jobs run to completion on {@code ./streamplane up --nodes 1 --runtime process}, with the real
 * kubectl: {@code kubectl create job} runs once and its log is there, a Job whose pods keep failing
 * ends Failed past its backoffLimit, one whose pod matches a FailJob rule of its podFailurePolicy
 * ends Failed at once, an Indexed Job completes every index, one with a successPolicy completes
 * once the policy's indexes succeed, a CronJob runs a Job at its next minute. The node's use of CPU
 * and memory reaches {@code kubectl top} (the gateway scrapes every 2 s here rather than 15).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SharedCluster(SharedCluster.Shape.ONE_PROCESS_NODE)
class JobsE2E {

  private static final Duration WAIT = Duration.ofSeconds(120);

  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    cluster = shared;
    kubectl = cluster.kubectl;
    await("a Ready node")
        .atMost(WAIT)
        .until(() -> kubectl.run("get", "nodes", "--no-headers").out().contains(" Ready "));
    // Made first, checked last: the wait for its next minute runs while the other tests do.
    kubectl
        .run("create", "cronjob", "tick", "--image=busybox", "--schedule=* * * * *", "--", "true")
        .expectSuccess();
  }

  @AfterAll
  void cleanUp() throws Exception {
    // Its Jobs would go on every minute on the cluster the next classes share.
    kubectl.run("delete", "cronjob", "tick", "--ignore-not-found").expectSuccess();
  }

  @Test
  void kubectlCreateJobRunsOnceAndItsLogIsThere() throws Exception {
    kubectl
        .run("create", "job", "pi", "--image=busybox", "--", "sh", "-c", "echo computed")
        .expectSuccess();

    kubectl.run("wait", "--for=condition=complete", "job/pi", "--timeout=120s").expectSuccess();

    assertThat(kubectl.run("logs", "job/pi").expectSuccess().out()).contains("computed");
    String printed = kubectl.run("get", "jobs", "pi").expectSuccess().out();
    assertThat(printed).contains("STATUS").contains("COMPLETIONS").contains("DURATION");
    assertThat(printed).containsPattern("pi\\s+Complete\\s+1/1\\s+\\d+s");
    assertThat(
            kubectl
                .run("get", "pods", "-l", "job-name=pi", "-o", "jsonpath={.items[*].status.phase}")
                .expectSuccess()
                .out())
        .isEqualTo("Succeeded");
    assertThat(kubectl.run("describe", "job", "pi").expectSuccess().out())
        .as("the job controller's Events")
        .containsPattern("Normal\\s+SuccessfulCreate\\s+.*Created pod: pi-")
        .containsPattern("Normal\\s+Completed\\s+.*Job completed");
  }

  @Test
  void aJobWhosePodsKeepFailingEndsFailedPastItsBackoffLimit() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: doomed
            spec:
              backoffLimit: 1
              template:
                spec:
                  restartPolicy: Never
                  containers:
                  - name: main
                    image: busybox
                    command: ["sh", "-c", "exit 3"]
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();

    kubectl.run("wait", "--for=condition=failed", "job/doomed", "--timeout=120s").expectSuccess();

    assertThat(
            kubectl
                .run(
                    "get",
                    "job",
                    "doomed",
                    "-o",
                    "jsonpath={.status.failed} {.status.conditions[?(@.type==\"Failed\")].reason}")
                .expectSuccess()
                .out())
        .isEqualTo("2 BackoffLimitExceeded");
  }

  @Test
  void aFailJobRuleFailsTheJobAtTheFirstMatchingExitCodeNotAfterItsBackoffLimit() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: fatal
            spec:
              backoffLimit: 6
              podFailurePolicy:
                rules:
                - action: Ignore
                  onPodConditions:
                  - type: DisruptionTarget
                - action: FailJob
                  onExitCodes:
                    containerName: main
                    operator: In
                    values: [42]
              template:
                spec:
                  restartPolicy: Never
                  containers:
                  - name: main
                    image: busybox
                    command: ["sh", "-c", "exit 42"]
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();

    kubectl.run("wait", "--for=condition=failed", "job/fatal", "--timeout=60s").expectSuccess();

    String status =
        kubectl
            .run(
                "get",
                "job",
                "fatal",
                "-o",
                "jsonpath={.status.failed}|{.status.conditions[?(@.type==\"Failed\")].reason}"
                    + "|{.status.conditions[?(@.type==\"Failed\")].message}")
            .expectSuccess()
            .out();
    assertThat(status)
        .as("one pod, failed at once by the rule rather than retried 6 times")
        .startsWith("1|PodFailurePolicy|Container main for pod default/fatal-")
        .endsWith(" failed with exit code 42 matching FailJob rule at index 1");
    assertThat(
            kubectl
                .runWithInput(
                    """
                    apiVersion: batch/v1
                    kind: Job
                    metadata:
                      name: refused
                    spec:
                      podFailurePolicy:
                        rules:
                        - action: FailIndex
                          onExitCodes: {operator: In, values: [1]}
                      template:
                        spec:
                          restartPolicy: OnFailure
                          containers: [{name: main, image: busybox}]
                    """,
                    "apply",
                    "-f",
                    "-")
                .err())
        .contains(
            "spec.podFailurePolicy.rules[0].action: Invalid value: \"FailIndex\": requires the"
                + " backoffLimitPerIndex to be set")
        .contains("only \"Never\" is supported when podFailurePolicy is specified");
  }

  @Test
  void aSuccessPolicyCompletesAnIndexedJobWithoutWaitingForItsOtherIndexes() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: leader
            spec:
              completions: 3
              parallelism: 3
              completionMode: Indexed
              successPolicy:
                rules:
                - succeededIndexes: "0"
              template:
                spec:
                  restartPolicy: Never
                  terminationGracePeriodSeconds: 1
                  containers:
                  - name: main
                    image: busybox
                    command: ["sh", "-c", "[ $JOB_COMPLETION_INDEX = 0 ] || sleep 600"]
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();

    kubectl.run("wait", "--for=condition=complete", "job/leader", "--timeout=90s").expectSuccess();

    assertThat(
            kubectl
                .run(
                    "get",
                    "job",
                    "leader",
                    "-o",
                    "jsonpath={.status.completedIndexes}|{.status.conditions[?(@.type==\"Complete\")]"
                        + ".reason}|{.status.conditions[?(@.type==\"Complete\")].message}")
                .expectSuccess()
                .out())
        .isEqualTo("0|SuccessPolicy|Matched rules at index 0");
  }

  @Test
  void anAutoscalerScalesUpADeploymentWhosePodsBurnCpuAndBackDownWhenTheyStop() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: spin
            spec:
              replicas: 1
              selector:
                matchLabels:
                  app: spin
              template:
                metadata:
                  labels:
                    app: spin
                spec:
                  terminationGracePeriodSeconds: 1
                  containers:
                  - name: spin
                    image: busybox
                    command: ["sh", "-c", "while true; do :; done"]
                    resources: {requests: {cpu: 100m}, limits: {cpu: 100m}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    kubectl
        .run("autoscale", "deployment", "spin", "--cpu-percent=50", "--min=1", "--max=2")
        .expectSuccess();
    kubectl
        .run(
            "patch",
            "hpa",
            "spin",
            "--type=merge",
            "-p",
            "{\"spec\":{\"behavior\":{\"scaleDown\":{\"stabilizationWindowSeconds\":0}}}}")
        .expectSuccess();

    await("the autoscaler to scale the busy Deployment up to 2")
        .atMost(WAIT)
        .until(() -> deploymentReplicas("spin"), r -> r == 2);

    // The loop stops: the pods of the new template sleep.
    kubectl
        .run(
            "patch",
            "deployment",
            "spin",
            "--type=json",
            "-p",
            "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/0/command\","
                + "\"value\":[\"sleep\",\"3600\"]}]")
        .expectSuccess();
    await("the autoscaler to scale the idle Deployment back down to 1")
        .atMost(WAIT)
        .until(() -> deploymentReplicas("spin"), r -> r == 1);
    kubectl.run("delete", "hpa", "spin").expectSuccess();
    kubectl.run("delete", "deployment", "spin", "--wait=false").expectSuccess();
  }

  private int deploymentReplicas(String name) throws Exception {
    String out =
        kubectl.run("get", "deployment", name, "-o", "jsonpath={.spec.replicas}").out().trim();
    return out.isEmpty() ? -1 : Integer.parseInt(out);
  }

  @Test
  @Order(Integer.MAX_VALUE)
  void aCronJobRunsAJobAtItsNextMinute() throws Exception {
    await("a Job of the CronJob to complete")
        .atMost(Duration.ofSeconds(150))
        .until(
            () ->
                kubectl
                        .run(
                            "get", "cronjob", "tick", "-o", "jsonpath={.status.lastSuccessfulTime}")
                        .out()
                        .length()
                    > 0);
    String jobs = kubectl.run("get", "jobs", "--no-headers").expectSuccess().out();
    assertThat(jobs).containsPattern("tick-\\d+\\s+Complete");
  }

  @Test
  void anIndexedJobCompletesEveryIndex() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: batch/v1
            kind: Job
            metadata:
              name: indexed
            spec:
              completions: 4
              parallelism: 2
              completionMode: Indexed
              template:
                spec:
                  restartPolicy: Never
                  containers:
                  - name: main
                    image: busybox
                    command: ["sh", "-c", "echo index $JOB_COMPLETION_INDEX"]
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();

    kubectl
        .run("wait", "--for=condition=complete", "job/indexed", "--timeout=120s")
        .expectSuccess();

    assertThat(
            kubectl
                .run(
                    "get",
                    "job",
                    "indexed",
                    "-o",
                    "jsonpath={.status.completedIndexes} {.status.succeeded}")
                .expectSuccess()
                .out())
        .isEqualTo("0-3 4");
    String logs =
        kubectl
            .run("logs", "-l", "batch.kubernetes.io/job-completion-index=3,job-name=indexed")
            .expectSuccess()
            .out();
    assertThat(logs).contains("index 3");
  }

  @Test
  void kubectlTopPrintsWhatTheNodeAndItsPodsUse() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: idle
              labels: {app: idle}
            spec:
              containers:
              - name: main
                image: busybox
                command: ["sleep", "3600"]
                resources: {requests: {cpu: 50m, memory: 16Mi}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    kubectl.run("wait", "--for=condition=Ready", "pod/idle", "--timeout=120s").expectSuccess();

    await("kubectl top nodes to print the node's figures")
        .atMost(WAIT)
        .until(
            () -> kubectl.run("top", "nodes").out(),
            out ->
                out.contains("CPU(cores)")
                    && out.matches("(?s).*\\n\\S+\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%.*"));
    await("kubectl top pods to print the pod's figures")
        .atMost(WAIT)
        .until(
            () -> kubectl.run("top", "pods", "-l", "app=idle").out(),
            out -> out.matches("(?s).*\\nidle\\s+\\d+m\\s+\\d+Mi.*"));
    assertThat(kubectl.run("top", "pods", "--containers").expectSuccess().out())
        .containsPattern("POD\\s+NAME\\s+CPU\\(cores\\)\\s+MEMORY\\(bytes\\)")
        .containsPattern("idle\\s+main\\s+\\d+m\\s+\\d+Mi");
    assertThat(kubectl.run("top", "pods", "-A").expectSuccess().out())
        .containsPattern("default\\s+idle\\s+\\d+m\\s+\\d+Mi");
    assertThat(
            kubectl
                .run("get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/idle")
                .expectSuccess()
                .out())
        .contains("\"kind\":\"PodMetrics\"")
        .contains("\"window\"")
        .contains("\"app\":\"idle\"");
    // A view user reads the metrics, through the aggregated metrics-reader role.
    assertThat(
            kubectl
                .run(
                    "auth",
                    "can-i",
                    "list",
                    "pods.metrics.k8s.io",
                    "--as=system:serviceaccount:default:metrics-viewer")
                .out()
                .trim())
        .isEqualTo("no");
    kubectl
        .run(
            "create",
            "rolebinding",
            "viewer",
            "--clusterrole=view",
            "--serviceaccount=default:metrics-viewer")
        .expectSuccess();
    await("the view role to let its holder read pod metrics")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                kubectl
                    .run(
                        "auth",
                        "can-i",
                        "list",
                        "pods.metrics.k8s.io",
                        "--as=system:serviceaccount:default:metrics-viewer")
                    .out()
                    .trim()
                    .equals("yes"));
    kubectl.run("delete", "pod", "idle", "--grace-period=1").expectSuccess();
  }
}
