package dev.updraft.ingester.history;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.ingester.kafka.ReadCommittedConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The history projection: {@code <prefix>updraft.events} into PostgreSQL ({@code history_audit},
 * {@code history_groups}, {@code history_apps}, positions in {@code history_offsets}), exactly once, one
 * transaction per poll, with a consumer group of its own ({@code --history-consumer-group}, default
 * {@value #DEFAULT_CONSUMER_GROUP}). The control plane reads the audit log and the groups it no longer
 * holds there. Runs inside the telemetry ingester's process, on one thread; any number of ingesters may run
 * it (the partitions are spread over them).
 *
 * <p>Thread-safe.
 */
public final class HistoryProjection {
  public static final String DEFAULT_CONSUMER_GROUP = "updraft-history";
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /**
   * @param kafkaBootstrap Kafka bootstrap servers
   * @param kafka the {@code --kafka-config} settings added to the consumer
   * @param topic the events topic ({@code <prefix>updraft.events})
   * @param consumerGroup the projection's consumer group
   * @param sessionTimeoutMs how long a dead instance keeps its partitions
   */
  public record Settings(String kafkaBootstrap, KafkaClientConfig kafka, String topic, String consumerGroup, int sessionTimeoutMs) {}

  private final HistoryLoop loop;
  private final Thread thread;

  private HistoryProjection(HistoryLoop loop) {
    this.loop = loop;
    this.thread = new Thread(loop, "updraft-history-" + INSTANCES.incrementAndGet());
    this.thread.setDaemon(true);
  }

  /** Creates the consumer (blocking: call off the event loop) and starts consuming on a thread of its own. */
  public static HistoryProjection start(Settings settings, Pool pool, MeterRegistry meters) {
    return start(settings, pool, meters, HistoryLoop.Hook.NONE);
  }

  static HistoryProjection start(Settings settings, Pool pool, MeterRegistry meters, HistoryLoop.Hook hook) {
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(settings));
    HistoryProjection p =
        new HistoryProjection(new HistoryLoop(settings.topic(), consumer, new HistoryWriter(pool, settings.topic()), new HistoryMetrics(meters), hook));
    p.thread.start();
    return p;
  }

  static Map<String, Object> consumerProperties(Settings s) {
    Map<String, Object> p = ReadCommittedConsumer.properties(s.kafkaBootstrap(), s.consumerGroup(), "updraft-history-", s.sessionTimeoutMs(), 1_000);
    // the control plane creates the events topic with its partitions and settings: never auto-create it here
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    return s.kafka().apply(p);
  }

  /** Whether the loop runs. */
  public boolean running() {
    return thread.isAlive() && !loop.exited().isDone();
  }

  /** Stops after the running transaction; completes once the consumer left the group. */
  public Future<Void> close() {
    loop.stop();
    return Future.fromCompletionStage(loop.exited()).otherwiseEmpty()
        .timeout(Duration.ofSeconds(30).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).otherwiseEmpty();
  }
}
