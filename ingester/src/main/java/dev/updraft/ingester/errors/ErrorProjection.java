package dev.updraft.ingester.errors;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.ingester.kafka.ReadCommittedConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The error reports apps send over OTLP/HTTP: {@code <prefix>updraft.errors} into {@code error_reports} and
 * {@code error_groups} ({@link ErrorLoop}), with a consumer group of its own ({@code <prefix>}{@value #CONSUMER_GROUP}). Runs inside the
 * telemetry ingester's process, on one thread. Thread-safe.
 */
public final class ErrorProjection {
  public static final String CONSUMER_GROUP = "updraft-errors";
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final ErrorLoop loop;
  private final Thread thread;

  private ErrorProjection(ErrorLoop loop) {
    this.loop = loop;
    this.thread = new Thread(loop, "updraft-errors-" + INSTANCES.incrementAndGet());
    this.thread.setDaemon(true);
  }

  /**
   * Creates the consumer (blocking: call off the event loop) and starts consuming {@code topic} on a thread of its own, in the
   * consumer group {@code topicPrefix + CONSUMER_GROUP} (deployments sharing a Kafka cluster under other prefixes never share it).
   */
  public static ErrorProjection start(String bootstrap, KafkaClientConfig kafka, String topicPrefix, String topic, int sessionTimeoutMs, Pool pool,
      MeterRegistry meters) {
    Map<String, Object> p = ReadCommittedConsumer.properties(bootstrap, topicPrefix + CONSUMER_GROUP, "updraft-errors-", sessionTimeoutMs, 500);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.apply(p));
    ErrorProjection e = new ErrorProjection(new ErrorLoop(topic, consumer, new ErrorWriter(pool), meters));
    e.thread.start();
    return e;
  }

  public boolean running() {
    return thread.isAlive() && !loop.exited().isDone();
  }

  /** Stops after the running write; completes once the consumer closed (at most 30 s). */
  public Future<Void> close() {
    loop.stop();
    return Future.fromCompletionStage(loop.exited()).otherwiseEmpty().timeout(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS).otherwiseEmpty();
  }
}
