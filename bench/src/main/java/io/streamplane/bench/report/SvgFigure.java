package io.streamplane.bench.report;

import static io.streamplane.bench.ReportParts.niceCeiling;
import static io.streamplane.bench.ReportParts.svgOpen;
import static io.streamplane.bench.ReportParts.xml;

import io.streamplane.bench.measure.TimeSeries;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A report's chart: a title over panels stacked top to bottom, each a CDF, a histogram, a time
 * series or horizontal bars, drawn as plain SVG with linear axes from zero (or from the lowest
 * value, when one is negative) to a round number.
 */
public final class SvgFigure {

  /** A named set of measurements, for a CDF. */
  public record Values(String name, double[] values) {}

  /** One horizontal bar. */
  public record Bar(String label, double value, String text) {}

  private static final int WIDTH = 820;
  private static final int LEFT = 90;
  private static final int RIGHT = 230;
  private static final int PLOT_H = 200;
  private static final int PANEL_H = 290;
  private static final String[] COLORS = {
    "#3b6ea8", "#d1603d", "#4a9a5b", "#8e5ea2", "#c9a227", "#555555"
  };

  private interface Panel {
    int height();

    void draw(StringBuilder s, int top);
  }

  private final String title;
  private final List<Panel> panels = new ArrayList<>();

  public SvgFigure(String title) {
    this.title = title;
  }

  public boolean isEmpty() {
    return panels.isEmpty();
  }

  /** Cumulative distributions of each set of values: x the value, y the share at or below it. */
  public SvgFigure cdf(String panelTitle, String xUnit, List<Values> series) {
    List<Values> present = series.stream().filter(v -> v.values().length > 0).toList();
    if (present.isEmpty()) {
      return this;
    }
    panels.add(
        new Panel() {
          @Override
          public int height() {
            return PANEL_H;
          }

          @Override
          public void draw(StringBuilder s, int top) {
            double lo =
                present.stream().flatMapToDouble(v -> Arrays.stream(v.values())).min().orElse(0);
            double hi =
                present.stream().flatMapToDouble(v -> Arrays.stream(v.values())).max().orElse(1);
            double[] x = range(lo, hi);
            heading(s, top, panelTitle);
            axes(s, top, x, new double[] {0, 1, 0.2}, xUnit, "share", "%.0f%%", 100);
            int i = 0;
            for (Values v : present) {
              double[] sorted = v.values().clone();
              Arrays.sort(sorted);
              StringBuilder points = new StringBuilder();
              int steps = Math.min(sorted.length, 400);
              double px0 = px(sorted[0], x);
              points.append(fmt(px0)).append(',').append(fmt(py(top, 0, 1))).append(' ');
              for (int k = 1; k <= steps; k++) {
                int index = (int) Math.ceil((double) k / steps * sorted.length) - 1;
                double share = (index + 1.0) / sorted.length;
                points
                    .append(fmt(px(sorted[index], x)))
                    .append(',')
                    .append(fmt(py(top, share, 1)))
                    .append(' ');
              }
              s.append(
                  String.format(
                      Locale.ROOT,
                      "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
                      COLORS[i % COLORS.length],
                      points.toString().trim()));
              legend(
                  s,
                  top,
                  i,
                  v.name() + " (" + String.format(Locale.ROOT, "%,d", sorted.length) + ")");
              i++;
            }
          }
        });
    return this;
  }

