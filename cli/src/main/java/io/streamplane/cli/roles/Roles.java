package io.streamplane.cli.roles;

import java.util.List;
import java.util.concurrent.CountDownLatch;

/** What the long-running roles share: running until the process is asked to stop. */
final class Roles {

  private Roles() {}

  /**
   * Blocks until SIGINT or SIGTERM, then closes {@code resources} in reverse order inside the
   * shutdown hook, so the JVM exits only after every consumer, producer and store is closed.
   */
  static void runUntilStopped(AutoCloseable... resources) throws InterruptedException {
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  List<AutoCloseable> list = List.of(resources);
                  for (int i = list.size() - 1; i >= 0; i--) {
                    try {
                      list.get(i).close();
                    } catch (Exception e) {
                      System.err.println("while stopping: " + e);
                    }
                  }
                  System.out.println("stopped.");
                  closed.countDown();
                },
                "streamplane-shutdown"));
    closed.await();
  }
}
