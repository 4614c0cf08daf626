package io.streamplane.cli.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes the kubeconfig that points kubectl at the local cluster's gateway. */
public final class Kubeconfig {

  private Kubeconfig() {}

  public static void write(Path file, String server, String cluster) {
    String config =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: %1$s
          cluster:
            server: %2$s
        users:
        - name: %1$s-admin
          user: {}
        contexts:
        - name: %1$s
          context:
            cluster: %1$s
            user: %1$s-admin
            namespace: default
        current-context: %1$s
        """
            .formatted(cluster, server);
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Files.writeString(file, config);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
