package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Pod;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.Column;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.printers.Row;
import io.streamplane.kinds.quota.QuotaEvaluator;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 Pod: {@code SetDefaults_Pod} (pod spec defaults, requests from limits, service links,
 * host ports on the host network, priority) and the Pending phase on create; the QoS class worked
 * out after admission; graceful deletion of a pod on a node; {@code ValidatePodSpec}'s common
 * checks; the fields {@code kubectl get pods --field-selector} and the node agents select by;
 * kubectl's pod columns.
 */
public final class PodStrategy implements KindStrategy {

  @Override
  public QuotaEvaluator quota() {
    return PodQuota.EVALUATOR;
  }

  private static final long DEFAULT_GRACE_SECONDS = 30;

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    PodSpecDefaults.podSpec(spec);
    PodSpecDefaults.podOnly(spec);
    if (create && !object.with("status").has("phase")) {
      object.with("status").put("phase", "Pending");
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object) {
    object.with("status").put("qosClass", PodSpecDefaults.qosClass(object.path("spec")));
  }

  @Override
  public SpecificRecord writeThrough(
      String subresource, SpecificRecord written, SpecificRecord stored) {
    return subresource.equals(EphemeralContainers.SUBRESOURCE)
        ? EphemeralContainers.writeThrough((Pod) written, (Pod) stored)
        : null;
  }

  @Override
  public List<StatusCause> validateThrough(
      String subresource, SpecificRecord updated, SpecificRecord stored) {
    List<StatusCause> causes = new ArrayList<>();
    if (subresource.equals(EphemeralContainers.SUBRESOURCE)) {
      causes.addAll(EphemeralContainers.validateUpdate((Pod) updated, (Pod) stored));
    }
    return causes;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    List<StatusCause> causes = new ArrayList<>();
    PodSpecs.validate(((Pod) object).getSpec(), "spec", causes);
    return causes;
  }

  /**
   * A pod bound to a node is deleted gracefully: the node stops its containers, then deletes it
   * with a zero grace period. An unbound pod goes at once.
   */
  @Override
  public long gracePeriodSeconds(SpecificRecord object, Long requested) {
    Pod pod = (Pod) object;
    if (pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
      return 0;
    }
    if (requested != null) {
      return Math.max(0, requested);
    }
    Long spec = pod.getSpec().getTerminationGracePeriodSeconds();
    return spec == null ? DEFAULT_GRACE_SECONDS : Math.max(0, spec);
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    for (String p :
        List.of(
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName")) {
      fields.put(p, Fields.path(p));
    }
    fields.put("spec.hostNetwork", Fields.bool("spec.hostNetwork"));
    return fields;
  }

  private static final Printer PRINTER =
      new Printer() {
        @Override
        public List<Column> columns() {
          return List.of(
              name(),
              col(
                  "Ready",
                  "string",
                  "The aggregate readiness state of this pod for accepting traffic."),
              col("Status", "string", "The aggregate status of the containers in this pod."),
              col(
                  "Restarts",
                  "string",
                  "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
              age(),
              wide(
                  "IP",
                  "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
              wide("Node", "NodeName indicates in which node this pod is scheduled."),
              wide(
                  "Nominated Node",
                  "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods."),
              wide(
                  "Readiness Gates",
                  "If specified, all readiness gates will be evaluated for pod readiness."));
        }

        @Override
        public Row row(JsonNode pod, Instant now) {
          return PodRows.row(pod, now);
        }
      };

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
