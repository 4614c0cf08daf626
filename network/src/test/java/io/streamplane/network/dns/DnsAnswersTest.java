package io.streamplane.network.dns;

import static io.streamplane.network.Objects.serve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamplane.network.ServiceTable;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.ReverseMap;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

class DnsAnswersTest {

  private final ServiceTable table = new ServiceTable();
  private final DnsAnswers dns = new DnsAnswers(table, "cluster.local", null);

  @BeforeEach
  void services() {
    serve(
        table,
        "default",
        "web",
        "{'clusterIP':'127.96.4.20','ports':[{'name':'http','port':80,'targetPort':8080}]}",
        "[{'addresses':[{'ip':'127.1.0.5'}],'ports':[{'name':'http','port':8080}]}]");
    serve(
        table,
        "default",
        "db",
        "{'clusterIP':'None','ports':[{'name':'pg','port':5432}]}",
        "[{'addresses':[{'ip':'127.1.0.7','hostname':'db-0'},{'ip':'127.2.0.3'}],"
            + "'notReadyAddresses':[{'ip':'127.1.0.9','hostname':'db-2'}],"
            + "'ports':[{'name':'pg','port':5432}]}]");
    serve(
        table,
        "team-a",
        "search",
        "{'type':'ExternalName','externalName':'search.example.com'}",
        null);
  }

  @Test
  void aServiceNameAnswersItsClusterIP() {
    Message response = ask("web.default.svc.cluster.local.", Type.A);
    assertEquals(Rcode.NOERROR, response.getRcode());
    assertTrue(response.getHeader().getFlag(Flags.AA));
    assertEquals(List.of("127.96.4.20"), data(response, Section.ANSWER));
    assertEquals(5, response.getSection(Section.ANSWER).get(0).getTTL());
  }

  @Test
  void namesAreCaseInsensitive() {
    assertEquals(
        List.of("127.96.4.20"),
        data(ask("WEB.Default.SVC.cluster.local.", Type.A), Section.ANSWER));
  }

  @Test
  void aHeadlessServiceAnswersItsReadyEndpoints() {
    assertEquals(
        List.of("127.1.0.7", "127.2.0.3"),
        data(ask("db.default.svc.cluster.local.", Type.A), Section.ANSWER));
  }

  @Test
  void aPodOfAHeadlessServiceIsFoundByItsHostname() {
    assertEquals(
        List.of("127.1.0.7"),
        data(ask("db-0.db.default.svc.cluster.local.", Type.A), Section.ANSWER));
    // Without a hostname, an endpoint is named by its address (as CoreDNS names it).
    assertEquals(
        List.of("127.2.0.3"),
        data(ask("127-2-0-3.db.default.svc.cluster.local.", Type.A), Section.ANSWER));
    assertEquals(Rcode.NXDOMAIN, ask("127-1-0-7.db.default.svc.cluster.local.", Type.A).getRcode());
    // Not ready: not published.
    assertEquals(Rcode.NXDOMAIN, ask("db-2.db.default.svc.cluster.local.", Type.A).getRcode());
  }

  @Test
  void srvRecordsCarryTheNamedPorts() {
    Message web = ask("_http._tcp.web.default.svc.cluster.local.", Type.SRV);
    assertEquals(List.of("0 100 80 web.default.svc.cluster.local."), data(web, Section.ANSWER));
    assertEquals(List.of("127.96.4.20"), data(web, Section.ADDITIONAL));

    Message db = ask("_pg._tcp.db.default.svc.cluster.local.", Type.SRV);
    assertEquals(
        List.of(
            "0 50 5432 db-0.db.default.svc.cluster.local.",
            "0 50 5432 127-2-0-3.db.default.svc.cluster.local."),
        data(db, Section.ANSWER));
    assertEquals(List.of("127.1.0.7", "127.2.0.3"), data(db, Section.ADDITIONAL));

    assertEquals(
        Rcode.NXDOMAIN, ask("_https._tcp.web.default.svc.cluster.local.", Type.SRV).getRcode());
    assertEquals(
        Rcode.NXDOMAIN, ask("_http._udp.web.default.svc.cluster.local.", Type.SRV).getRcode());
  }

  @Test
  void anExternalNameServiceIsACname() {
    Message response = ask("search.team-a.svc.cluster.local.", Type.A);
    assertEquals(List.of("search.example.com."), data(response, Section.ANSWER));
    assertEquals(Type.CNAME, response.getSection(Section.ANSWER).get(0).getType());
  }

  @Test
  void unknownNamesAreNxdomainAndMissingTypesNodataBothWithTheSoa() {
    Message missing = ask("nope.default.svc.cluster.local.", Type.A);
    assertEquals(Rcode.NXDOMAIN, missing.getRcode());
    assertEquals(Type.SOA, missing.getSection(Section.AUTHORITY).get(0).getType());

    Message aaaa = ask("web.default.svc.cluster.local.", Type.AAAA);
    assertEquals(Rcode.NOERROR, aaaa.getRcode());
    assertTrue(aaaa.getSection(Section.ANSWER).isEmpty());
    assertEquals(Type.SOA, aaaa.getSection(Section.AUTHORITY).get(0).getType());

    assertEquals(Rcode.NOERROR, ask("default.svc.cluster.local.", Type.A).getRcode());
    assertEquals(Rcode.NXDOMAIN, ask("nowhere.svc.cluster.local.", Type.A).getRcode());
  }

  @Test
  void podNamesAnswerTheirDashedAddress() {
    assertEquals(
        List.of("127.1.0.5"),
        data(ask("127-1-0-5.default.pod.cluster.local.", Type.A), Section.ANSWER));
    assertEquals(Rcode.NXDOMAIN, ask("300-1-0-5.default.pod.cluster.local.", Type.A).getRcode());
  }

  @Test
  void reverseLookupsNameServicesAndHeadlessEndpoints() throws Exception {
    assertEquals(
        List.of("web.default.svc.cluster.local."),
        data(ask(ReverseMap.fromAddress("127.96.4.20").toString(), Type.PTR), Section.ANSWER));
    assertEquals(
        List.of("db-0.db.default.svc.cluster.local."),
        data(ask(ReverseMap.fromAddress("127.1.0.7").toString(), Type.PTR), Section.ANSWER));
  }

  @Test
  void namesOutsideTheClusterAreRefusedWithoutAnUpstream() {
    assertEquals(Rcode.REFUSED, ask("example.com.", Type.A).getRcode());
  }

  @Test
  void aChangeOfTheTableIsTheNextAnswer() {
    serve(
        table,
        "default",
        "db",
        "{'clusterIP':'None','ports':[{'name':'pg','port':5432}]}",
        "[{'addresses':[{'ip':'127.3.0.1','hostname':'db-0'}],'ports':[{'name':'pg','port':5432}]}]");
    assertEquals(
        List.of("127.3.0.1"), data(ask("db.default.svc.cluster.local.", Type.A), Section.ANSWER));
    table.putService("default", "web", null);
    assertEquals(Rcode.NXDOMAIN, ask("web.default.svc.cluster.local.", Type.A).getRcode());
  }

  private Message ask(String name, int type) {
    try {
      Message query = Message.newQuery(Record.newRecord(Name.fromString(name), type, 1));
      return dns.answer(query).toCompletableFuture().get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static List<String> data(Message response, int section) {
    return response.getSection(section).stream()
        .map(Record::rdataToString)
        .collect(Collectors.toList());
  }
}
