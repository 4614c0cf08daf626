package io.streamplane.cli.up;

import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Writes the kubeconfig that points kubectl at the local cluster's gateway: its HTTPS URL, the
 * cluster CA ({@code certificate-authority-data}) and the administrator's client certificate and
 * key ({@code client-certificate-data}, {@code client-key-data}), as kubeadm's {@code admin.conf}.
 * The file holds a private key: it is written readable only by its owner.
 */
public final class Kubeconfig {

  private Kubeconfig() {}

  /** A kubeconfig of a plain HTTP gateway that authenticates nobody (a read-only replay). */
  public static void write(Path file, String server, String cluster) {
    save(
        file,
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
            .formatted(cluster, server));
  }

  public static void write(
      Path file, String server, String cluster, ClusterPki.ClientIdentity admin) {
    String config =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: %1$s
          cluster:
            server: %2$s
            certificate-authority-data: %3$s
        users:
        - name: %1$s-admin
          user:
            client-certificate-data: %4$s
            client-key-data: %5$s
        contexts:
        - name: %1$s
          context:
            cluster: %1$s
            user: %1$s-admin
            namespace: default
        current-context: %1$s
        """
            .formatted(
                cluster,
                server,
                base64(admin.serverCaPem()),
                base64(admin.certificatePem()),
                base64(admin.keyPem()));
    save(file, config);
  }

  private static void save(Path file, String config) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Files.writeString(file, config);
      file.toFile().setReadable(false, false);
      file.toFile().setReadable(true, true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static String base64(String pem) {
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8));
  }
}