  /** How many values fall in each of {@code bins} equal ranges. */
  public SvgFigure histogram(String panelTitle, String xUnit, double[] values, int bins) {
    if (values.length == 0) {
      return this;
    }
    panels.add(
        new Panel() {
          @Override
          public int height() {
            return PANEL_H;
          }

          @Override
          public void draw(StringBuilder s, int top) {
            double lo = Arrays.stream(values).min().orElse(0);
            double hi = Arrays.stream(values).max().orElse(1);
            double[] x = range(lo, hi);
            int[] counts = new int[bins];
            double width = (x[1] - x[0]) / bins;
            for (double v : values) {
              counts[Math.min(bins - 1, Math.max(0, (int) ((v - x[0]) / width)))]++;
            }
            int maxCount = Arrays.stream(counts).max().orElse(1);
            double[] y = range(0, Math.max(1, maxCount));
            double yMax = y[1];
            heading(s, top, panelTitle);
            axes(s, top, x, y, xUnit, "count", null, 1);
            double barW = (double) (WIDTH - LEFT - RIGHT) / bins;
            for (int b = 0; b < bins; b++) {
              if (counts[b] == 0) {
                continue;
              }
              double h = PLOT_H * counts[b] / yMax;
              s.append(
                  String.format(
                      Locale.ROOT,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                      LEFT + b * barW + 0.5,
                      top + 40 + PLOT_H - h,
                      Math.max(1, barW - 1),
                      h,
                      COLORS[0]));
            }
          }
        });
    return this;
  }

  /** Lines of values over the run's seconds. */
  public SvgFigure timeSeries(String panelTitle, String yUnit, List<TimeSeries> series) {
    List<TimeSeries> present = series.stream().filter(t -> !t.isEmpty()).toList();
    if (present.isEmpty()) {
      return this;
    }
    panels.add(
        new Panel() {
          @Override
          public int height() {
            return PANEL_H;
          }

          @Override
          public void draw(StringBuilder s, int top) {
            double tMax = 0;
            double vMax = 0;
            for (TimeSeries t : present) {
              for (TimeSeries.Point p : t.points()) {
                tMax = Math.max(tMax, p.seconds());
                vMax = Math.max(vMax, p.value());
              }
            }
            double[] x = range(0, tMax);
            double[] y = range(0, vMax);
            double yMax = y[1];
            heading(s, top, panelTitle);
            axes(s, top, x, y, "seconds", yUnit, null, 1);
            int i = 0;
            for (TimeSeries t : present) {
              StringBuilder points = new StringBuilder();
              for (TimeSeries.Point p : t.points()) {
                points
                    .append(fmt(px(p.seconds(), x)))
                    .append(',')
                    .append(fmt(py(top, p.value(), yMax)))
                    .append(' ');
              }
              s.append(
                  String.format(
                      Locale.ROOT,
                      "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
                      COLORS[i % COLORS.length],
                      points.toString().trim()));
              legend(s, top, i, t.name());
              i++;
            }
          }
        });
    return this;
  }

  /** One horizontal bar per label, longest value the full width. */
  public SvgFigure bars(String panelTitle, List<Bar> bars) {
    if (bars.isEmpty()) {
      return this;
    }
    int rowH = 22;
    panels.add(
        new Panel() {
          @Override
          public int height() {
            return 60 + rowH * bars.size();
          }

          @Override
          public void draw(StringBuilder s, int top) {
            heading(s, top, panelTitle);
            double max = bars.stream().mapToDouble(Bar::value).max().orElse(1);
            double axisMax = range(0, max)[1];
            int labelW = 360;
            int plotW = WIDTH - labelW - 150;
            for (int i = 0; i < bars.size(); i++) {
              Bar bar = bars.get(i);
              int y = top + 40 + i * rowH;
              double w = plotW * Math.max(0, bar.value()) / axisMax;
              s.append(
                  String.format(
                      Locale.ROOT,
                      "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">%s</text>%n"
                          + "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n"
                          + "<text x=\"%.1f\" y=\"%d\">%s</text>%n",
                      labelW - 8,
                      y + 14,
                      xml(bar.label()),
                      labelW,
                      y + 3,
                      w,
                      rowH - 6,
                      COLORS[0],
                      labelW + w + 6,
                      y + 14,
                      xml(bar.text())));
            }
          }
        });
    return this;
  }

