package io.streamplane.scheduler.framework;

import io.streamplane.api.Affinity;
import io.streamplane.api.Node;
import io.streamplane.api.NodeAffinity;
import io.streamplane.api.NodeSelector;
import io.streamplane.api.NodeSelectorRequirement;
import io.streamplane.api.NodeSelectorTerm;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PreferredSchedulingTerm;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kubernetes' NodeAffinity plugin, including {@code spec.nodeSelector}.
 *
 * <p>Filter: the node's labels must contain every {@code nodeSelector} pair, and, when the pod has
 * {@code requiredDuringSchedulingIgnoredDuringExecution}, match at least one of its terms; a term
 * matches when all its {@code matchExpressions} (on labels: In, NotIn, Exists, DoesNotExist, Gt,
 * Lt) and {@code matchFields} (only {@code metadata.name}, In/NotIn with one value) hold. A term
 * that is empty or malformed (unknown operator, In without values, Gt with a non-integer) matches
 * no node, as Kubernetes ignores it. Score: the sum of the weights of the matching preferred terms,
 * normalized so the best node gets 100.
 *
 * <p>Limits: the scheduler-profile {@code addedAffinity} argument is not supported, and the
 * PreFilter shortcut Kubernetes takes for {@code matchFields} (evaluating only the named nodes) is
 * not taken: every node is checked, with the same outcome except for the failure message's wording
 * in that case.
 */
public final class NodeAffinityPlugin implements Filter, Score {

  public static final String NAME = "NodeAffinity";
  public static final String REASON = "node(s) didn't match Pod's node affinity/selector";

  @Override
  public String name() {
    return NAME;
  }

  /** Immutable, so one instance serves every rejection: this filter runs for every node. */
  private static final Optional<Rejection> REJECTED = Optional.of(Rejection.unresolvable(REASON));

  @Override
  public Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node) {
    return fits(pod.getSpec(), node.node()) ? Optional.empty() : REJECTED;
  }

  /**
   * Whether a pod of {@code spec} fits {@code node} by its {@code nodeSelector} and required node
   * affinity ({@code nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)}), which the DaemonSet
   * controller asks too.
   */
  public static boolean fits(PodSpec spec, Node node) {
    if (spec == null) {
      return true;
    }
    Map<String, String> labels = labels(node);
    Map<String, String> selector = spec.getNodeSelector();
    if (selector != null) {
      for (Map.Entry<String, String> e : selector.entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    NodeAffinity affinity =
        spec.getAffinity() == null ? null : spec.getAffinity().getNodeAffinity();
    NodeSelector required =
        affinity == null ? null : affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
    return required == null || matchesAnyTerm(required.getNodeSelectorTerms(), node);
  }

  @Override
  public long score(Pod pod, PodRequests requests, NodeInfo node) {
    NodeAffinity affinity = nodeAffinity(pod);
    List<PreferredSchedulingTerm> preferred =
        affinity == null ? null : affinity.getPreferredDuringSchedulingIgnoredDuringExecution();
    if (preferred == null) {
      return 0;
    }
    long sum = 0;
    for (PreferredSchedulingTerm term : preferred) {
      Integer weight = term.getWeight();
      if (weight != null && weight != 0 && matches(term.getPreference(), node.node())) {
        sum += weight;
      }
    }
    return sum;
  }

  @Override
  public void normalize(long[] scores) {
    Score.defaultNormalize(scores, false);
  }

  public static boolean matchesAnyTerm(List<NodeSelectorTerm> terms, Node node) {
    if (terms != null) {
      for (NodeSelectorTerm term : terms) {
        if (matches(term, node)) {
          return true;
        }
      }
    }
    return false;
  }

  static boolean matches(NodeSelectorTerm term, Node node) {
    if (term == null) {
      return false;
    }
    List<NodeSelectorRequirement> expressions = orEmpty(term.getMatchExpressions());
    List<NodeSelectorRequirement> fields = orEmpty(term.getMatchFields());
    if (expressions.isEmpty() && fields.isEmpty()) {
      return false;
    }
    Map<String, String> labels = labels(node);
    for (NodeSelectorRequirement r : expressions) {
      if (!matchesLabel(r, labels)) {
        return false;
      }
    }
    String name = node.getMetadata() == null ? null : node.getMetadata().getName();
    for (NodeSelectorRequirement r : fields) {
      if (!matchesField(r, name)) {
        return false;
      }
    }
    return true;
  }

  private static boolean matchesLabel(NodeSelectorRequirement r, Map<String, String> labels) {
    String key = r.getKey();
    if (key == null || key.isEmpty() || r.getOperator() == null) {
      return false;
    }
    List<String> values = orEmpty(r.getValues());
    String label = labels.get(key);
    return switch (r.getOperator()) {
      case "In" -> !values.isEmpty() && label != null && values.contains(label);
      case "NotIn" -> !values.isEmpty() && (label == null || !values.contains(label));
      case "Exists" -> values.isEmpty() && label != null;
      case "DoesNotExist" -> values.isEmpty() && label == null;
      case "Gt", "Lt" -> compareAsIntegers(r.getOperator(), values, label);
      default -> false;
    };
  }

  private static boolean compareAsIntegers(String operator, List<String> values, String label) {
    if (values.size() != 1 || label == null) {
      return false;
    }
    try {
      long wanted = Long.parseLong(values.get(0));
      long actual = Long.parseLong(label);
      return operator.equals("Gt") ? actual > wanted : actual < wanted;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean matchesField(NodeSelectorRequirement r, String nodeName) {
    List<String> values = orEmpty(r.getValues());
    if (!"metadata.name".equals(r.getKey()) || values.size() != 1 || r.getOperator() == null) {
      return false;
    }
    return switch (r.getOperator()) {
      case "In" -> values.get(0).equals(nodeName);
      case "NotIn" -> !values.get(0).equals(nodeName);
      default -> false;
    };
  }

  private static NodeAffinity nodeAffinity(Pod pod) {
    Affinity affinity = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
    return affinity == null ? null : affinity.getNodeAffinity();
  }

  private static Map<String, String> labels(Node node) {
    Map<String, String> labels = node.getMetadata() == null ? null : node.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
