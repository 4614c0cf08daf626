package io.streamplane.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The Kafka client settings an operator adds to every Kafka client of a Streamplane process —
 * producers, consumers, admin clients and Kafka Streams' own clients — typically how to
 * authenticate to the brokers: {@code security.protocol}, {@code sasl.*}, {@code ssl.*}. The CLI
 * reads them once at start from the file given with {@code --kafka-config}, as Kafka's own tools
 * take {@code --command-config}, and every place that builds a client calls {@link #applyTo} right
 * after it puts {@code bootstrap.servers}.
 *
 * <p>Contract: the settings are process-wide, like Kafka's own JAAS configuration ({@code
 * java.security.auth.login.config}): {@link #use} installs them for every client built afterwards
 * in this JVM; clients already built keep theirs. Settings Streamplane owns — where the brokers
 * are, serializers and serdes, {@code processing.guarantee}, transactional ids, {@code
 * isolation.level}, the application id and consumer groups, with or without a Kafka Streams client
 * prefix such as {@code producer.} — are refused when the settings are made, so a file can never
 * change how Streamplane reads and writes its log. Any other setting Streamplane also sets at a
 * given client keeps Streamplane's value there, since Streamplane puts its own after these.
 *
 * <p>Limits: one set of settings per process, so two planes in one JVM (tests) cannot authenticate
 * differently at the same time; values are kept in memory as read, secrets included, and never
 * printed.
 */
public final class KafkaClientSettings {

  /** No settings: clients get only what Streamplane puts. */
  public static final KafkaClientSettings NONE = new KafkaClientSettings(Map.of(), "no file");

  private static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

  private static final Set<String> OWNED =
      Set.of(
          BOOTSTRAP_SERVERS,
          "key.serializer",
          "value.serializer",
          "key.deserializer",
          "value.deserializer",
          "default.key.serde",
          "default.value.serde",
          "processing.guarantee",
          "transactional.id",
          "isolation.level",
          "application.id",
          "group.id",
          "group.instance.id",
          "enable.auto.commit");

  /** Kafka Streams' prefixes for the settings of one of its clients only. */
  private static final List<String> CLIENT_PREFIXES =
      List.of(
          "main.consumer.",
          "restore.consumer.",
          "global.consumer.",
          "consumer.",
          "producer.",
          "admin.");

  private static volatile KafkaClientSettings processWide = NONE;

  private final Map<String, String> settings;
  private final String source;

  private KafkaClientSettings(Map<String, String> settings, String source) {
    this.settings = settings;
    this.source = source;
  }

  /**
   * Reads a Java properties file of Kafka client settings.
   *
   * @throws IllegalArgumentException if the file cannot be read, or sets what Streamplane owns
   */
  public static KafkaClientSettings load(Path file) {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      props.load(in);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cannot read Kafka client settings from " + file + ": " + e, e);
    }
    Map<String, String> settings = new TreeMap<>();
    props.stringPropertyNames().forEach(name -> settings.put(name, props.getProperty(name)));
    return of(settings, file.toString());
  }

  /**
   * Settings given as a map; {@code source} names where they came from in error messages.
   *
   * @throws IllegalArgumentException if they set what Streamplane owns
   */
  public static KafkaClientSettings of(Map<String, String> settings, String source) {
    Set<String> refused = new TreeSet<>();
    settings.keySet().stream().filter(KafkaClientSettings::owned).forEach(refused::add);
    if (!refused.isEmpty()) {
      throw new IllegalArgumentException(
          source
              + " sets "
              + String.join(", ", refused)
              + ": Streamplane sets "
              + (refused.size() == 1 ? "this" : "these")
              + " itself (the brokers with --bootstrap-server); remove "
              + (refused.size() == 1 ? "it" : "them")
              + " from the Kafka client settings");
    }
    return new KafkaClientSettings(
        Collections.unmodifiableMap(new TreeMap<>(settings)), Objects.requireNonNull(source));
  }

  private static boolean owned(String name) {
    if (OWNED.contains(name)) {
      return true;
    }
    for (String prefix : CLIENT_PREFIXES) {
      if (name.startsWith(prefix) && OWNED.contains(name.substring(prefix.length()))) {
        return true;
      }
    }
    return false;
  }

  /** Makes these the settings of every Kafka client this process builds from now on. */
  public static void use(KafkaClientSettings settings) {
    processWide = Objects.requireNonNull(settings);
  }

  /** The settings this process's clients get now; {@link #NONE} unless {@link #use}d. */
  public static KafkaClientSettings current() {
    return processWide;
  }

  /**
   * Adds the process's settings to a client configuration (a {@code Properties} or a map) and
   * returns it. Call it right after putting {@code bootstrap.servers}, before Streamplane's own
   * settings, which then keep their values.
   */
  public static <M extends Map<? super String, ? super String>> M applyTo(M config) {
    processWide.settings.forEach(config::put);
    return config;
  }

  /**
   * A new, modifiable client configuration holding {@code bootstrap.servers} and the process's
   * settings, for a client that adds its own settings afterwards.
   */
  public static Map<String, Object> clientConfig(String bootstrapServers) {
    Map<String, Object> config = new HashMap<>();
    config.put(BOOTSTRAP_SERVERS, Objects.requireNonNull(bootstrapServers));
    return applyTo(config);
  }

  /**
   * The configuration of a consumer that materializes a topic by itself: it reads only committed
   * records (read_committed), commits nothing (it starts from where it chooses), takes up to {@code
   * maxPollRecords} at a time, and lets the broker hold a fetch for up to 500 ms — the broker
   * answers as soon as records arrive, so a long wait costs no latency, and an idle reader does not
   * fetch hundreds of times a second.
   */
  public static Properties committedReader(String bootstrapServers, int maxPollRecords) {
    Properties props = new Properties();
    props.put(BOOTSTRAP_SERVERS, Objects.requireNonNull(bootstrapServers));
    applyTo(props);
    props.put("isolation.level", "read_committed");
    props.put("enable.auto.commit", false);
    props.put("max.poll.records", maxPollRecords);
    props.put("fetch.max.wait.ms", 500);
    return props;
  }

  /** The setting names and values, unmodifiable. */
  public Map<String, String> settings() {
    return settings;
  }

  /** Names where the settings came from and which settings they hold, never their values. */
  @Override
  public String toString() {
    return "KafkaClientSettings{" + source + ": " + settings.keySet() + "}";
  }
}
