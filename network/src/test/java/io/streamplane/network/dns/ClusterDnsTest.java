package io.streamplane.network.dns;

import static io.streamplane.network.Objects.serve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamplane.network.ServiceTable;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.StringJoiner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** The DNS server on real sockets, asked by dnsjava's resolver over UDP and TCP. */
class ClusterDnsTest {

  private final ServiceTable table = new ServiceTable();
  private ClusterDns upstream;
  private ClusterDns dns;

  @AfterEach
  void close() {
    if (dns != null) {
      dns.close();
    }
    if (upstream != null) {
      upstream.close();
    }
  }

  @Test
  void answersOverUdpAndTcpAndTruncatesWhatUdpCannotCarry() throws Exception {
    StringJoiner addresses = new StringJoiner(",", "[", "]");
    for (int i = 1; i <= 40; i++) {
      addresses.add("{'ip':'127.5.0." + i + "'}");
    }
    serve(
        table,
        "default",
        "many",
        "{'clusterIP':'None','ports':[{'port':80}]}",
        "[{'addresses':" + addresses + ",'ports':[{'port':80}]}]");
    serve(table, "default", "web", "{'clusterIP':'127.96.5.1','ports':[{'port':80}]}", null);
    dns = new ClusterDns(new DnsAnswers(table, "cluster.local", null), local());

    SimpleResolver udp = resolver(dns);
    Message web = udp.send(query("web.default.svc.cluster.local.", Type.A));
    assertEquals("127.96.5.1", web.getSection(Section.ANSWER).get(0).rdataToString());

    // 40 A records do not fit in the 512 bytes of a client without EDNS: truncated over UDP, whole
    // over TCP.
    udp.setIgnoreTruncation(true);
    udp.setEDNS(-1); // no EDNS: the client takes 512 bytes
    Message truncated = udp.send(query("many.default.svc.cluster.local.", Type.A));
    assertTrue(truncated.getHeader().getFlag(Flags.TC));
    SimpleResolver tcp = resolver(dns);
    tcp.setTCP(true);
    Message whole = tcp.send(query("many.default.svc.cluster.local.", Type.A));
    assertEquals(40, whole.getSection(Section.ANSWER).size());
  }

  @Test
  void namesOutsideTheClusterGoToTheUpstreamResolver() throws Exception {
    ServiceTable elsewhere = new ServiceTable();
    serve(elsewhere, "ns", "far", "{'clusterIP':'127.96.9.9','ports':[{'port':80}]}", null);
    upstream = new ClusterDns(new DnsAnswers(elsewhere, "example.test", null), local());
    dns = new ClusterDns(new DnsAnswers(table, "cluster.local", resolver(upstream)), local());

    Message far = resolver(dns).send(query("far.ns.svc.example.test.", Type.A));
    assertEquals(Rcode.NOERROR, far.getRcode());
    assertEquals("127.96.9.9", far.getSection(Section.ANSWER).get(0).rdataToString());
  }

  private static InetSocketAddress local() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  private static SimpleResolver resolver(ClusterDns server) {
    SimpleResolver resolver = new SimpleResolver(server.address());
    resolver.setTimeout(Duration.ofSeconds(5));
    return resolver;
  }

  private static Message query(String name, int type) throws Exception {
    return Message.newQuery(Record.newRecord(Name.fromString(name), type, 1));
  }
}
