package io.streamplane.cli.bench;

import io.streamplane.bench.measure.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/** Durations as typed: {@code 60s}, {@code 2m}, {@code 500ms}, or ISO-8601. */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    return Durations.parse(value);
  }
}
