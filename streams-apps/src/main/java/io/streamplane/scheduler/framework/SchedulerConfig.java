package io.streamplane.scheduler.framework;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.streamplane.api.Pod;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One scheduling profile: the scheduler name it answers to, how many nodes it scores, and the
 * weights of its score plugins.
 *
 * <p>{@link #defaults()} is kube-scheduler 1.32's default profile as far as this scheduler goes:
 * {@code default-scheduler}, adaptive percentage (0), and the default weights NodeResourcesFit 1,
 * NodeResourcesBalancedAllocation 1, NodeAffinity 2, TaintToleration 3.
 *
 * <p>{@link #parse} reads a {@code kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration}:
 * {@code percentageOfNodesToScore} (top level, overridden by the profile's), {@code
 * profiles[0].schedulerName}, and {@code profiles[0].plugins.score} with Kubernetes' merge rules:
 * {@code disabled} entries (or {@code "*"}) remove default plugins, {@code enabled} entries add a
 * plugin or override a default one's weight, and a missing or zero weight means 1.
 *
 * <p>From {@code profiles[0].pluginConfig}, the {@code NodeResourcesFit} entry's {@code
 * args.scoringStrategy} ({@link ScoringStrategy}: {@code type}, {@code resources}, {@code
 * requestedToCapacityRatio.shape}) decides how NodeResourcesFit scores.
 *
 * <p>Limits: one profile only (more is an error rather than silently ignored); the other extension
 * points, the other plugins' {@code pluginConfig} and NodeResourcesFit's other args, and the
 * client/leader-election settings are ignored; score plugins this scheduler does not implement
 * (PodTopologySpread, InterPodAffinity, ImageLocality, ...) are rejected with an error naming the
 * known ones.
 */
public record SchedulerConfig(
    String schedulerName,
    int percentageOfNodesToScore,
    Map<String, Integer> scoreWeights,
    ScoringStrategy scoringStrategy) {

  public static final String DEFAULT_SCHEDULER_NAME = "default-scheduler";
  public static final String API_VERSION = "kubescheduler.config.k8s.io/v1";
  public static final String KIND = "KubeSchedulerConfiguration";

  /** kube-scheduler's {@code minFeasibleNodesToFind}. */
  static final int MIN_FEASIBLE_NODES_TO_FIND = 100;

  /** kube-scheduler's {@code minFeasibleNodesPercentageToFind}. */
  static final int MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

  private static final Map<String, Integer> DEFAULT_WEIGHTS =
      Map.of(
          NodeResourcesFitPlugin.NAME, 1,
          BalancedAllocationPlugin.NAME, 1,
          NodeAffinityPlugin.NAME, 2,
          TaintTolerationPlugin.NAME, 3);

  /** The score plugins this scheduler implements. */
  public static final Set<String> SCORE_PLUGINS = DEFAULT_WEIGHTS.keySet();

  public SchedulerConfig {
    if (schedulerName == null || schedulerName.isEmpty()) {
      throw new IllegalArgumentException("schedulerName must not be empty");
    }
    if (percentageOfNodesToScore < 0 || percentageOfNodesToScore > 100) {
      throw new IllegalArgumentException(
          "percentageOfNodesToScore must be between 0 and 100, got " + percentageOfNodesToScore);
    }
    for (Map.Entry<String, Integer> e : scoreWeights.entrySet()) {
      requireKnown(e.getKey());
      if (e.getValue() == null || e.getValue() < 1) {
        throw new IllegalArgumentException(
            "score plugin " + e.getKey() + " needs a positive weight, got " + e.getValue());
      }
    }
    scoreWeights = Collections.unmodifiableMap(new TreeMap<>(scoreWeights));
    if (scoringStrategy == null) {
      scoringStrategy = ScoringStrategy.LEAST_ALLOCATED;
    }
  }

  /** A profile whose NodeResourcesFit scores with kube-scheduler's default, LeastAllocated. */
  public SchedulerConfig(
      String schedulerName, int percentageOfNodesToScore, Map<String, Integer> scoreWeights) {
    this(schedulerName, percentageOfNodesToScore, scoreWeights, ScoringStrategy.LEAST_ALLOCATED);
  }

  public static SchedulerConfig defaults() {
    return new SchedulerConfig(DEFAULT_SCHEDULER_NAME, 0, DEFAULT_WEIGHTS);
  }

  /** This profile with NodeResourcesFit scoring by {@code strategy}. */
  public SchedulerConfig withScoringStrategy(ScoringStrategy strategy) {
    return new SchedulerConfig(schedulerName, percentageOfNodesToScore, scoreWeights, strategy);
  }

  /** Whether this profile schedules the pod (an empty {@code schedulerName} means the default). */
  public boolean responsibleFor(Pod pod) {
    String wanted = pod.getSpec() == null ? null : pod.getSpec().getSchedulerName();
    return schedulerName.equals(
        wanted == null || wanted.isEmpty() ? DEFAULT_SCHEDULER_NAME : wanted);
  }

  /**
   * How many feasible nodes to find before scoring (kube-scheduler's {@code
   * numFeasibleNodesToFind}): every node below 100 nodes; otherwise the configured percentage, or
   * when it is 0 the adaptive {@code 50 - nodes/125} percent (at least 5); never fewer than 100.
   */
  public int numFeasibleNodesToFind(int numAllNodes) {
    if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) {
      return numAllNodes;
    }
    int percentage = percentageOfNodesToScore;
    if (percentage == 0) {
      percentage = Math.max(50 - numAllNodes / 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
    }
    int numNodes = (int) ((long) numAllNodes * percentage / 100);
    return Math.max(numNodes, MIN_FEASIBLE_NODES_TO_FIND);
  }

  /** Reads a KubeSchedulerConfiguration YAML document; see the class comment for what is used. */
  public static SchedulerConfig parse(String yaml) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "scheduler configuration is not valid YAML: " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("scheduler configuration must be a YAML mapping");
    }
    requireText(root, "apiVersion", API_VERSION);
    requireText(root, "kind", KIND);
    int percentage = percentage(root.get("percentageOfNodesToScore"), 0);

    JsonNode profiles = root.get("profiles");
    if (profiles == null || profiles.isNull() || profiles.isEmpty()) {
      return new SchedulerConfig(DEFAULT_SCHEDULER_NAME, percentage, DEFAULT_WEIGHTS);
    }
    if (!profiles.isArray()) {
      throw new IllegalArgumentException("profiles must be a list");
    }
    if (profiles.size() > 1) {
      throw new IllegalArgumentException(
          "only one scheduler profile is supported, got " + profiles.size());
    }
    JsonNode profile = profiles.get(0);
    JsonNode name = profile.get("schedulerName");
    String schedulerName = name == null || name.isNull() ? DEFAULT_SCHEDULER_NAME : name.asText();
    percentage = percentage(profile.get("percentageOfNodesToScore"), percentage);
    return new SchedulerConfig(
        schedulerName,
        percentage,
        scoreWeights(profile.at("/plugins/score")),
        scoringStrategy(profile.get("pluginConfig")));
  }

  private static ScoringStrategy scoringStrategy(JsonNode pluginConfig) {
    if (pluginConfig == null || pluginConfig.isNull()) {
      return ScoringStrategy.LEAST_ALLOCATED;
    }
    if (!pluginConfig.isArray()) {
      throw new IllegalArgumentException("pluginConfig must be a list");
    }
    JsonNode fitArgs = null;
    for (JsonNode entry : pluginConfig) {
      if (NodeResourcesFitPlugin.NAME.equals(entry.path("name").asText())) {
        if (fitArgs != null) {
          throw new IllegalArgumentException(
              "pluginConfig has more than one entry for " + NodeResourcesFitPlugin.NAME);
        }
        fitArgs = entry.path("args");
      }
    }
    JsonNode strategy = fitArgs == null ? null : fitArgs.get("scoringStrategy");
    if (strategy == null || strategy.isNull()) {
      return ScoringStrategy.LEAST_ALLOCATED;
    }
    ScoringStrategy.Type type = ScoringStrategy.type(strategy.path("type").asText(""));
    List<ScoringStrategy.ResourceWeight> resources = new ArrayList<>();
    for (JsonNode r : list(strategy, "resources", "scoringStrategy.")) {
      JsonNode name = r.get("name");
      JsonNode weight = r.get("weight");
      if (name == null || !name.isTextual()) {
        throw new IllegalArgumentException(
            "every scoringStrategy.resources entry needs a name, got " + r);
      }
      if (weight == null || !weight.canConvertToExactIntegral()) {
        throw new IllegalArgumentException(
            "scoringStrategy resource "
                + name.asText()
                + " needs an integer weight, got "
                + weight);
      }
      resources.add(new ScoringStrategy.ResourceWeight(name.asText(), weight.asLong()));
    }
    List<ScoringStrategy.ShapePoint> shape = new ArrayList<>();
    JsonNode ratio = strategy.get("requestedToCapacityRatio");
    if (ratio != null && !ratio.isNull()) {
      for (JsonNode p : list(ratio, "shape", "scoringStrategy.requestedToCapacityRatio.")) {
        shape.add(
            new ScoringStrategy.ShapePoint(
                integer(p, "utilization", "shape"), integer(p, "score", "shape")));
      }
    }
    return new ScoringStrategy(type, resources, shape);
  }

  private static int integer(JsonNode parent, String field, String where) {
    JsonNode value = parent.get(field);
    if (value == null || !value.canConvertToExactIntegral()) {
      throw new IllegalArgumentException(
          "every " + where + " point needs an integer " + field + ", got " + parent);
    }
    return value.asInt();
  }

  private static Map<String, Integer> scoreWeights(JsonNode score) {
    Map<String, Integer> weights = new TreeMap<>(DEFAULT_WEIGHTS);
    if (score.isMissingNode() || score.isNull()) {
      return weights;
    }
    for (JsonNode plugin : list(score, "disabled", "plugins.score.")) {
      String name = pluginName(plugin, "disabled");
      if (name.equals("*")) {
        weights.clear();
      } else {
        requireKnown(name);
        weights.remove(name);
      }
    }
    for (JsonNode plugin : list(score, "enabled", "plugins.score.")) {
      String name = pluginName(plugin, "enabled");
      requireKnown(name);
      JsonNode weight = plugin.get("weight");
      if (weight != null && !weight.isNull() && !weight.canConvertToExactIntegral()) {
        throw new IllegalArgumentException(
            "weight of score plugin " + name + " must be an integer, got " + weight);
      }
      // As in kube-scheduler: "a weight of zero is not permitted", it means 1.
      int w = weight == null || weight.isNull() ? 0 : weight.asInt();
      if (w < 0) {
        throw new IllegalArgumentException(
            "weight of score plugin " + name + " must not be negative, got " + w);
      }
      weights.put(name, w == 0 ? 1 : w);
    }
    return weights;
  }

  private static Iterable<JsonNode> list(JsonNode parent, String field, String prefix) {
    JsonNode list = parent.get(field);
    if (list == null || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw new IllegalArgumentException(prefix + field + " must be a list");
    }
    return list;
  }

  private static String pluginName(JsonNode plugin, String field) {
    JsonNode name = plugin.get("name");
    if (name == null || !name.isTextual() || name.asText().isEmpty()) {
      throw new IllegalArgumentException(
          "every entry of plugins.score." + field + " needs a name, got " + plugin);
    }
    return name.asText();
  }

  private static int percentage(JsonNode value, int otherwise) {
    if (value == null || value.isNull()) {
      return otherwise;
    }
    if (!value.canConvertToExactIntegral()) {
      throw new IllegalArgumentException(
          "percentageOfNodesToScore must be an integer, got " + value);
    }
    return value.asInt();
  }

  private static void requireText(JsonNode root, String field, String expected) {
    JsonNode value = root.get(field);
    if (value == null || !expected.equals(value.asText())) {
      throw new IllegalArgumentException(
          field
              + " must be "
              + expected
              + ", got "
              + (value == null ? "nothing" : "'" + value.asText() + "'"));
    }
  }

  private static void requireKnown(String plugin) {
    if (!SCORE_PLUGINS.contains(plugin)) {
      throw new IllegalArgumentException(
          "score plugin '"
              + plugin
              + "' is not implemented by this scheduler; known: "
              + new TreeMap<>(DEFAULT_WEIGHTS).keySet());
    }
  }
}
