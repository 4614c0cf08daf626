package io.streamplane.gateway.write;

import io.streamplane.log.CommandResult;
import io.streamplane.log.ResourceCommand;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Where the registry's writes go: a command is appended, the store decides it, and its result comes
 * back. {@link CommandClient} is the log on Kafka; a registry is tested against an in-memory one.
 */
public interface CommandLog {

  /**
   * Appends the command and waits for its result.
   *
   * @throws TimeoutException if no result arrived within {@code timeout}
   */
  CommandResult execute(ResourceCommand command, Duration timeout)
      throws TimeoutException, InterruptedException;
}
