package io.streamplane.gateway.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * An audit policy in Kubernetes' format ({@code audit.k8s.io/v1} {@code Policy}): rules tried in
 * order, the first that matches a request gives its level and the stages not to record; a request
 * no rule matches is not audited (level None), as kube-apiserver's policy checker decides. A rule
 * matches when each of its non-empty lists matches: {@code users}, {@code userGroups} (any group),
 * {@code verbs}, {@code namespaces} and {@code resources} (group, resources with {@code *}, {@code
 * resource/subresource}, {@code *}{@code /subresource} and {@code resource/*}, resourceNames) for
 * resource requests only, {@code nonResourceURLs} (exact, {@code *}, or a prefix ending in {@code
 * *}) for non-resource requests only. The policy's top-level {@code omitStages} are added to every
 * rule's.
 *
 * <p>{@link #defaultPolicy()} is the gateway's policy when none is given; see docs/audit.md.
 */
public record AuditPolicy(List<Rule> rules, Set<AuditStage> omitStages) {

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final String DEFAULT = "default-audit-policy.yaml";

  public AuditPolicy {
    rules = List.copyOf(rules);
    omitStages =
        omitStages.isEmpty() ? EnumSet.noneOf(AuditStage.class) : EnumSet.copyOf(omitStages);
  }

  /** One group's resources in a rule: an empty list of resources means all of the group's. */
  public record GroupResources(String group, List<String> resources, List<String> resourceNames) {
    public GroupResources {
      group = group == null ? "" : group;
      resources = List.copyOf(resources);
      resourceNames = List.copyOf(resourceNames);
    }
  }

  /** One rule of a policy; an empty list matches everything. */
  public record Rule(
      AuditLevel level,
      List<String> users,
      List<String> userGroups,
      List<String> verbs,
      List<GroupResources> resources,
      List<String> namespaces,
      List<String> nonResourceURLs,
      Set<AuditStage> omitStages) {

    public Rule {
      users = List.copyOf(users);
      userGroups = List.copyOf(userGroups);
      verbs = List.copyOf(verbs);
      resources = List.copyOf(resources);
      namespaces = List.copyOf(namespaces);
      nonResourceURLs = List.copyOf(nonResourceURLs);
      omitStages =
          omitStages.isEmpty() ? EnumSet.noneOf(AuditStage.class) : EnumSet.copyOf(omitStages);
    }

    /** True when the rule applies to {@code request} by {@code user} (null: not authenticated). */
    boolean matches(UserInfo user, RequestInfo request) {
      if (!users.isEmpty() && (user == null || !users.contains(user.getUsername()))) {
        return false;
      }
      if (!userGroups.isEmpty()
          && (user == null || user.getGroups().stream().noneMatch(userGroups::contains))) {
        return false;
      }
      if (!verbs.isEmpty() && !verbs.contains(request.verb())) {
        return false;
      }
      if (!namespaces.isEmpty() || !resources.isEmpty()) {
        return matchesResource(request);
      }
      if (!nonResourceURLs.isEmpty()) {
        return !request.resourceRequest()
            && nonResourceURLs.stream().anyMatch(spec -> pathMatches(request.path(), spec));
      }
      return true;
    }

    private boolean matchesResource(RequestInfo request) {
      if (!request.resourceRequest()) {
        return false;
      }
      String namespace = request.namespace() == null ? "" : request.namespace();
      if (!namespaces.isEmpty() && !namespaces.contains(namespace)) {
        return false;
      }
      if (resources.isEmpty()) {
        return true;
      }
      String resource = request.resource();
      String subresource = request.subresource() == null ? "" : request.subresource();
      String combined = subresource.isEmpty() ? resource : resource + "/" + subresource;
      String name = request.name() == null ? "" : request.name();
      for (GroupResources gr : resources) {
        if (!gr.group().equals(request.group())) {
          continue;
        }
        if (gr.resources().isEmpty()) {
          return true;
        }
        if (!gr.resourceNames().isEmpty() && !gr.resourceNames().contains(name)) {
          continue;
        }
        for (String res : gr.resources()) {
          if (res.equals(combined) || res.equals("*")) {
            return true;
          }
          if (!subresource.isEmpty()
              && res.startsWith("*/")
              && res.substring(2).equals(subresource)) {
            return true;
          }
          if (res.endsWith("/*") && res.substring(0, res.length() - 2).equals(resource)) {
            return true;
          }
        }
      }
      return false;
    }

    private static boolean pathMatches(String path, String spec) {
      if (spec.equals("*") || spec.equals(path)) {
        return true;
      }
      return spec.endsWith("*") && path.startsWith(spec.replaceAll("\\*+$", ""));
    }
  }

  /** What the policy decides for one request: its level and the stages not to record. */
  public record Decision(AuditLevel level, Set<AuditStage> omitStages) {
    public boolean records(AuditStage stage) {
      return level != AuditLevel.None && !omitStages.contains(stage);
    }
  }

  /** The level and omitted stages of {@code request} by {@code user} (null: unauthenticated). */
  public Decision decide(UserInfo user, RequestInfo request) {
    for (Rule rule : rules) {
      if (rule.matches(user, request)) {
        Set<AuditStage> omitted = EnumSet.noneOf(AuditStage.class);
        omitted.addAll(omitStages);
        omitted.addAll(rule.omitStages());
        return new Decision(rule.level(), omitted);
      }
    }
    return new Decision(AuditLevel.None, omitStages);
  }

  /** A policy recording every request at {@code level}. */
  public static AuditPolicy everything(AuditLevel level) {
    return new AuditPolicy(
        List.of(
            new Rule(
                level, List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), Set.of())),
        Set.of());
  }

  /** The gateway's policy when none is given (the file {@value #DEFAULT} in this package). */
  public static AuditPolicy defaultPolicy() {
    try (InputStream in = AuditPolicy.class.getResourceAsStream(DEFAULT)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULT + " is missing from the gateway's jar");
      }
      return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + DEFAULT, e);
    }
  }

  /** The policy in {@code file}; an {@link IllegalArgumentException} names what is wrong. */
  public static AuditPolicy load(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read audit policy " + file + ": " + e, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("audit policy " + file + ": " + e.getMessage(), e);
    }
  }

  /** A policy written as YAML or JSON; an {@link IllegalArgumentException} names what is wrong. */
  public static AuditPolicy parse(String text) {
    JsonNode doc;
    try {
      doc = YAML.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("not YAML: " + e.getMessage(), e);
    }
    if (doc == null || !doc.isObject()) {
      throw new IllegalArgumentException("not a Policy object");
    }
    String apiVersion = doc.path("apiVersion").asText("");
    if (!apiVersion.equals("audit.k8s.io/v1") || !doc.path("kind").asText("").equals("Policy")) {
      throw new IllegalArgumentException(
          "expected apiVersion audit.k8s.io/v1 and kind Policy, got "
              + apiVersion
              + " "
              + doc.path("kind").asText(""));
    }
    List<Rule> rules = new ArrayList<>();
    int index = 0;
    for (JsonNode rule : doc.path("rules")) {
      rules.add(rule(rule, "rules[" + index++ + "]"));
    }
    return new AuditPolicy(rules, stages(doc.path("omitStages"), "omitStages"));
  }

  private static Rule rule(JsonNode rule, String where) {
    Iterator<String> fields = rule.fieldNames();
    while (fields.hasNext()) {
      String field = fields.next();
      if (!List.of(
              "level",
              "users",
              "userGroups",
              "verbs",
              "resources",
              "namespaces",
              "nonResourceURLs",
              "omitStages",
              "omitManagedFields")
          .contains(field)) {
        throw new IllegalArgumentException(where + ": unknown field \"" + field + "\"");
      }
    }
    String level = rule.path("level").asText("");
    AuditLevel parsed;
    try {
      parsed = AuditLevel.valueOf(level);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          where
              + ".level: Unsupported value: \""
              + level
              + "\": supported values: \"None\","
              + " \"Metadata\", \"Request\", \"RequestResponse\"");
    }
    List<GroupResources> resources = new ArrayList<>();
    for (JsonNode gr : rule.path("resources")) {
      resources.add(
          new GroupResources(
              gr.path("group").asText(""),
              strings(gr.path("resources")),
              strings(gr.path("resourceNames"))));
    }
    List<String> nonResourceURLs = strings(rule.path("nonResourceURLs"));
    if (!nonResourceURLs.isEmpty()
        && (!resources.isEmpty() || rule.path("namespaces").size() > 0)) {
      throw new IllegalArgumentException(
          where + ": rules cannot apply to both regular resources and non-resource URLs");
    }
    return new Rule(
        parsed,
        strings(rule.path("users")),
        strings(rule.path("userGroups")),
        strings(rule.path("verbs")),
        resources,
        strings(rule.path("namespaces")),
        nonResourceURLs,
        stages(rule.path("omitStages"), where + ".omitStages"));
  }

  private static Set<AuditStage> stages(JsonNode list, String where) {
    Set<AuditStage> stages = EnumSet.noneOf(AuditStage.class);
    for (String s : strings(list)) {
      try {
        stages.add(AuditStage.valueOf(s));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            where
                + ": Unsupported value: \""
                + s
                + "\": supported values: \"RequestReceived\","
                + " \"ResponseStarted\", \"ResponseComplete\", \"Panic\"");
      }
    }
    return stages;
  }

  private static List<String> strings(JsonNode list) {
    List<String> values = new ArrayList<>();
    for (JsonNode v : list) {
      values.add(v.asText());
    }
    return values;
  }
}
