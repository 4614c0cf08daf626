package io.streamplane.cli.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The run directory of a local cluster (see docs/deploy.md): one directory per process, named after
 * the instance ({@code kafka-0}, {@code store-0}, {@code gateway-1}, ...), the file {@code
 * instances} listing them in start order, {@code bootstrap-servers}, and the {@code kubeconfig}.
 */
record RunDirectory(Path root) {

  RunDirectory {
    root = root.toAbsolutePath().normalize();
  }

  Path instancesFile() {
    return root.resolve("instances");
  }

  Path kubeconfig() {
    return root.resolve("kubeconfig");
  }

  Path bootstrapServersFile() {
    return root.resolve("bootstrap-servers");
  }

  RoleInstance instance(String name) {
    return new RoleInstance(name, root.resolve(name));
  }

  boolean exists() {
    return Files.exists(instancesFile());
  }

  /** The instances in start order; empty if the cluster was never started here. */
  List<RoleInstance> instances() {
    if (!exists()) {
      return List.of();
    }
    try {
      return Files.readAllLines(instancesFile()).stream()
          .filter(l -> !l.isBlank())
          .map(this::instance)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + instancesFile(), e);
    }
  }

  void writeInstances(List<RoleInstance> instances) throws IOException {
    Files.createDirectories(root);
    Files.write(instancesFile(), instances.stream().map(RoleInstance::name).toList());
  }
}
