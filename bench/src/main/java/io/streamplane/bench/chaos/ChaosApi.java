package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.bench.chaos.Ledger.Outcome;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Kubeconfig;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.util.List;

/**
 * One workload client's connection to the gateways: a {@link KubeClient} per gateway, the one in
 * use, and the recording of each request in the {@link Ledger}. After an answer whose outcome is
 * unknown (no answer, or a 5xx) the client moves on to the next gateway, as a client behind a load
 * balancer would be sent elsewhere, after a pause of 250 ms.
 */
public final class ChaosApi {

  /** A request to send with a client. */
  interface Call {
    KubeClient.Response send(KubeClient client) throws IOException, InterruptedException;
  }

  private static final long BACKOFF_MILLIS = 250;

  private final List<String> servers;
  private final List<KubeClient> clients;
  private final int client;
  private final Ledger ledger;
  private int current;

  ChaosApi(List<String> servers, ClusterPki.ClientIdentity identity, int client, Ledger ledger) {
    this.servers = servers;
    this.clients = servers.stream().map(s -> client(s, identity)).toList();
    this.client = client;
    this.ledger = ledger;
    this.current = client % servers.size();
  }

  /** A client of {@code server} presenting {@code identity}'s certificate, trusting its CA. */
  public static KubeClient client(String server, ClusterPki.ClientIdentity identity) {
    return new KubeClient(
        new Kubeconfig(
            null,
            "chaos",
            server,
            "default",
            List.of(identity.serverCa()),
            false,
            List.of(identity.certificate()),
            identity.key(),
            null,
            null,
            null));
  }

  /** Sends {@code call} and records it; never throws (an exception is an unknown outcome). */
  Ledger.Op send(
      String kind,
      String resource,
      String namespace,
      String name,
      String precondition,
      String written,
      Call call) {
    int gateway = current;
    long invoked = ledger.now();
    Outcome outcome;
    int status = 0;
    String error = null;
    String version = null;
    String read = null;
    try {
      KubeClient.Response r = call.send(clients.get(gateway));
      status = r.status();
      if (r.ok()) {
        outcome = Outcome.OK;
        JsonNode body = r.body();
        if (body != null && !body.path("kind").asText().equals("Status")) {
          version = body.at("/metadata/resourceVersion").asText(null);
          read = body.at("/data/v").asText(null);
        }
      } else if (status >= 400 && status < 500 && status != 408) {
        outcome = Outcome.FAILED;
        error = r.message();
      } else {
        outcome = Outcome.UNKNOWN;
        error = status + " " + r.message();
      }
    } catch (IOException e) {
      outcome = Outcome.UNKNOWN;
      error = e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = Outcome.UNKNOWN;
      error = "interrupted";
    }
    if (outcome == Outcome.UNKNOWN) {
      current = (current + 1) % clients.size();
    }
    long completed = ledger.now();
    if (outcome == Outcome.UNKNOWN) {
      // A refused connection fails at once; without a pause, clients whose gateways are all down
      // would spin, as no real client does (client-go backs off before retrying).
      try {
        Thread.sleep(BACKOFF_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Ledger.Op op =
        new Ledger.Op(
            ledger.nextId(),
            client,
            servers.get(gateway),
            kind,
            resource,
            namespace,
            name,
            invoked,
            completed,
            outcome,
            status,
            error,
            precondition,
            written,
            version,
            read);
    ledger.add(op);
    return op;
  }
}
