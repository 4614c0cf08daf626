package io.streamplane.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.Pod;
import io.streamplane.schema.convert.KubeJson;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodDnsTest {

  private static final String HOST = "nameserver 10.0.0.53\nsearch corp.example\noptions edns0\n";
  private final PodDns dns = new PodDns("127.96.0.10", "cluster.local", HOST);

  @Test
  void clusterFirstNamesTheClusterDnsWithKubernetesSearchPath() {
    assertEquals(
        "nameserver 127.96.0.10\n"
            + "search team-a.svc.cluster.local svc.cluster.local cluster.local corp.example\n"
            + "options ndots:5\n",
        dns.resolvConf(pod("{}")));
  }

  @Test
  void hostNetworkAndDefaultGetTheHostsFileUnlessClusterFirstWithHostNet() {
    String host = "nameserver 10.0.0.53\nsearch corp.example\noptions edns0\n";
    assertEquals(host, dns.resolvConf(pod("{'hostNetwork':true}")));
    assertEquals(host, dns.resolvConf(pod("{'dnsPolicy':'Default'}")));
    assertEquals(
        "nameserver 127.96.0.10\n",
        dns.resolvConf(pod("{'hostNetwork':true,'dnsPolicy':'ClusterFirstWithHostNet'}"))
                .lines()
                .findFirst()
                .orElseThrow()
            + "\n");
    // A node without a cluster DNS: ClusterFirst falls back to the host's file.
    assertEquals(host, new PodDns("", "cluster.local", HOST).resolvConf(pod("{}")));
  }

  @Test
  void dnsConfigAddsServersSearchesAndOptionsAndNoneKeepsOnlyIt() {
    assertEquals(
        "nameserver 1.1.1.1\nsearch a.example\noptions ndots:2 single-request\n",
        dns.resolvConf(
            pod(
                "{'dnsPolicy':'None','dnsConfig':{'nameservers':['1.1.1.1'],"
                    + "'searches':['a.example'],"
                    + "'options':[{'name':'ndots','value':'2'},{'name':'single-request'}]}}")));
    assertEquals(
        "nameserver 127.96.0.10\nnameserver 1.1.1.1\n"
            + "search team-a.svc.cluster.local svc.cluster.local cluster.local corp.example"
            + " b.example\n"
            + "options ndots:1\n",
        dns.resolvConf(
            pod(
                "{'dnsConfig':{'nameservers':['1.1.1.1'],'searches':['b.example','cluster.local'],"
                    + "'options':[{'name':'ndots','value':'1'}]}}")));
  }

  @Test
  void hostsNameThePodInItsSubdomainAndItsAliases() {
    List<String> lines =
        new ArrayList<>(
            dns.hosts(
                    pod(
                        "{'hostname':'db-0','subdomain':'db','hostAliases':[{'ip':'10.1.1.1',"
                            + "'hostnames':['foo.local','bar.local']}]}"),
                    "127.1.0.9")
                .lines()
                .toList());
    assertEquals("# Kubernetes-managed hosts file.", lines.get(0));
    assertEquals("127.0.0.1\tlocalhost", lines.get(1));
    assertEquals("127.1.0.9\tdb-0.db.team-a.svc.cluster.local\tdb-0", lines.get(7));
    assertEquals("10.1.1.1\tfoo.local\tbar.local", lines.get(lines.size() - 1));
    assertEquals("127.1.0.9\tweb", dns.hosts(pod("{}"), "127.1.0.9").lines().toList().get(7));
  }

  private static Pod pod(String spec) {
    JsonNode json =
        KubeJson.parseJson(
            ("{'metadata':{'name':'web','namespace':'team-a'},'spec':" + spec + "}")
                .replace('\'', '"'));
    return new KubeJson().toAvro(json, Pod.class).record();
  }
}
