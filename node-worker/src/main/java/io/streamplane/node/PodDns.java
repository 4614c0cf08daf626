package io.streamplane.node;

import io.streamplane.api.HostAlias;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDNSConfig;
import io.streamplane.api.PodDNSConfigOption;
import io.streamplane.api.PodSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pod's {@code /etc/resolv.conf} and {@code /etc/hosts}, as the kubelet writes them
 * (pkg/kubelet/network/dns and the kubelet's managed hosts file).
 *
 * <p>{@code dnsPolicy: ClusterFirst} (the default) names the cluster DNS, searches {@code
 * <ns>.svc.<domain>}, {@code svc.<domain>}, {@code <domain>} then the host's search domains, with
 * {@code ndots:5}; a {@code hostNetwork} pod under ClusterFirst, and {@code Default}, get the
 * host's file; {@code None} only what {@code dnsConfig} says. {@code dnsConfig} adds name servers
 * (at most 3 in all), search domains (at most 32, duplicates dropped) and options (an option named
 * again replaces the earlier one). A node without a cluster DNS gives ClusterFirst pods the host's
 * file, as the kubelet does.
 */
final class PodDns {

  private static final int MAX_NAMESERVERS = 3;
  private static final int MAX_SEARCH = 32;

  private final String clusterDns;
  private final String clusterDomain;
  private final List<String> hostNameservers;
  private final List<String> hostSearch;
  private final List<String> hostOptions;

  /** {@code clusterDns} null or empty: the node has no cluster DNS. */
  PodDns(String clusterDns, String clusterDomain, String hostResolvConf) {
    this.clusterDns = clusterDns == null || clusterDns.isEmpty() ? null : clusterDns;
    this.clusterDomain = clusterDomain;
    List<String> nameservers = new ArrayList<>();
    List<String> search = new ArrayList<>();
    List<String> options = new ArrayList<>();
    for (String line : hostResolvConf.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length < 2 || fields[0].startsWith("#") || fields[0].startsWith(";")) {
        continue;
      }
      List<String> values = List.of(fields).subList(1, fields.length);
      switch (fields[0]) {
        case "nameserver" -> nameservers.add(fields[1]);
        case "search", "domain" -> {
          search.clear();
          search.addAll(values);
        }
        case "options" -> options.addAll(values);
        default -> {}
      }
    }
    this.hostNameservers = List.copyOf(nameservers);
    this.hostSearch = List.copyOf(search);
    this.hostOptions = List.copyOf(options);
  }

  /** With the host's {@code /etc/resolv.conf} (empty when it cannot be read). */
  static PodDns of(String clusterDns, String clusterDomain) {
    String host;
    try {
      host = Files.readString(Path.of("/etc/resolv.conf"));
    } catch (IOException e) {
      host = "";
    }
    return new PodDns(clusterDns, clusterDomain, host);
  }

  /** The pod's {@code /etc/resolv.conf}. */
  String resolvConf(Pod pod) {
    PodSpec spec = pod.getSpec();
    String policy = spec.getDnsPolicy() == null ? "ClusterFirst" : spec.getDnsPolicy();
    boolean hostNetwork = Boolean.TRUE.equals(spec.getHostNetwork());
    List<String> nameservers = new ArrayList<>();
    List<String> search = new ArrayList<>();
    Map<String, String> options = new LinkedHashMap<>();
    boolean cluster =
        clusterDns != null
            && (policy.equals("ClusterFirstWithHostNet")
                || policy.equals("ClusterFirst") && !hostNetwork);
    if (cluster) {
      String namespace = pod.getMetadata().getNamespace();
      nameservers.add(clusterDns);
      search.add(namespace + ".svc." + clusterDomain);
      search.add("svc." + clusterDomain);
      search.add(clusterDomain);
      search.addAll(hostSearch);
      options.put("ndots", "ndots:5");
    } else if (!policy.equals("None")) {
      nameservers.addAll(hostNameservers);
      search.addAll(hostSearch);
      hostOptions.forEach(o -> options.put(optionName(o), o));
    }
    PodDNSConfig config = spec.getDnsConfig();
    if (config != null) {
      nameservers.addAll(list(config.getNameservers()));
      search.addAll(list(config.getSearches()));
      for (PodDNSConfigOption option : list(config.getOptions())) {
        options.put(
            option.getName(),
            option.getValue() == null
                ? option.getName()
                : option.getName() + ":" + option.getValue());
      }
    }
    Set<String> servers = new LinkedHashSet<>(nameservers);
    Set<String> domains = new LinkedHashSet<>(search);
    StringBuilder file = new StringBuilder();
    servers.stream()
        .limit(MAX_NAMESERVERS)
        .forEach(s -> file.append("nameserver ").append(s).append('\n'));
    if (!domains.isEmpty()) {
      file.append("search ")
          .append(String.join(" ", domains.stream().limit(MAX_SEARCH).toList()))
          .append('\n');
    }
    if (!options.isEmpty()) {
      file.append("options ").append(String.join(" ", options.values())).append('\n');
    }
    return file.toString();
  }

  /** The pod's {@code /etc/hosts}: the kubelet's managed file with the pod's names and aliases. */
  String hosts(Pod pod, String podIP) {
    PodSpec spec = pod.getSpec();
    StringBuilder file = new StringBuilder("# Kubernetes-managed hosts file.\n");
    file.append("127.0.0.1\tlocalhost\n");
    file.append("::1\tlocalhost ip6-localhost ip6-loopback\n");
    file.append("fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\n");
    file.append("fe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n");
    String hostname =
        spec.getHostname() == null || spec.getHostname().isEmpty()
            ? pod.getMetadata().getName()
            : spec.getHostname();
    if (spec.getSubdomain() != null && !spec.getSubdomain().isEmpty()) {
      file.append(podIP)
          .append('\t')
          .append(hostname)
          .append('.')
          .append(spec.getSubdomain())
          .append('.')
          .append(pod.getMetadata().getNamespace())
          .append(".svc.")
          .append(clusterDomain)
          .append('\t')
          .append(hostname)
          .append('\n');
    } else {
      file.append(podIP).append('\t').append(hostname).append('\n');
    }
    List<HostAlias> aliases = list(spec.getHostAliases());
    if (!aliases.isEmpty()) {
      file.append("\n# Entries added by HostAliases.\n");
      for (HostAlias alias : aliases) {
        file.append(alias.getIp())
            .append('\t')
            .append(String.join("\t", list(alias.getHostnames())))
            .append('\n');
      }
    }
    return file.toString();
  }

  private static String optionName(String option) {
    int colon = option.indexOf(':');
    return colon < 0 ? option : option.substring(0, colon);
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
