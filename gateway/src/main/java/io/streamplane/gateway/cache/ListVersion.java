package io.streamplane.gateway.cache;

import java.util.Arrays;
import java.util.Optional;

/**
 * The resourceVersion of a list: for each partition of {@code events}, the offset the reader had
 * read up to (the next offset it would read). Encoded as {@code L} followed by the offsets joined
 * with dots ({@code L12.0.7.3.3.9}) so that it can never be mistaken for an object's
 * resourceVersion, which is a plain number (the offset of its command). Clients treat both as
 * opaque strings, as Kubernetes asks them to.
 */
public record ListVersion(long[] offsets) {

  private static final String PREFIX = "L";

  public static Optional<ListVersion> parse(String value) {
    if (value == null || !value.matches("L[0-9]+(\\.[0-9]+)*")) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new ListVersion(
              Arrays.stream(value.substring(1).split("\\.")).mapToLong(Long::parseLong).toArray()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  public long offset(int partition) {
    return partition < offsets.length ? offsets[partition] : 0;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(PREFIX);
    for (int i = 0; i < offsets.length; i++) {
      s.append(i == 0 ? "" : ".").append(offsets[i]);
    }
    return s.toString();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ListVersion v && Arrays.equals(offsets, v.offsets);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(offsets);
  }
}
