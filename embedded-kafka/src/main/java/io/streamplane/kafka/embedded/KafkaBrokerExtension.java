package io.streamplane.kafka.embedded;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 fixture for {@code *IT} classes: one {@link EmbeddedKafkaBroker} per test class, on a
 * temporary data directory.
 *
 * <pre>{@code
 * @ExtendWith(KafkaBrokerExtension.class)
 * class FooIT {
 *   @Test
 *   void x(EmbeddedKafkaBroker broker) {
 *     String topic = KafkaBrokerExtension.uniqueName("foo");
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Contract: the broker is started before the class's {@code @BeforeAll} methods (or, with {@code
 * Lifecycle.PER_CLASS}, when the constructor first asks for it) and closed, with its directory,
 * after the class's {@code @AfterAll} methods. Parameters of type {@link EmbeddedKafkaBroker} in
 * constructors, lifecycle methods and test methods receive it. {@code Nested} classes share their
 * enclosing class's broker.
 *
 * <p>Limits: tests in one class share the broker, so each test must use its own topics, group ids
 * and application ids — {@link #uniqueName(String)} gives them. Every class starts its own broker:
 * measured on the 2-core machine, 2–4.5 s for the first in a JVM (class loading), 0.2–0.6 s for
 * later ones, and about 0.4 s to close.
 */
public final class KafkaBrokerExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KafkaBrokerExtension.class);
  private static final String BROKER_KEY = "broker";

  // The run token keeps names unique across JVMs sharing a persistent broker, the counter within.
  private static final String RUN_TOKEN = UUID.randomUUID().toString().substring(0, 8);
  private static final AtomicLong COUNTER = new AtomicLong();

  /**
   * A name no other call in any run returns, usable as a topic, group id or application id: {@code
   * base-<run token>-<counter>}, made of characters Kafka accepts in topic names.
   */
  public static String uniqueName(String base) {
    return base + "-" + RUN_TOKEN + "-" + COUNTER.incrementAndGet();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    brokerFor(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    // remove() looks only at this class's store, so a nested class leaves its parent's broker be.
    EmbeddedKafkaBroker broker =
        context.getStore(NAMESPACE).remove(BROKER_KEY, EmbeddedKafkaBroker.class);
    if (broker != null) {
      broker.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext context) {
    return parameterContext.getParameter().getType() == EmbeddedKafkaBroker.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext, ExtensionContext context) {
    return brokerFor(context);
  }

  /** The broker of the nearest class level, started there if none exists yet. */
  private static EmbeddedKafkaBroker brokerFor(ExtensionContext context) {
    EmbeddedKafkaBroker existing =
        context.getStore(NAMESPACE).get(BROKER_KEY, EmbeddedKafkaBroker.class);
    if (existing != null) {
      return existing;
    }
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startTemporary();
    classContext.getStore(NAMESPACE).put(BROKER_KEY, broker);
    return broker;
  }
}
