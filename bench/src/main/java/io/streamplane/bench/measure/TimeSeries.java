package io.streamplane.bench.measure;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/**
 * A named series of (seconds since the run started, value) points, for a chart and the JSON
 * results. Thread-safe appends; the points are in the order they were added.
 */
public final class TimeSeries {

  /** One point. */
  public record Point(double seconds, double value) {}

  private final String name;
  private final List<Point> points = new ArrayList<>();

  public TimeSeries(String name) {
    this.name = name;
  }

  @JsonProperty
  public String name() {
    return name;
  }

  public synchronized void add(double seconds, double value) {
    points.add(new Point(seconds, value));
  }

  @JsonProperty
  public synchronized List<Point> points() {
    return List.copyOf(points);
  }

  @JsonIgnore
  public synchronized boolean isEmpty() {
    return points.isEmpty();
  }
}
