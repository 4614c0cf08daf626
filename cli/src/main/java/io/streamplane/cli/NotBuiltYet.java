package io.streamplane.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * The roles the launcher will run but that are not built yet. Each says so plainly and exits with
 * status 2, so a script never mistakes a missing role for a running one.
 */
abstract class NotBuiltYet implements Callable<Integer> {

  private final String role;

  NotBuiltYet(String role) {
    this.role = role;
  }

  @Override
  public Integer call() {
    System.err.println(
        "streamplane "
            + role
            + ": not built yet. Built so far: up, gateway, store, controllers, scheduler, node,"
            + " nodes, replay, history, bench.");
    return 2;
  }

  @Command(
      name = "audit",
      description = "Query the audit stream, live or historic. (not built yet)")
  static final class Audit extends NotBuiltYet {
    Audit() {
      super("audit");
    }
  }
}
