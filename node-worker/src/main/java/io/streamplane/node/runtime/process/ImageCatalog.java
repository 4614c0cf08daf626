package io.streamplane.node.runtime.process;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerPort;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The process runtime's stand-in for image metadata: for an image name it knows, the entrypoint and
 * default arguments (Docker's {@code ENTRYPOINT} and {@code CMD}) a container with no {@code
 * command} runs.
 *
 * <p>Contract: images are looked up by bare name, without registry, repository path, tag or digest
 * ({@code docker.io/library/nginx:1.27} is {@code nginx}). {@link #defaults()} maps {@code nginx}
 * to {@link StaticHttpServer} on the container's first {@code containerPort} (80 when none) and the
 * pod IP, run by this JVM's {@code java} with a directory holding only its class (which a sandboxed
 * container sees read-only), and {@code busybox} to {@code /bin/sh}. {@link #command} applies
 * Kubernetes' rules: {@code command} replaces the entrypoint, {@code args} replace the default
 * arguments.
 *
 * <p>Limits: the catalog is built in code; reading it from a file is still to come.
 */
public final class ImageCatalog {

  /**
   * An image's entrypoint and default arguments, and the host directories its entrypoint needs
   * beyond the host's {@code /usr} and {@code /etc}: a sandboxed container sees them read-only at
   * the same paths.
   */
  public record Entry(List<String> entrypoint, List<String> cmd, List<Path> files) {
    public Entry {
      entrypoint = List.copyOf(entrypoint);
      cmd = List.copyOf(cmd);
      files = List.copyOf(files);
    }

    public Entry(List<String> entrypoint, List<String> cmd) {
      this(entrypoint, cmd, List.of());
    }
  }

  private final Map<String, BiFunction<Container, String, Entry>> images;

  public ImageCatalog(Map<String, BiFunction<Container, String, Entry>> images) {
    this.images = Map.copyOf(images);
  }

  /** The built-in catalog: {@code nginx} and {@code busybox}. */
  public static ImageCatalog defaults() {
    return new ImageCatalog(
        Map.of(
            "nginx",
            (container, podIP) ->
                new Entry(
                    List.of(
                        javaBinary(),
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-Xmx64m",
                        "-cp",
                        StaticServerClasses.DIR.toString(),
                        StaticHttpServer.class.getName(),
                        "--address",
                        podIP,
                        "--port",
                        String.valueOf(firstPort(container))),
                    List.of(),
                    javaFiles(StaticServerClasses.DIR)),
            "busybox",
            (container, podIP) -> new Entry(List.of(), List.of("/bin/sh"))));
  }

  /** The bare image name: no registry, repository path, tag or digest. */
  public static String bareName(String image) {
    String name = image == null ? "" : image;
    int at = name.indexOf('@');
    if (at >= 0) {
      name = name.substring(0, at);
    }
    int slash = name.lastIndexOf('/');
    if (slash >= 0) {
      name = name.substring(slash + 1);
    }
    int colon = name.indexOf(':');
    return colon >= 0 ? name.substring(0, colon) : name;
  }

  /**
   * The port a container of a serving image listens on once it is up ({@code nginx}: its first
   * container port), or 0. Only for containers that run the image's own entrypoint (no {@code
   * command}).
   */
  public int listenPort(Container container) {
    boolean own = container.getCommand() == null || container.getCommand().isEmpty();
    return own && "nginx".equals(bareName(container.getImage())) ? firstPort(container) : 0;
  }

  /** The image's entry, if the catalog knows it. */
  public Optional<Entry> lookup(Container container, String podIP) {
    BiFunction<Container, String, Entry> entry = images.get(bareName(container.getImage()));
    return entry == null ? Optional.empty() : Optional.of(entry.apply(container, podIP));
  }

  /** The host directories the container's image entry needs, when it runs its entrypoint. */
  public List<Path> files(Container container, String podIP) {
    if (container.getCommand() != null && !container.getCommand().isEmpty()) {
      return List.of();
    }
    return lookup(container, podIP).map(Entry::files).orElse(List.of());
  }

  /**
   * The command line the container runs, or empty when it has no {@code command} and the catalog
   * does not know its image.
   */
  public Optional<List<String>> command(Container container, String podIP) {
    List<String> command = orEmpty(container.getCommand());
    List<String> args = orEmpty(container.getArgs());
    List<String> line = new ArrayList<>();
    if (!command.isEmpty()) {
      line.addAll(command);
      line.addAll(args);
      return Optional.of(line);
    }
    Optional<Entry> entry = lookup(container, podIP);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    line.addAll(entry.get().entrypoint());
    line.addAll(container.getArgs() != null ? args : entry.get().cmd());
    return line.isEmpty() ? Optional.empty() : Optional.of(line);
  }

  static int firstPort(Container container) {
    if (container.getPorts() != null) {
      for (ContainerPort port : container.getPorts()) {
        if (port.getContainerPort() != null) {
          return port.getContainerPort();
        }
      }
    }
    return 80;
  }

  /**
   * The stand-in's class file, copied out of this JVM's class path once per JVM: a sandboxed
   * container sees that one directory, not the class path (the node's jars, the checkout).
   */
  private static final class StaticServerClasses {
    static final Path DIR = extract();

    private static Path extract() {
      String resource = StaticHttpServer.class.getName().replace('.', '/') + ".class";
      try (InputStream in = StaticHttpServer.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("no " + resource + " on the class path");
        }
        Path dir = Files.createTempDirectory("streamplane-nginx-");
        Path file = dir.resolve(resource);
        Files.createDirectories(file.getParent());
        Files.copy(in, file);
        List<Path> made = new ArrayList<>();
        for (Path p = file; p != null && p.startsWith(dir); p = p.getParent()) {
          p.toFile().setReadable(true, false);
          p.toFile().setExecutable(true, false);
          made.add(0, p);
        }
        // deleteOnExit deletes the last registered first: the file before its directories.
        made.forEach(p -> p.toFile().deleteOnExit());
        return dir;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot copy the static HTTP server's class", e);
      }
    }
  }

  /** {@code classes} and, when this JVM lives outside {@code /usr}, its home. */
  private static List<Path> javaFiles(Path classes) {
    Path home = Path.of(System.getProperty("java.home")).toAbsolutePath().normalize();
    return home.startsWith("/usr/") ? List.of(classes) : List.of(classes, home);
  }

  static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(System.getProperty("java.home") + "/bin/java");
  }

  private static List<String> orEmpty(List<String> list) {
    return list == null ? List.of() : list;
  }
}
