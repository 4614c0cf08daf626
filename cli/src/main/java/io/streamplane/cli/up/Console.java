package io.streamplane.cli.up;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;

/**
 * The launcher's terminal output: milestone lines with a time stamp, and a status line that redraws
 * itself in place on a terminal and is printed as ordinary lines otherwise (logs, CI).
 */
final class Console {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

  private final PrintStream out;
  private final boolean terminal = System.console() != null;
  private boolean statusShown;

  Console(PrintStream out) {
    this.out = out;
  }

  synchronized void line(String message) {
    endStatus();
    out.println(LocalTime.now().format(TIME) + " " + message);
    out.flush();
  }

  synchronized void status(String message) {
    if (terminal) {
      out.print("\r\033[K" + message);
      statusShown = true;
    } else {
      out.println(LocalTime.now().format(TIME) + " " + message);
    }
    out.flush();
  }

  synchronized void endStatus() {
    if (statusShown) {
      out.println();
      statusShown = false;
    }
  }
}
