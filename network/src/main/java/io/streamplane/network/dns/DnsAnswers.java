package io.streamplane.network.dns;

import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.network.ServiceTable;
import io.streamplane.network.ServiceTable.Endpoint;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * The answers of the cluster DNS, as CoreDNS's kubernetes plugin gives them (the Kubernetes DNS
 * specification, version 1.1.0), from a {@link ServiceTable}:
 *
 * <ul>
 *   <li>{@code <service>.<ns>.svc.<zone>}: A, the cluster IP; for a headless Service, one A per
 *       ready endpoint; for an ExternalName Service, a CNAME to its external name (any type);
 *   <li>{@code _<port>._<proto>.<service>.<ns>.svc.<zone>}: SRV of that named port, whose target is
 *       the Service's name (a headless Service: each endpoint's name), with its A records as
 *       additional answers; SRV of the Service's name itself: every port;
 *   <li>{@code <hostname>.<service>.<ns>.svc.<zone>}: A of the endpoint of a headless Service with
 *       that hostname (a pod's {@code hostname} with {@code subdomain} the Service's name), or
 *       whose IP it is with dashes ({@code 127-1-0-5});
 *   <li>{@code <a-b-c-d>.<ns>.pod.<zone>}: A {@code a.b.c.d} (CoreDNS's {@code pods insecure});
 *   <li>PTR of a cluster IP or of a headless Service's endpoint IP, under {@code in-addr.arpa}.
 * </ul>
 *
 * <p>A name in the zone that does not exist is NXDOMAIN, a type a name does not have is an empty
 * answer (NODATA), both with the zone's SOA. Records live {@link #TTL} seconds. AAAA is always
 * NODATA: cluster IPs and pod IPs are IPv4. Every other name, and a reverse name the cluster does
 * not know, is forwarded to the upstream resolver (CoreDNS's {@code forward . /etc/resolv.conf});
 * without one it is REFUSED.
 */
public final class DnsAnswers {

  /** Seconds a record may be cached: CoreDNS's kubernetes plugin's default. */
  public static final long TTL = 5;

  private static final Name IN_ADDR_ARPA = Name.fromConstantString("in-addr.arpa.");

  private final ServiceTable table;
  private final Name zone;
  private final Resolver upstream;
  private final SOARecord soa;

  /**
   * Answers for {@code domain} (the cluster domain, {@code cluster.local}), forwarding the rest to
   * {@code upstream} (null: refused).
   */
  public DnsAnswers(ServiceTable table, String domain, Resolver upstream) {
    this.table = table;
    this.zone = absolute(domain);
    this.upstream = upstream;
    this.soa =
        new SOARecord(
            zone,
            DClass.IN,
            TTL,
            child("ns.dns", zone),
            child("hostmaster", zone),
            1,
            7200,
            1800,
            86400,
            TTL);
  }

  /** The response to {@code query}. */
  public CompletionStage<Message> answer(Message query) {
    Record question = query.getQuestion();
    if (query.getHeader().getOpcode() != Opcode.QUERY) {
      return CompletableFuture.completedFuture(response(query, Rcode.NOTIMP, false));
    }
    if (question == null) {
      return CompletableFuture.completedFuture(response(query, Rcode.FORMERR, false));
    }
    Name name = question.getName();
    int type = question.getType();
    if (name.subdomain(zone)) {
      return CompletableFuture.completedFuture(inZone(query, name, type));
    }
    if (name.subdomain(IN_ADDR_ARPA)) {
      List<Record> pointers = reverse(name);
      if (!pointers.isEmpty()) {
        Message response = response(query, Rcode.NOERROR, true);
        if (type == Type.PTR || type == Type.ANY) {
          pointers.forEach(r -> response.addRecord(r, Section.ANSWER));
        }
        return CompletableFuture.completedFuture(response);
      }
    }
    if (upstream == null) {
      return CompletableFuture.completedFuture(response(query, Rcode.REFUSED, false));
    }
    return upstream
        .sendAsync(query)
        .handle(
            (answer, failure) -> {
              if (failure != null) {
                return response(query, Rcode.SERVFAIL, false);
              }
              answer.getHeader().setID(query.getHeader().getID());
              return answer;
            });
  }

  private Message inZone(Message query, Name name, int type) {
    String[] labels = labels(name.relativize(zone));
    int n = labels.length;
    Found found = null;
    if (n == 0) {
      found = new Found();
      if (type == Type.SOA || type == Type.ANY) {
        found.answers.add(soa);
      }
      if (type == Type.NS || type == Type.ANY) {
        found.answers.add(new NSRecord(zone, DClass.IN, TTL, soa.getHost()));
      }
    } else if (labels[n - 1].equals("svc")) {
      found =
          switch (n) {
            case 1 -> new Found();
            case 2 -> namespace(labels[0]);
            case 3 -> service(name, labels[1], labels[0], type);
            case 4 -> endpoint(name, labels[2], labels[1], labels[0], type);
            case 5 -> port(name, labels[3], labels[2], labels[0], labels[1], type);
            default -> null;
          };
    } else if (labels[n - 1].equals("pod") && n == 3) {
      found = pod(name, labels[0], type);
    }
    if (found == null) {
      Message response = response(query, Rcode.NXDOMAIN, true);
      response.addRecord(soa, Section.AUTHORITY);
      return response;
    }
    Message response = response(query, Rcode.NOERROR, true);
    found.answers.forEach(r -> response.addRecord(r, Section.ANSWER));
    found.additional.forEach(r -> response.addRecord(r, Section.ADDITIONAL));
    if (found.answers.isEmpty()) {
      response.addRecord(soa, Section.AUTHORITY);
    }
    return response;
  }

  /** The records of a name that exists (empty: it has none of the type asked). */
  private static final class Found {
    final List<Record> answers = new ArrayList<>();
    final Set<Record> additional = new LinkedHashSet<>();
  }

  private Found namespace(String namespace) {
    boolean any =
        table.services().stream().anyMatch(s -> namespace.equals(s.getMetadata().getNamespace()));
    return any ? new Found() : null;
  }

  private Found service(Name name, String namespace, String serviceName, int type) {
    Service service = table.service(namespace, serviceName).orElse(null);
    if (service == null) {
      return null;
    }
    Found found = new Found();
    String externalName = service.getSpec().getExternalName();
    if ("ExternalName".equals(service.getSpec().getType()) && externalName != null) {
      found.answers.add(new CNAMERecord(name, DClass.IN, TTL, absolute(externalName)));
      return found;
    }
    boolean headless = !ServiceTable.hasClusterIP(service);
    if (type == Type.A || type == Type.ANY) {
      if (headless) {
        Set<String> ips = new LinkedHashSet<>();
        for (Endpoint endpoint : table.endpoints(namespace, serviceName)) {
          if (endpoint.ready()) {
            ips.add(endpoint.ip());
          }
        }
        ips.forEach(ip -> found.answers.add(a(name, ip)));
      } else {
        found.answers.add(a(name, service.getSpec().getClusterIP()));
      }
    }
    if (type == Type.SRV || type == Type.ANY) {
      for (ServicePort port : list(service.getSpec().getPorts())) {
        srv(found, name, service, port);
      }
    }
    return found;
  }

  private Found port(
      Name name, String namespace, String serviceName, String port, String protocol, int type) {
    Service service = table.service(namespace, serviceName).orElse(null);
    if (service == null || !port.startsWith("_") || !protocol.startsWith("_")) {
      return null;
    }
    ServicePort match = null;
    for (ServicePort candidate : list(service.getSpec().getPorts())) {
      if (candidate.getName() != null
          && ("_" + candidate.getName()).equalsIgnoreCase(port)
          && ("_" + ServiceTable.protocol(candidate.getProtocol())).equalsIgnoreCase(protocol)) {
        match = candidate;
      }
    }
    if (match == null) {
      return null;
    }
    Found found = new Found();
    if (type == Type.SRV || type == Type.ANY) {
      srv(found, name, service, match);
    }
    return found;
  }

  /** The SRV records of one port of a Service, named {@code owner}. */
  private void srv(Found found, Name owner, Service service, ServicePort port) {
    String namespace = service.getMetadata().getNamespace();
    String serviceName = service.getMetadata().getName();
    Name serviceDomain = serviceName(serviceName, namespace);
    if (ServiceTable.hasClusterIP(service)) {
      found.answers.add(
          new SRVRecord(owner, DClass.IN, TTL, 0, 100, port.getPort(), serviceDomain));
      found.additional.add(a(serviceDomain, service.getSpec().getClusterIP()));
      return;
    }
    String portName = port.getName() == null ? "" : port.getName();
    List<Endpoint> ready = new ArrayList<>();
    for (Endpoint endpoint : table.endpoints(namespace, serviceName)) {
      if (endpoint.ready() && endpoint.ports().containsKey(portName)) {
        ready.add(endpoint);
      }
    }
    for (Endpoint endpoint : ready) {
      Name target = child(endpointName(endpoint), serviceDomain);
      found.answers.add(
          new SRVRecord(
              owner,
              DClass.IN,
              TTL,
              0,
              Math.max(1, 100 / ready.size()),
              endpoint.ports().get(portName).port(),
              target));
      found.additional.add(a(target, endpoint.ip()));
    }
  }

  private Found endpoint(Name name, String namespace, String serviceName, String host, int type) {
    if (table.service(namespace, serviceName).isEmpty()) {
      return null;
    }
    Found found = null;
    for (Endpoint endpoint : table.endpoints(namespace, serviceName)) {
      if (endpoint.ready() && endpointName(endpoint).equalsIgnoreCase(host)) {
        if (found == null) {
          found = new Found();
        }
        if (type == Type.A || type == Type.ANY) {
          found.answers.add(a(name, endpoint.ip()));
        }
      }
    }
    return found;
  }

  private Found pod(Name name, String dashed, int type) {
    String ip = dashed.replace('-', '.');
    if (!isIPv4(ip)) {
      return null;
    }
    Found found = new Found();
    if (type == Type.A || type == Type.ANY) {
      found.answers.add(a(name, ip));
    }
    return found;
  }

  /** The PTR records of a reverse name: the Services and endpoints with that IP. */
  private List<Record> reverse(Name name) {
    String[] labels = labels(name.relativize(IN_ADDR_ARPA));
    if (labels.length != 4) {
      return List.of();
    }
    String ip = labels[3] + "." + labels[2] + "." + labels[1] + "." + labels[0];
    List<Record> pointers = new ArrayList<>();
    for (Service service : table.services()) {
      String namespace = service.getMetadata().getNamespace();
      String serviceName = service.getMetadata().getName();
      if (ServiceTable.hasClusterIP(service)) {
        if (ip.equals(service.getSpec().getClusterIP())) {
          pointers.add(new PTRRecord(name, DClass.IN, TTL, serviceName(serviceName, namespace)));
        }
        continue;
      }
      for (Endpoint endpoint : table.endpoints(namespace, serviceName)) {
        if (ip.equals(endpoint.ip())) {
          pointers.add(
              new PTRRecord(
                  name,
                  DClass.IN,
                  TTL,
                  child(endpointName(endpoint), serviceName(serviceName, namespace))));
        }
      }
    }
    return pointers;
  }

  private Name serviceName(String service, String namespace) {
    return child(service + "." + namespace + ".svc", zone);
  }

  /** An endpoint's name under its Service: its hostname, else its IP with dashes. */
  private static String endpointName(Endpoint endpoint) {
    return endpoint.hostname() != null && !endpoint.hostname().isEmpty()
        ? endpoint.hostname()
        : endpoint.ip().replace('.', '-').replace(':', '-');
  }

  private static Message response(Message query, int rcode, boolean authoritative) {
    Message response = new Message(query.getHeader().getID());
    response.getHeader().setFlag(Flags.QR);
    if (query.getHeader().getFlag(Flags.RD)) {
      response.getHeader().setFlag(Flags.RD);
    }
    response.getHeader().setFlag(Flags.RA);
    if (authoritative) {
      response.getHeader().setFlag(Flags.AA);
    }
    response.getHeader().setRcode(rcode);
    if (query.getQuestion() != null) {
      response.addRecord(query.getQuestion(), Section.QUESTION);
    }
    if (query.getOPT() != null) {
      response.addRecord(new OPTRecord(ClusterDns.UDP_PAYLOAD, 0, 0), Section.ADDITIONAL);
    }
    return response;
  }

  private static ARecord a(Name name, String ip) {
    try {
      return new ARecord(name, DClass.IN, TTL, InetAddress.getByName(ip));
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP: " + ip, e);
    }
  }

  private static boolean isIPv4(String ip) {
    String[] parts = ip.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)) {
        return false;
      }
      if (Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }

  /** The labels of a relative name, lower-cased, leftmost first. */
  private static String[] labels(Name relative) {
    String[] labels = new String[relative.labels()];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = relative.getLabelString(i).toLowerCase(Locale.ROOT);
    }
    return labels;
  }

  private static Name absolute(String name) {
    try {
      return Name.fromString(name.endsWith(".") ? name : name + ".");
    } catch (TextParseException e) {
      throw new IllegalArgumentException("not a domain name: " + name, e);
    }
  }

  private static Name child(String labels, Name parent) {
    try {
      return Name.fromString(labels, parent);
    } catch (TextParseException e) {
      throw new IllegalArgumentException("not a domain name: " + labels, e);
    }
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