  /** The SVG document. */
  public String render() {
    int height = 50 + panels.stream().mapToInt(Panel::height).sum();
    StringBuilder s = new StringBuilder(svgOpen(WIDTH, height));
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">%s</text>%n",
            WIDTH / 2,
            xml(title)));
    int top = 50;
    for (Panel panel : panels) {
      panel.draw(s, top);
      top += panel.height();
    }
    return s.append("</svg>\n").toString();
  }

  /**
   * An axis for values from {@code lo} to {@code hi}: {min, max, step}, with a round step (1, 2,
   * 2.5 or 5 times a power of ten) giving about five intervals, from 0 (or the round number below a
   * negative {@code lo}) to the round number at or above {@code hi}.
   */
  static double[] range(double lo, double hi) {
    double low = Math.min(lo, 0);
    double high = Math.max(hi, 0);
    double span = high - low > 0 ? high - low : 1;
    double step = niceCeiling(span / 5);
    double min = low < 0 ? Math.floor(low / step + 1e-9) * step : 0;
    double max = Math.ceil(high / step - 1e-9) * step;
    if (max <= min) {
      max = min + step;
    }
    return new double[] {min, max, step};
  }

  private static double px(double value, double[] x) {
    return LEFT + (WIDTH - LEFT - RIGHT) * (value - x[0]) / (x[1] - x[0]);
  }

  private static double py(int top, double value, double yMax) {
    return top + 40 + PLOT_H - PLOT_H * value / yMax;
  }

  private static void heading(StringBuilder s, int top, String text) {
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>%n",
            LEFT,
            top + 24,
            xml(text)));
  }

  private static void legend(StringBuilder s, int top, int index, String text) {
    int x = WIDTH - RIGHT + 14;
    int y = top + 48 + index * 18;
    s.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"4\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"%d\">%s</text>%n",
            x,
            y - 4,
            COLORS[index % COLORS.length],
            x + 18,
            y + 1,
            xml(text)));
  }

  private static void axes(
      StringBuilder s,
      int top,
      double[] x,
      double[] y,
      String xUnit,
      String yUnit,
      String yFormat,
      double yScale) {
    int plotW = WIDTH - LEFT - RIGHT;
    int bottom = top + 40 + PLOT_H;
    for (int k = 0; y[0] + k * y[2] <= y[1] + y[2] / 1e6; k++) {
      double v = y[0] + k * y[2];
      double py = bottom - PLOT_H * (v - y[0]) / (y[1] - y[0]);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT,
              py,
              LEFT + plotW,
              py,
              LEFT - 6,
              py + 4,
              yFormat == null
                  ? tick(v * yScale)
                  : String.format(Locale.ROOT, yFormat, v * yScale)));
    }
    for (int k = 0; x[0] + k * x[2] <= x[1] + x[2] / 1e6; k++) {
      double v = x[0] + k * x[2];
      double px = px(v, x);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              px,
              bottom,
              px,
              bottom + 4,
              px,
              bottom + 18,
              tick(v)));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n"
                + "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" text-anchor=\"middle\""
                + " fill=\"#555\">%s</text>%n",
            LEFT,
            bottom,
            LEFT + plotW,
            bottom,
            LEFT,
            top + 40,
            LEFT,
            bottom,
            LEFT + plotW / 2,
            bottom + 36,
            xml(xUnit),
            24,
            top + 40 + PLOT_H / 2,
            24,
            top + 40 + PLOT_H / 2,
            xml(yUnit)));
  }

  /** An axis label: whole numbers with thousands separators, others with what digits they have. */
  private static String tick(double v) {
    if (Math.abs(v - Math.rint(v)) < 1e-9 * Math.max(1, Math.abs(v))) {
      return String.format(Locale.ROOT, "%,.0f", Math.rint(v) + 0.0);
    }
    return BigDecimal.valueOf(v).round(new MathContext(6)).stripTrailingZeros().toPlainString();
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
