package io.streamplane.bench.scenario;

import java.nio.file.Path;

/**
 * What every scenario run is given besides its own options.
 *
 * @param kubeconfig the kubeconfig file, or null for the default one ({@code $KUBECONFIG}, {@code
 *     ./.streamplane/kubeconfig}, {@code ~/.kube/config})
 * @param context the kubeconfig context, or null for its current one
 * @param output the directory the report goes to
 * @param name the report's base name, or null for the scenario's name
 * @param json where to write the results as JSON, or null
 * @param command the command line as typed, for the report
 */
public record Settings(
    Path kubeconfig, String context, Path output, String name, Path json, String command) {}
