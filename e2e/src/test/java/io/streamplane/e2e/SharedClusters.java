package io.streamplane.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a {@link SharedCluster} class's {@code @BeforeAll} method the cluster of its shape. The
 * clusters live in the root store of the run, which stops the last one when the run ends; a class
 * of another shape stops the one before it, since clusters with the process runtime bind the same
 * cluster IPs.
 */
final class SharedClusters implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedClusters.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalCluster.class;
  }

  @Override
  public LocalCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    SharedCluster.Shape shape = shapeOf(testClass);
    Live live =
        context
            .getRoot()
            .getStore(NAMESPACE)
            .getOrComputeIfAbsent(Live.class, k -> new Live(), Live.class);
    try {
      return live.clusterFor(shape, testClass.getSimpleName());
    } catch (Exception e) {
      throw new ParameterResolutionException("no " + shape + " cluster for " + testClass, e);
    }
  }

  private static SharedCluster.Shape shapeOf(Class<?> testClass) {
    for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
      SharedCluster shared = c.getAnnotation(SharedCluster.class);
      if (shared != null) {
        return shared.value();
      }
    }
    throw new ParameterResolutionException(testClass + " has no @SharedCluster");
  }

  /** The one shared cluster alive, if any, and the classes that have used it. */
  private static final class Live implements AutoCloseable {

    private SharedCluster.Shape shape;
    private LocalCluster cluster;
    private final List<String> users = new ArrayList<>();

    synchronized LocalCluster clusterFor(SharedCluster.Shape wanted, String user) throws Exception {
      if (cluster != null && shape != wanted) {
        close();
      }
      if (cluster == null) {
        Path home =
            Files.createTempDirectory("e2e-" + wanted.name().toLowerCase(Locale.ROOT) + "-");
        String javaOptions =
            System.getenv().getOrDefault("STREAMPLANE_JAVA_OPTS", "") + wanted.javaOptions;
        LocalCluster started =
            new LocalCluster(home, wanted.upArguments.toArray(String[]::new))
                .javaOptions(javaOptions);
        try {
          started.start();
        } catch (Exception | AssertionError e) {
          started.close();
          delete(home);
          throw e;
        }
        shape = wanted;
        cluster = started;
      }
      users.add(user);
      return cluster;
    }

    /** Ctrl-C to the cluster, and its directories deleted; fails if it does not stop in time. */
    @Override
    public synchronized void close() throws Exception {
      if (cluster == null) {
        return;
      }
      LocalCluster stopping = cluster;
      String usedBy = String.join(", ", users);
      cluster = null;
      shape = null;
      users.clear();
      try {
        stopping.stop();
      } catch (AssertionError e) {
        throw new AssertionError("the cluster shared by " + usedBy + " did not stop", e);
      } finally {
        stopping.close();
        delete(stopping.home);
      }
    }

    private static void delete(Path dir) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
