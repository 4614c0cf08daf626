package io.streamplane.e2e;

import java.util.Comparator;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order of the end-to-end classes: first those that start clusters of their own, then the
 * classes of each {@link SharedCluster} shape together, so that each shared cluster starts once and
 * none is alive while a class runs its own cluster on the same cluster IPs. Within each part,
 * classes run by name.
 */
public final class ClusterOrder implements ClassOrderer {

  @Override
  public void orderClasses(ClassOrdererContext context) {
    context
        .getClassDescriptors()
        .sort(
            Comparator.<ClassDescriptor>comparingInt(
                    c ->
                        c.findAnnotation(SharedCluster.class)
                            .map(shared -> 1 + shared.value().ordinal())
                            .orElse(0))
                .thenComparing(c -> c.getTestClass().getName()));
  }
}
