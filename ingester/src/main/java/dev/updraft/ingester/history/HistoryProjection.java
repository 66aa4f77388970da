package dev.updraft.ingester.history;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

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
   * @param topic the events topic ({@code <prefix>updraft.events})
   * @param consumerGroup the projection's consumer group
   * @param sessionTimeoutMs how long a dead instance keeps its partitions
   */
  public record Settings(String kafkaBootstrap, String topic, String consumerGroup, int sessionTimeoutMs) {}

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
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.kafkaBootstrap());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, s.consumerGroup());
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "updraft-history-" + UUID.randomUUID().toString().substring(0, 8));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // the control plane creates the events topic with its partitions and settings: never auto-create it here
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, s.sessionTimeoutMs());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1_000);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
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
