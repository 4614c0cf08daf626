package io.streamplane.kinds.printers;

/**
 * One column of a kind's Table ({@code meta.k8s.io/v1 TableColumnDefinition}): priority 1 columns
 * are the ones kubectl shows only with {@code -o wide}.
 */
public record Column(String name, String type, String format, String description, int priority) {}
