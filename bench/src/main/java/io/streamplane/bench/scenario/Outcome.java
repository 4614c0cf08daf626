package io.streamplane.bench.scenario;

import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import java.util.List;

/**
 * What a scenario measured, before the runner adds the server's metrics and writes the report.
 *
 * @param summary the result in a few lines (printed at the end and at the top of the report)
 * @param body the report's scenario sections (Markdown)
 * @param results the figures for the JSON file
 */
public record Outcome(
    String title,
    String summary,
    String body,
    SvgFigure figure,
    List<Target> targets,
    List<String> failures,
    Object results) {}
