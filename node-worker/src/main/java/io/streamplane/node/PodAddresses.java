package io.streamplane.node;

import java.util.BitSet;

/**
 * The pod IPs of one node: a {@code /24} IPv4 pod CIDR ({@code a.b.c.0/24}) whose addresses {@code
 * .2} to {@code .254} are handed to pods ({@code .1} is the node's bridge in Kubernetes' usual
 * layout). Nodes get distinct CIDRs from their index in a fleet ({@code 10.x.y.0/24}, 65,536 of
 * them, for simulated nodes; {@code 127.x.y.0/24} for nodes running processes) or from a hash of
 * their name.
 *
 * <p>Thread-safe. Limits: only {@code /24} IPv4 CIDRs; 253 pods per node at most.
 */
public final class PodAddresses {

  private static final int FIRST = 2;
  private static final int LAST = 254;

  private final String prefix;
  private final BitSet used = new BitSet(256);

  public PodAddresses(String cidr) {
    this.prefix = parse(cidr);
  }

  /** The CIDR of the {@code index}-th node of a fleet: {@code 10.<index/256>.<index%256>.0/24}. */
  public static String cidrForIndex(int index) {
    if (index < 0 || index > 0xffff) {
      throw new IllegalArgumentException("node index out of range 0..65535: " + index);
    }
    return "10." + (index >> 8) + "." + (index & 0xff) + ".0/24";
  }

  /** A CIDR derived from the node name: distinct for distinct names unless their hashes collide. */
  public static String cidrForName(String name) {
    return cidrForIndex(name.hashCode() & 0xffff);
  }

  /**
   * The loopback CIDR of the {@code index}-th node running real processes: {@code
   * 127.<1+index/256>.<index%256>.0/24}. Linux routes all of {@code 127.0.0.0/8} to the loopback
   * interface, so every pod gets its own reachable IP and pods' ports never clash.
   */
  public static String loopbackCidrForIndex(int index) {
    if (index < 0 || index >= 254 * 256) {
      throw new IllegalArgumentException("node index out of range 0..65023: " + index);
    }
    return "127." + (1 + (index >> 8)) + "." + (index & 0xff) + ".0/24";
  }

  /** A loopback CIDR derived from the node name. */
  public static String loopbackCidrForName(String name) {
    return loopbackCidrForIndex(Math.floorMod(name.hashCode(), 254 * 256));
  }

  /** The {@code a.b.c.} prefix of a {@code a.b.c.0/24} CIDR; rejects any other form. */
  static String parse(String cidr) {
    if (cidr == null || !cidr.endsWith(".0/24")) {
      throw new IllegalArgumentException("pod CIDR must be an IPv4 a.b.c.0/24: " + cidr);
    }
    String prefix = cidr.substring(0, cidr.length() - "0/24".length());
    String[] octets = prefix.split("\\.");
    if (octets.length != 3) {
      throw new IllegalArgumentException("pod CIDR must be an IPv4 a.b.c.0/24: " + cidr);
    }
    for (String octet : octets) {
      int value;
      try {
        value = Integer.parseInt(octet);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("pod CIDR must be an IPv4 a.b.c.0/24: " + cidr);
      }
      if (value < 0 || value > 255) {
        throw new IllegalArgumentException("pod CIDR must be an IPv4 a.b.c.0/24: " + cidr);
      }
    }
    return prefix;
  }

  /**
   * Hands out {@code preferred} when it is a free address of this CIDR (a pod keeping its IP across
   * a node restart), otherwise the lowest free address.
   *
   * @throws IllegalStateException when every address is taken
   */
  public synchronized String allocate(String preferred) {
    int host = hostOf(preferred);
    if (host >= FIRST && host <= LAST && !used.get(host)) {
      used.set(host);
      return prefix + host;
    }
    int free = used.nextClearBit(FIRST);
    if (free > LAST) {
      throw new IllegalStateException("no free pod IP left in " + prefix + "0/24");
    }
    used.set(free);
    return prefix + free;
  }

  public synchronized void release(String ip) {
    int host = hostOf(ip);
    if (host >= 0) {
      used.clear(host);
    }
  }

  public synchronized int inUse() {
    return used.cardinality();
  }

  private int hostOf(String ip) {
    if (ip == null || !ip.startsWith(prefix)) {
      return -1;
    }
    try {
      return Integer.parseInt(ip.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
