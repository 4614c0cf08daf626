package io.streamplane.gateway.controller;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.topics.Topics;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's live gateways, as Kafka knows them: every gateway is a member of the consumer group
 * that shares out {@code controller-requests} ({@link ControllerRequestsConsumer}), under the
 * client id {@code gateway@<host>:<port>} (its API's address). Kafka drops a member that stops
 * heartbeating (a killed gateway) after the group's session timeout, and one that closes at once;
 * so the members are what kube-apiserver's lease endpoint reconciler learns from its leases,
 * without a write per heartbeat.
 */
public final class GatewayPeers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayPeers.class);

  /** The prefix of a gateway's client id in the group; the rest is its API's host:port. */
  static final String CLIENT_ID_PREFIX = "gateway@";

  private final Admin admin;
  private final String group;

  public GatewayPeers(String bootstrapServers, Topics topics) {
    this.admin = Admin.create(KafkaClientSettings.clientConfig(bootstrapServers));
    this.group = ControllerRequestsConsumer.group(topics);
  }

  /** The client id a gateway serving at {@code address} ({@code host:port}) joins the group as. */
  static String clientId(String address) {
    return CLIENT_ID_PREFIX + address;
  }

  /**
   * The {@code host:port} of every gateway in the group now, sorted; empty when Kafka could not say
   * (the caller then keeps what it knew).
   */
  public Optional<Set<String>> addresses() {
    try {
      ConsumerGroupDescription description =
          admin.describeConsumerGroups(List.of(group)).all().get(5, TimeUnit.SECONDS).get(group);
      Set<String> addresses = new TreeSet<>();
      for (MemberDescription member : description.members()) {
        if (member.clientId().startsWith(CLIENT_ID_PREFIX)) {
          addresses.add(member.clientId().substring(CLIENT_ID_PREFIX.length()));
        }
      }
      return Optional.of(addresses);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.debug("could not describe the group {}: {}", group, e.toString());
      return Optional.empty();
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}
