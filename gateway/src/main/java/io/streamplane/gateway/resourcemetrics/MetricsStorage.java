package io.streamplane.gateway.resourcemetrics;

import io.streamplane.gateway.resourcemetrics.NodeScrape.ContainerPoint;
import io.streamplane.gateway.resourcemetrics.NodeScrape.PodRef;
import io.streamplane.gateway.resourcemetrics.NodeScrape.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The latest resource metrics, in memory only, as metrics-server's storage keeps them: the last two
 * scrapes of each node. CPU use is the rate between them ({@code window} is the time between the
 * two readings, {@code timestamp} the later one); memory is the later working set. A container that
 * started after the earlier scrape is measured from its start (with no CPU used then), so a new pod
 * has figures after one scrape; a node needs two. A counter that went down (a restart) is no rate:
 * that container, or node, has no figures until the next scrape.
 *
 * <p>Nothing here is written anywhere: metrics are not state. Thread-safe.
 */
public final class MetricsStorage {

  /** A node's or a container's use over {@code window}, ending at {@code timestamp}. */
  public record Usage(Instant timestamp, Duration window, long nanoCores, long memoryBytes) {}

  /** One container's use in a {@link PodUsage}. */
  public record ContainerUsage(String name, long nanoCores, long memoryBytes) {}

  /** A pod's use: each container's, measured over {@code window} ending at {@code timestamp}. */
  public record PodUsage(Instant timestamp, Duration window, List<ContainerUsage> containers) {
    public PodUsage {
      containers = List.copyOf(containers);
    }

    /** The sum over the containers. */
    public long nanoCores() {
      return containers.stream().mapToLong(ContainerUsage::nanoCores).sum();
    }
  }

  private record Scrapes(NodeScrape previous, NodeScrape last) {}

  private final Map<String, Scrapes> nodes = new HashMap<>();
  private final Map<PodRef, String> podNodes = new HashMap<>();

  /**
   * Stores one scrape round: the nodes scraped (a node that could not be scraped keeps what it had
   * only if it is in {@code alive}); nodes in neither are forgotten, with their pods.
   */
  public synchronized void store(List<NodeScrape> scraped, Set<String> alive) {
    Map<String, NodeScrape> now = new HashMap<>();
    scraped.forEach(s -> now.put(s.node(), s));
    nodes.keySet().removeIf(n -> !now.containsKey(n) && !alive.contains(n));
    for (NodeScrape s : scraped) {
      Scrapes was = nodes.get(s.node());
      nodes.put(s.node(), new Scrapes(was == null ? null : was.last(), s));
    }
    podNodes.clear();
    nodes.forEach((node, s) -> s.last().pods().keySet().forEach(p -> podNodes.put(p, node)));
  }

  /** The names of the nodes with a scrape. */
  public synchronized Set<String> nodeNames() {
    return Set.copyOf(nodes.keySet());
  }

  /** A node's use, once it has been scraped twice. */
  public synchronized Optional<Usage> node(String name) {
    Scrapes s = nodes.get(name);
    if (s == null || s.previous() == null) {
      return Optional.empty();
    }
    return rate(s.previous().nodePoint(), s.last().nodePoint());
  }

  /** A pod's use, when every container it reported has figures. */
  public synchronized Optional<PodUsage> pod(String namespace, String name) {
    PodRef ref = new PodRef(namespace, name);
    String node = podNodes.get(ref);
    if (node == null) {
      return Optional.empty();
    }
    Scrapes s = nodes.get(node);
    List<ContainerPoint> last = s.last().pods().get(ref);
    List<ContainerPoint> previous =
        s.previous() == null ? List.of() : s.previous().pods().getOrDefault(ref, List.of());
    List<ContainerUsage> containers = new ArrayList<>();
    Instant timestamp = null;
    Duration window = null;
    for (ContainerPoint c : last) {
      Point before = earlier(c, previous);
      Optional<Usage> use = before == null ? Optional.empty() : rate(before, c.point());
      if (use.isEmpty()) {
        return Optional.empty();
      }
      containers.add(new ContainerUsage(c.name(), use.get().nanoCores(), use.get().memoryBytes()));
      timestamp = use.get().timestamp();
      window = use.get().window();
    }
    return containers.isEmpty()
        ? Optional.empty()
        : Optional.of(new PodUsage(timestamp, window, containers));
  }

  /**
   * The reading to take the rate from: the previous scrape's of the same run of the container, else
   * its start with nothing used, when it started after that scrape (or there was none).
   */
  private static Point earlier(ContainerPoint c, List<ContainerPoint> previous) {
    for (ContainerPoint p : previous) {
      if (p.name().equals(c.name())
          && java.util.Objects.equals(p.started(), c.started())
          && p.point().time().isBefore(c.point().time())) {
        return p.point();
      }
    }
    if (c.started() != null && c.started().isBefore(c.point().time())) {
      return new Point(c.started(), 0, 0);
    }
    return null;
  }

  private static Optional<Usage> rate(Point before, Point after) {
    long windowNanos = Duration.between(before.time(), after.time()).toNanos();
    if (windowNanos <= 0 || after.cpuNanos() < before.cpuNanos()) {
      return Optional.empty();
    }
    long nanoCores =
        java.math.BigInteger.valueOf(after.cpuNanos() - before.cpuNanos())
            .multiply(java.math.BigInteger.valueOf(1_000_000_000L))
            .divide(java.math.BigInteger.valueOf(windowNanos))
            .longValue();
    return Optional.of(
        new Usage(after.time(), Duration.ofNanos(windowNanos), nanoCores, after.memoryBytes()));
  }
}
