package io.streamplane.kinds.printers;

import java.util.List;
import java.util.Map;

/** One printed row: the cells, and the row conditions (pods mark Completed rows). */
public record Row(List<Object> cells, List<Map<String, String>> conditions) {}
