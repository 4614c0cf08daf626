package io.streamplane.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.streamplane.cli.Streamplane;
import io.streamplane.controller.ControllersApp;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.scheduler.SchedulerApp;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.TopicSpec;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The deployment files of {@code infra/} agree with the code: the Docker Compose file and the
 * Kubernetes manifests (Strimzi resources and the roles' Deployments) are parsed — no Docker engine
 * or Kubernetes cluster runs here — and compared with the topic catalogue, the local cluster's
 * broker settings and the role commands' options.
 */
class DeploymentManifestsTest {

  private static final Path INFRA = Path.of("..", "infra");
  private static final String KAFKA_CONFIG = "/etc/streamplane/kafka-client/kafka.properties";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** The broker settings Streamplane depends on, as the local cluster sets them. */
  private static final List<String> BROKER_SETTINGS =
      List.of(
          "default.replication.factor",
          "min.insync.replicas",
          "offsets.topic.replication.factor",
          "transaction.state.log.replication.factor",
          "transaction.state.log.min.isr",
          "auto.create.topics.enable",
          "unclean.leader.election.enable",
          "broker.session.timeout.ms",
          "replica.lag.time.max.ms");

  private final Topics catalogue =
      new Topics(new TopicLayout("sp", 6, 6, 3, (short) 3), new InMemorySchemaCatalog());

  private final Map<String, String> brokerConfig =
      new BrokerConfig(0, 3, 29100, Path.of("data")).properties();

  @Test
  void kafkaTopicsAreTheCatalogueWithReplicationFactor3AndMinInsync2() throws IOException {
    Map<String, JsonNode> topics = new LinkedHashMap<>();
    for (JsonNode topic : documents("kubernetes/topics.yaml")) {
      assertThat(topic.path("kind").asText()).isEqualTo("KafkaTopic");
      topics.put(topic.path("spec").path("topicName").asText(), topic.path("spec"));
    }
    assertThat(topics.keySet())
        .containsExactlyInAnyOrderElementsOf(
            catalogue.all().stream().map(TopicSpec::name).toList());
    for (TopicSpec spec : catalogue.all()) {
      JsonNode topic = topics.get(spec.name());
      assertThat(topic.path("partitions").asInt()).as(spec.name()).isEqualTo(spec.partitions());
      assertThat(topic.path("replicas").asInt()).as(spec.name()).isEqualTo(3);
      assertThat(strings(topic.path("config"))).as(spec.name()).isEqualTo(spec.configs());
      assertThat(spec.configs()).containsEntry("min.insync.replicas", "2");
    }
  }

  @Test
  void strimziKafkaIsThreeKraftNodesWithTheLocalClustersBrokerSettings() throws IOException {
    List<JsonNode> docs = documents("kubernetes/kafka.yaml");
    JsonNode pool = ofKind(docs, "KafkaNodePool").get(0);
    JsonNode kafka = ofKind(docs, "Kafka").get(0);
    assertThat(pool.path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(texts(pool.path("spec").path("roles")))
        .containsExactlyInAnyOrder("controller", "broker");
    assertThat(pool.path("metadata").path("labels").path("strimzi.io/cluster").asText())
        .isEqualTo(kafka.path("metadata").path("name").asText());
    assertThat(kafka.path("metadata").path("annotations").path("strimzi.io/kraft").asText())
        .isEqualTo("enabled");
    assertThat(kafka.path("spec").path("kafka").path("version").asText())
        .isEqualTo(AppInfoParser.getVersion());
    Map<String, String> config = strings(kafka.path("spec").path("kafka").path("config"));
    for (String key : BROKER_SETTINGS) {
      assertThat(config.get(key)).as(key).isEqualTo(brokerConfig.get(key));
    }
    assertThat(kafka.path("spec").path("kafka").path("authorization").path("type").asText())
        .isEqualTo("simple");
  }

  @Test
  void composeRunsThreeKraftBrokersOfTheClientsVersionWithTheLocalClustersSettings()
      throws IOException {
    JsonNode services = documents("compose/docker-compose.yaml").get(0).path("services");
    List<String> brokers = new ArrayList<>();
    services
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getValue().path("image").asText().startsWith("apache/kafka:")) {
                brokers.add(e.getKey());
              }
            });
    assertThat(brokers).hasSize(3);
    Set<String> nodeIds = new HashSet<>();
    for (String name : brokers) {
      JsonNode broker = services.path(name);
      assertThat(broker.path("image").asText())
          .isEqualTo("apache/kafka:" + AppInfoParser.getVersion());
      Map<String, String> env = strings(broker.path("environment"));
      assertThat(env.get("KAFKA_PROCESS_ROLES")).isEqualTo("broker,controller");
      assertThat(env.get("KAFKA_CONTROLLER_QUORUM_VOTERS").split(",")).hasSize(3);
      nodeIds.add(env.get("KAFKA_NODE_ID"));
      for (String key : BROKER_SETTINGS) {
        String variable = "KAFKA_" + key.toUpperCase().replace('.', '_');
        assertThat(env.get(variable)).as(name + " " + variable).isEqualTo(brokerConfig.get(key));
      }
    }
    assertThat(nodeIds).hasSize(3);
  }

  @Test
  void onlyTheStoreMayWriteEvents() throws IOException {
    List<String> writers = new ArrayList<>();
    for (JsonNode user : ofKind(documents("kubernetes/users.yaml"), "KafkaUser")) {
      for (JsonNode acl : user.path("spec").path("authorization").path("acls")) {
        JsonNode resource = acl.path("resource");
        boolean matches =
            resource.path("type").asText().equals("topic")
                && (resource.path("patternType").asText("literal").equals("prefix")
                    ? "sp.events".startsWith(resource.path("name").asText())
                    : "sp.events".equals(resource.path("name").asText()));
        List<String> operations = texts(acl.path("operations"));
        if (matches && (operations.contains("Write") || operations.contains("All"))) {
          writers.add(user.path("metadata").path("name").asText());
        }
      }
    }
    assertThat(writers).containsExactly("streamplane-store");
  }

  @Test
  void eachStreamsApplicationOwnsItsInternalTopicsGroupAndTransactionalIds() throws IOException {
    Map<String, String> applications =
        Map.of(
            "streamplane-store", StoreApp.applicationId(catalogue),
            "streamplane-controllers", ControllersApp.applicationId(catalogue),
            "streamplane-binder", SchedulerApp.binderApplicationId(catalogue),
            "streamplane-scheduler",
                SchedulerApp.schedulerApplicationId(catalogue, SchedulerConfig.defaults()));
    Map<String, JsonNode> users = new LinkedHashMap<>();
    for (JsonNode user : ofKind(documents("kubernetes/users.yaml"), "KafkaUser")) {
      users.put(user.path("metadata").path("name").asText(), user);
    }
    applications.forEach(
        (user, applicationId) -> {
          assertThat(users).containsKey(user);
          for (String type : List.of("topic", "group", "transactionalId")) {
            boolean owned = false;
            for (JsonNode acl : users.get(user).path("spec").path("authorization").path("acls")) {
              JsonNode resource = acl.path("resource");
              owned |=
                  resource.path("type").asText().equals(type)
                      && resource.path("patternType").asText().equals("prefix")
                      && (applicationId + "-").startsWith(resource.path("name").asText())
                      && texts(acl.path("operations")).contains("All");
            }
            assertThat(owned).as(user + " owns " + type + "s of " + applicationId).isTrue();
          }
        });
  }

  @Test
  void everyRolePresentsItsKafkaUsersCertificateThroughTheSharedKafkaConfig() throws IOException {
    List<JsonNode> docs = documents("kubernetes/streamplane.yaml");
    Properties settings = kafkaClientProperties(docs);
    assertThat(KafkaClientSettings.of(strings(settings), "the ConfigMap").settings())
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.truststore.location", "/etc/streamplane/kafka-cluster-ca/ca.crt")
        .containsEntry(
            "ssl.keystore.certificate.chain", "${dir:/etc/streamplane/kafka-user:user.crt}")
        .containsEntry("ssl.keystore.key", "${dir:/etc/streamplane/kafka-user:user.key}");
    Set<String> users = new HashSet<>();
    for (JsonNode user : ofKind(documents("kubernetes/users.yaml"), "KafkaUser")) {
      assertThat(user.path("spec").path("authentication").path("type").asText()).isEqualTo("tls");
      users.add(user.path("metadata").path("name").asText());
    }
    for (JsonNode deployment : ofKind(docs, "Deployment")) {
      JsonNode pod = deployment.path("spec").path("template").path("spec");
      Map<String, JsonNode> volumes = new LinkedHashMap<>();
      pod.path("volumes").forEach(v -> volumes.put(v.path("name").asText(), v));
      String name = deployment.path("metadata").path("name").asText();
      assertThat(users)
          .as(name)
          .contains(volumes.get("kafka-user").path("secret").path("secretName").asText());
      assertThat(volumes.get("kafka-cluster-ca").path("secret").path("secretName").asText())
          .as(name)
          .isEqualTo("sp-kafka-cluster-ca-cert");
      assertThat(volumes.get("kafka-client").path("configMap").path("name").asText())
          .as(name)
          .isEqualTo("streamplane-kafka-client");
      for (JsonNode container : pod.path("containers")) {
        List<String> args = texts(container.path("args"));
        assertThat(args.get(args.indexOf("--kafka-config") + 1)).as(name).isEqualTo(KAFKA_CONFIG);
        Map<String, String> mounts = new LinkedHashMap<>();
        container
            .path("volumeMounts")
            .forEach(m -> mounts.put(m.path("name").asText(), m.path("mountPath").asText()));
        assertThat(mounts)
            .as(name)
            .containsEntry("kafka-user", "/etc/streamplane/kafka-user")
            .containsEntry("kafka-cluster-ca", "/etc/streamplane/kafka-cluster-ca")
            .containsEntry("kafka-client", Path.of(KAFKA_CONFIG).getParent().toString());
      }
    }
  }

  @Test
  void everyRoleCommandLineParsesAndUsesReplicationFactor3(@TempDir Path dir) throws IOException {
    // The roles read the ConfigMap's file where it is mounted; here it is a local copy.
    Path kafkaConfig = dir.resolve("kafka.properties");
    try (var out = Files.newOutputStream(kafkaConfig)) {
      kafkaClientProperties(documents("kubernetes/streamplane.yaml")).store(out, null);
    }
    List<List<String>> commandLines = new ArrayList<>();
    JsonNode services = documents("compose/docker-compose.yaml").get(0).path("services");
    services.forEach(
        service -> {
          if (service.path("image").asText().startsWith("streamplane/")) {
            commandLines.add(texts(service.path("command")));
          }
        });
    List<String> gatewayPartitions = new ArrayList<>();
    for (JsonNode deployment : ofKind(documents("kubernetes/streamplane.yaml"), "Deployment")) {
      for (JsonNode container :
          deployment.path("spec").path("template").path("spec").path("containers")) {
        List<String> args = new ArrayList<>(texts(container.path("args")));
        args.replaceAll(arg -> arg.equals(KAFKA_CONFIG) ? kafkaConfig.toString() : arg);
        commandLines.add(args);
        assertThat(args.get(args.indexOf("--bootstrap-server") + 1))
            .startsWith("sp-kafka-kafka-bootstrap.")
            .endsWith(":9093");
        if (args.get(0).equals("gateway")) {
          gatewayPartitions.add(args.get(args.indexOf("--results-partition") + 1));
        }
      }
    }
    assertThat(gatewayPartitions).hasSize(2).doesNotHaveDuplicates();
    assertThat(commandLines).hasSizeGreaterThan(10);
    for (List<String> args : commandLines) {
      assertThatCode(
              () -> new CommandLine(new Streamplane()).parseArgs(args.toArray(String[]::new)))
          .as(String.join(" ", args))
          .doesNotThrowAnyException();
      assertThat(args.get(args.indexOf("--replication-factor") + 1)).as(args.get(0)).isEqualTo("3");
    }
  }

  @AfterEach
  void forgetTheKafkaClientSettingsParsed() {
    KafkaClientSettings.use(KafkaClientSettings.NONE);
  }

  private static Properties kafkaClientProperties(List<JsonNode> docs) throws IOException {
    JsonNode configMap =
        ofKind(docs, "ConfigMap").stream()
            .filter(
                d -> d.path("metadata").path("name").asText().equals("streamplane-kafka-client"))
            .findFirst()
            .orElseThrow();
    Properties properties = new Properties();
    properties.load(new StringReader(configMap.path("data").path("kafka.properties").asText()));
    return properties;
  }

  private static Map<String, String> strings(Properties properties) {
    Map<String, String> values = new LinkedHashMap<>();
    properties.stringPropertyNames().forEach(n -> values.put(n, properties.getProperty(n)));
    return values;
  }

  private static List<JsonNode> documents(String file) throws IOException {
    try (var parser = YAML.getFactory().createParser(INFRA.resolve(file).toFile())) {
      return YAML.readValues(parser, JsonNode.class).readAll().stream()
          .filter(d -> !d.isNull() && !d.isMissingNode())
          .toList();
    }
  }

  private static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
    List<JsonNode> found = docs.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
    assertThat(found).as(kind).isNotEmpty();
    return found;
  }

  private static List<String> texts(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> values = new LinkedHashMap<>();
    object.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
    return values;
  }
}
