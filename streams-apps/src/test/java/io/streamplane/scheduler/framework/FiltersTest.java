package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.container;
import static io.streamplane.scheduler.framework.Fixtures.info;
import static io.streamplane.scheduler.framework.Fixtures.labelTerm;
import static io.streamplane.scheduler.framework.Fixtures.node;
import static io.streamplane.scheduler.framework.Fixtures.pod;
import static io.streamplane.scheduler.framework.Fixtures.req;
import static io.streamplane.scheduler.framework.Fixtures.requiredAffinity;
import static io.streamplane.scheduler.framework.Fixtures.spec;
import static io.streamplane.scheduler.framework.Fixtures.taint;
import static io.streamplane.scheduler.framework.Fixtures.toleration;
import static io.streamplane.scheduler.framework.Fixtures.withLabels;
import static io.streamplane.scheduler.framework.Fixtures.withTaints;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Node;
import io.streamplane.api.NodeSelectorTerm;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class FiltersTest {

  private static Optional<Rejection> run(Filter filter, Pod pod, NodeInfo node) {
    return filter.reject(pod, PodRequests.of(pod), node);
  }

  private static Optional<Rejection> run(Filter filter, Pod pod, Node node) {
    return run(filter, pod, info(node));
  }

  @Nested
  class NodeName {
    private final Filter filter = new NodeNamePlugin();

    @Test
    void aPodNamingANodeFitsOnlyThatNode() {
      Pod pod = pod(spec(container("1", "1Gi")).setNodeName("n1").build());

      assertThat(run(filter, pod, info("n1", "4", "8Gi"))).isEmpty();
      assertThat(run(filter, pod, info("n2", "4", "8Gi")))
          .contains(Rejection.unresolvable("node(s) didn't match the requested node name"));
      assertThat(run(filter, pod("1", "1Gi"), info("n2", "4", "8Gi"))).isEmpty();
    }
  }

  @Nested
  class NodeUnschedulable {
    private final Filter filter = new NodeUnschedulablePlugin();

    private Node cordoned() {
      Node n = node("n1", "4", "8Gi", "110").build();
      n.getSpec().setUnschedulable(true);
      return n;
    }

    @Test
    void aCordonedNodeRejectsOrdinaryPods() {
      assertThat(run(filter, pod("1", "1Gi"), cordoned()))
          .contains(Rejection.unresolvable("node(s) were unschedulable"));
      assertThat(run(filter, pod("1", "1Gi"), node("n2", "4", "8Gi", "110").build())).isEmpty();
    }

    @Test
    void theUnschedulableTolerationLetsAPodOnACordonedNode() {
      Toleration daemonSet =
          toleration("node.kubernetes.io/unschedulable", "Exists", null, "NoSchedule");
      Pod pod = pod(spec(container("1", "1Gi")).setTolerations(List.of(daemonSet)).build());
      Toleration wrongEffect =
          toleration("node.kubernetes.io/unschedulable", "Exists", null, "NoExecute");
      Pod other = pod(spec(container("1", "1Gi")).setTolerations(List.of(wrongEffect)).build());

      assertThat(run(filter, pod, cordoned())).isEmpty();
      assertThat(run(filter, other, cordoned())).isPresent();
    }
  }

  @Nested
  class TaintToleration {
    private final Filter filter = new TaintTolerationPlugin();

    private Pod tolerating(Toleration... tolerations) {
      return pod(spec(container("1", "1Gi")).setTolerations(List.of(tolerations)).build());
    }

    @Test
    void anUntoleratedNoScheduleTaintIsReportedInKubernetesFormat() {
      Node controlPlane =
          withTaints(
              node("cp", "4", "8Gi", "110"),
              taint("node-role.kubernetes.io/control-plane", null, "NoSchedule"));
      Node dedicated =
          withTaints(node("d", "4", "8Gi", "110"), taint("dedicated", "gpu", "NoExecute"));

      assertThat(run(filter, pod("1", "1Gi"), controlPlane))
          .contains(
              Rejection.unresolvable(
                  "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"));
      assertThat(run(filter, pod("1", "1Gi"), dedicated))
          .contains(Rejection.unresolvable("node(s) had untolerated taint {dedicated: gpu}"));
    }

    @Test
    void aNodeTaintedUnreachableTakesNoNewPodsByEitherTaint() {
      Taint noSchedule = taint("node.kubernetes.io/unreachable", null, "NoSchedule");
      Taint noExecute = taint("node.kubernetes.io/unreachable", null, "NoExecute");
      Node both = withTaints(node("u", "4", "8Gi", "110"), noExecute, noSchedule);
      Node noScheduleOnly = withTaints(node("u", "4", "8Gi", "110"), noSchedule);
      Node noExecuteOnly = withTaints(node("u", "4", "8Gi", "110"), noExecute);

      for (Node node : List.of(both, noScheduleOnly, noExecuteOnly)) {
        assertThat(run(filter, pod("1", "1Gi"), node))
            .contains(
                Rejection.unresolvable(
                    "node(s) had untolerated taint {node.kubernetes.io/unreachable: }"));
      }
      assertThat(
              run(
                  filter,
                  tolerating(
                      toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute")),
                  both))
          .as("Kubernetes' default 300 s toleration does not tolerate the NoSchedule taint")
          .isPresent();
    }

    @Test
    void preferNoScheduleTaintsDoNotFilter() {
      Node soft = withTaints(node("s", "4", "8Gi", "110"), taint("k", "v", "PreferNoSchedule"));

      assertThat(run(filter, pod("1", "1Gi"), soft)).isEmpty();
    }

    @Test
    void tolerationsMatchByKeyValueOperatorAndEffect() {
      Node node = withTaints(node("d", "4", "8Gi", "110"), taint("dedicated", "gpu", "NoSchedule"));

      assertThat(
              run(filter, tolerating(toleration("dedicated", "Equal", "gpu", "NoSchedule")), node))
          .isEmpty();
      assertThat(run(filter, tolerating(toleration("dedicated", null, "gpu", null)), node))
          .isEmpty();
      assertThat(run(filter, tolerating(toleration("dedicated", "Exists", null, null)), node))
          .isEmpty();
      assertThat(run(filter, tolerating(toleration(null, "Exists", null, null)), node)).isEmpty();
      assertThat(run(filter, tolerating(toleration("dedicated", "Equal", "cpu", null)), node))
          .isPresent();
      assertThat(
              run(filter, tolerating(toleration("dedicated", "Exists", null, "NoExecute")), node))
          .isPresent();
      assertThat(run(filter, tolerating(toleration("other", "Exists", null, null)), node))
          .isPresent();
    }

    @Test
    void theFirstUntoleratedTaintIsTheReason() {
      Node node =
          withTaints(
              node("d", "4", "8Gi", "110"),
              taint("a", "1", "NoSchedule"),
              taint("b", "2", "NoSchedule"));

      assertThat(run(filter, tolerating(toleration("a", "Exists", null, null)), node))
          .contains(Rejection.unresolvable("node(s) had untolerated taint {b: 2}"));
    }
  }

  @Nested
  class NodeAffinity {
    private final Filter filter = new NodeAffinityPlugin();
    private static final String REASON = "node(s) didn't match Pod's node affinity/selector";

    private final Node ssdZoneA =
        withLabels(
            node("n1", "4", "8Gi", "110"), Map.of("disk", "ssd", "zone", "a", "cores", "16"));

    private Pod requiring(NodeSelectorTerm... terms) {
      return pod(spec(container("1", "1Gi")).setAffinity(requiredAffinity(terms)).build());
    }

    @Test
    void nodeSelectorNeedsEveryLabel() {
      Pod match = pod(spec(container("1", "1Gi")).setNodeSelector(Map.of("disk", "ssd")).build());
      Pod mismatch =
          pod(
              spec(container("1", "1Gi"))
                  .setNodeSelector(Map.of("disk", "ssd", "zone", "b"))
                  .build());

      assertThat(run(filter, match, ssdZoneA)).isEmpty();
      assertThat(run(filter, mismatch, ssdZoneA)).contains(Rejection.unresolvable(REASON));
    }

    @Test
    void everyOperatorOnLabels() {
      assertThat(run(filter, requiring(labelTerm(req("disk", "In", "hdd", "ssd"))), ssdZoneA))
          .isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("disk", "In", "hdd"))), ssdZoneA)).isPresent();
      assertThat(run(filter, requiring(labelTerm(req("zone", "NotIn", "b"))), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("gpu", "NotIn", "x"))), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("zone", "NotIn", "a"))), ssdZoneA))
          .isPresent();
      assertThat(run(filter, requiring(labelTerm(req("disk", "Exists"))), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("gpu", "Exists"))), ssdZoneA)).isPresent();
      assertThat(run(filter, requiring(labelTerm(req("gpu", "DoesNotExist"))), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("disk", "DoesNotExist"))), ssdZoneA))
          .isPresent();
      assertThat(run(filter, requiring(labelTerm(req("cores", "Gt", "8"))), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("cores", "Gt", "16"))), ssdZoneA)).isPresent();
      assertThat(run(filter, requiring(labelTerm(req("cores", "Lt", "32"))), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(labelTerm(req("disk", "Lt", "32"))), ssdZoneA)).isPresent();
    }

    @Test
    void termsAreOredAndExpressionsWithinATermAnded() {
      NodeSelectorTerm both = labelTerm(req("disk", "In", "ssd"), req("zone", "In", "b"));
      NodeSelectorTerm zoneA = labelTerm(req("zone", "In", "a"));

      assertThat(run(filter, requiring(both), ssdZoneA)).isPresent();
      assertThat(run(filter, requiring(both, zoneA), ssdZoneA)).isEmpty();
    }

    @Test
    void emptyOrMalformedTermsMatchNothing() {
      assertThat(run(filter, requiring(NodeSelectorTerm.newBuilder().build()), ssdZoneA))
          .isPresent();
      assertThat(run(filter, requiring(labelTerm(req("disk", "In"))), ssdZoneA)).isPresent();
      assertThat(run(filter, requiring(labelTerm(req("disk", "Like", "ssd"))), ssdZoneA))
          .isPresent();
      assertThat(run(filter, requiring(labelTerm(req("cores", "Gt", "many"))), ssdZoneA))
          .isPresent();
    }

    @Test
    void matchFieldsSelectByNodeName() {
      NodeSelectorTerm named =
          NodeSelectorTerm.newBuilder()
              .setMatchFields(List.of(req("metadata.name", "In", "n1")))
              .build();
      NodeSelectorTerm notNamed =
          NodeSelectorTerm.newBuilder()
              .setMatchFields(List.of(req("metadata.name", "NotIn", "n1")))
              .build();

      assertThat(run(filter, requiring(named), ssdZoneA)).isEmpty();
      assertThat(run(filter, requiring(notNamed), ssdZoneA))
          .contains(Rejection.unresolvable(REASON));
    }
  }

  @Nested
  class NodeResourcesFit {
    private final Filter filter = new NodeResourcesFitPlugin();

    @Test
    void everyShortResourceIsAReason() {
      NodeInfo full =
          new NodeInfo(
              node("n1", "4", "8Gi", "2").build(),
              new Resources(4000, 8L << 30, 0, 2),
              new Resources(3500, 7L << 30, 0, 2));

      Optional<Rejection> rejection = run(filter, pod("1", "2Gi"), full);

      assertThat(rejection)
          .contains(
              new Rejection(
                  List.of("Too many pods", "Insufficient cpu", "Insufficient memory"), false));
    }

    @Test
    void aRequestLargerThanTheWholeNodeIsUnresolvable() {
      assertThat(run(filter, pod("8", "1Gi"), info("n1", "4", "8Gi")))
          .contains(new Rejection(List.of("Insufficient cpu"), true));
      assertThat(run(filter, pod("4", "8Gi"), info("n1", "4", "8Gi"))).isEmpty();
    }

    @Test
    void ephemeralStorageCountsAndANodeWithoutPodsCapacityAdmitsNothing() {
      PodSpec spec = spec(container("1", "1Gi")).build();
      spec.getContainers().get(0).getResources().getRequests().put("ephemeral-storage", "1Gi");
      Node noPods = node("n1", "4", "8Gi", null).build();

      assertThat(run(filter, pod(spec), info("n1", "4", "8Gi")))
          .contains(new Rejection(List.of("Insufficient ephemeral-storage"), true));
      assertThat(run(filter, pod("1", "1Gi"), noPods))
          .contains(new Rejection(List.of("Too many pods"), false));
    }

    @Test
    void aPodWithoutRequestsFitsAFullNode() {
      NodeInfo full =
          new NodeInfo(
              node("n1", "4", "8Gi", "110").build(),
              new Resources(4000, 8L << 30, 0, 110),
              new Resources(4000, 8L << 30, 0, 10));

      assertThat(run(filter, pod(null, null), full)).isEmpty();
    }
  }
}
