package io.streamplane.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * The roles the launcher will run but that are not built yet. Each says so plainly and exits with
 * status 2, so a script never mistakes a missing role for a running one.
 */
abstract class NotBuiltYet implements Callable<Integer> {

  private final String role;
  private final String issue;

  NotBuiltYet(String role, String issue) {
    this.role = role;
    this.issue = issue;
  }

  @Override
  public Integer call() {
    System.err.println(
        "streamplane "
            + role
            + ": not built yet ("
            + issue
            + "). Built so far: up, gateway, store, controllers, scheduler, node, nodes, bench.");
    return 2;
  }

  @Command(
      name = "gateway",
      description = "HTTPS server speaking the Kubernetes API. (not built yet)")
  static final class Gateway extends NotBuiltYet {
    Gateway() {
      super("gateway", "issue #3");
    }
  }

  @Command(
      name = "store",
      description = "Streams app: commands -> events and objects. (not built yet)")
  static final class Store extends NotBuiltYet {
    Store() {
      super("store", "issue #3");
    }
  }

  @Command(
      name = "replay",
      description = "Rebuild state from the log, as of any time. (not built yet)")
  static final class Replay extends NotBuiltYet {
    Replay() {
      super("replay", "no issue filed yet");
    }
  }

  @Command(name = "history", description = "Every version of one object. (not built yet)")
  static final class History extends NotBuiltYet {
    History() {
      super("history", "no issue filed yet");
    }
  }

  @Command(
      name = "audit",
      description = "Query the audit stream, live or historic. (not built yet)")
  static final class Audit extends NotBuiltYet {
    Audit() {
      super("audit", "no issue filed yet");
    }
  }
}
