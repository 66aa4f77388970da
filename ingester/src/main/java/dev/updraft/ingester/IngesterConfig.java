package dev.updraft.ingester;

import dev.updraft.common.PostgresTls;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.ConfigException;
import dev.updraft.common.MetricsAccess;
import dev.updraft.common.Settings;
import dev.updraft.events.Topics;
import dev.updraft.ingester.history.HistoryProjection;
import io.vertx.pgclient.PgConnectOptions;
import java.time.Duration;
import java.util.Set;

/**
 * The telemetry ingester's configuration, read once at start from flags and {@code UPDRAFT_*}
 * environment variables and validated there. Immutable.
 *
 * @param kafkaBootstrap {@code --kafka-bootstrap}: Kafka bootstrap servers
 * @param kafka {@code --kafka-config FILE}: Kafka client properties (TLS, SASL...) for every consumer of the ingester
 *     ({@link KafkaClientConfig}); none by default
 * @param topicPrefix {@code --topic-prefix}: put in front of {@code updraft.telemetry}
 * @param postgresUrl {@code --postgres-url}: {@code postgresql://user[:password]@host[:port]/database}
 * @param postgresTls {@code --postgres-ssl-mode}, {@code --postgres-ssl-ca}, {@code --postgres-ssl-cert},
 *     {@code --postgres-ssl-key}: TLS to it ({@link PostgresTls}); null is {@link PostgresTls#NONE}
 * @param consumerGroup {@code --consumer-group}: every ingester of one deployment uses the same group,
 *     so that the telemetry partitions are spread over the running instances
 * @param batchSize {@code --ingest-batch-size}: most check-ins written in one PostgreSQL transaction
 * @param batchWait {@code --ingest-batch-wait}: longest a consumed check-in waits in a batch while the
 *     previous batch is still being written (with none running, a batch is written once it has lingered:
 *     {@code --ingest-linger})
 * @param linger {@code --ingest-linger}: how long a batch waits for more check-ins, counted from its oldest
 *     check-in's send (its Kafka timestamp), before it is written when no write is running (one reaching {@code
 *     --ingest-batch-size} is written at once); 0 writes at the end of each poll. Trades lag (up to about this
 *     much per check-in) for PostgreSQL's cost per check-in: each
 *     transaction costs a fixed part (its commit and fsync, the offset and counter rows) that larger batches share
 * @param maxAttempts {@code --ingest-max-attempts}: writes of a batch PostgreSQL refuses for its data (SQLSTATE
 *     class 22, 23 or 54) before the records it refuses alone are found and set aside in {@code ingest_dead_letters}
 *     ({@link DeadLetters}); an outage never counts
 * @param consumers {@code --ingest-consumers}: Kafka consumers (threads, each writing its own batches) in
 *     this process; more than the topic's partitions over all instances leaves some idle
 * @param funnelCache {@code --ingest-funnel-cache}: download funnel keys the process remembers as written, so that
 *     its batches do not send them again ({@code dev.updraft.ingester.funnel.FunnelKeys}); 0 remembers none
 * @param metricsPort {@code --metrics-port}: HTTP port of {@code /metrics} and {@code /healthz}; 0 runs no
 *     HTTP server (when embedded in a process that serves metrics itself)
 * @param bind {@code --bind}: address of that HTTP server
 * @param metricsAccess {@code --metrics-token} or {@code --metrics-token-file}: the bearer token {@code /metrics} needs
 *     (default none: public); null is {@link MetricsAccess#OPEN}
 * @param retention {@code --postgres-retention} and its per-table flags: how long rows are kept in
 *     PostgreSQL (off by default); null is {@link RetentionConfig#NONE}
 * @param historyConsumerGroup {@code --history-consumer-group}: the consumer group of the history projection
 *     (the audit log and the update groups, from {@code updraft.events}); every ingester of one deployment uses the same;
 *     default {@code <topic-prefix>updraft-history}
 */
public record IngesterConfig(
    String kafkaBootstrap,
    KafkaClientConfig kafka,
    String topicPrefix,
    String postgresUrl,
    PostgresTls postgresTls,
    String consumerGroup,
    int batchSize,
    Duration batchWait,
    Duration linger,
    int maxAttempts,
    int consumers,
    int funnelCache,
    int metricsPort,
    String bind,
    RetentionConfig retention,
    String historyConsumerGroup,
    MetricsAccess metricsAccess) {

  public static final String DEFAULT_KAFKA_BOOTSTRAP = "127.0.0.1:9092";
  public static final String DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/updraft";
  public static final String DEFAULT_CONSUMER_GROUP = "updraft-ingester";
  public static final int DEFAULT_BATCH_SIZE = 10_000;
  public static final Duration DEFAULT_BATCH_WAIT = IngesterFlags.DEFAULT_BATCH_WAIT;
  /** At live-fleet rates a quarter of a second of check-ins per transaction; far under the 2 s lag target. */
  public static final Duration DEFAULT_LINGER = IngesterFlags.DEFAULT_LINGER;
  public static final Duration MAX_LINGER = Duration.ofSeconds(10);
  /** Two writers keep PostgreSQL busy while the other one's batch is being decoded and sent. */
  public static final int DEFAULT_CONSUMERS = 2;
  /** With the backoff (100 ms doubling), a refused batch is split after about 1.5 s of retries. */
  public static final int DEFAULT_MAX_ATTEMPTS = DeadLetters.DEFAULT_MAX_ATTEMPTS;
  /** The pipeline benchmark's fleet (500,000 devices) has about 1.6 million funnel keys; about 43 MB. */
  public static final int DEFAULT_FUNNEL_CACHE = 2_000_000;
  public static final int DEFAULT_METRICS_PORT = 9400;
  public static final String DEFAULT_BIND = "0.0.0.0";

  /** Every flag the ingester reads (names without the leading dashes): those of {@link IngesterFlags#TABLE}. */
  public static final Set<String> FLAGS = IngesterFlags.TABLE.names();

  public IngesterConfig {
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigException("--kafka-bootstrap must not be empty");
    }
    kafka = kafka == null ? KafkaClientConfig.none() : kafka;
    topicPrefix = topicPrefix == null ? "" : topicPrefix;
    if (consumerGroup == null || consumerGroup.isBlank()) {
      throw new ConfigException("--consumer-group must not be empty");
    }
    if (batchSize < 1 || batchSize > 100_000) {
      throw new ConfigException("--ingest-batch-size must be between 1 and 100000: got " + batchSize);
    }
    if (batchWait == null || batchWait.toMillis() < 1 || batchWait.toMillis() > 60_000) {
      throw new ConfigException("--ingest-batch-wait must be between 1ms and 60s: got " + batchWait);
    }
    if (linger == null || linger.isNegative() || linger.compareTo(MAX_LINGER) > 0) {
      throw new ConfigException("--ingest-linger must be between 0ms and 10s: got "
          + (linger == null ? "nothing" : linger.toMillis() + "ms"));
    }
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new ConfigException("--ingest-max-attempts must be between 1 and 100: got " + maxAttempts);
    }
    if (consumers < 1 || consumers > 64) {
      throw new ConfigException("--ingest-consumers must be between 1 and 64: got " + consumers);
    }
    if (funnelCache < 0 || funnelCache > 50_000_000) {
      throw new ConfigException("--ingest-funnel-cache must be between 0 and 50000000: got " + funnelCache);
    }
    if (metricsPort < 0 || metricsPort > 65535) {
      throw new ConfigException("--metrics-port must be between 0 and 65535: got " + metricsPort);
    }
    pgOptions(postgresUrl); // validates
    postgresTls = postgresTls == null ? PostgresTls.NONE : postgresTls;
    metricsAccess = metricsAccess == null ? MetricsAccess.OPEN : metricsAccess;
    retention = retention == null ? RetentionConfig.NONE : retention;
    historyConsumerGroup = historyConsumerGroup == null ? topicPrefix + HistoryProjection.DEFAULT_CONSUMER_GROUP : historyConsumerGroup;
    if (historyConsumerGroup.isBlank() || historyConsumerGroup.equals(consumerGroup)) {
      throw new ConfigException("--history-consumer-group must not be empty nor the telemetry's --consumer-group: got '"
          + historyConsumerGroup + "'");
    }
  }


  /** Reads and validates the ingester's flags; unknown flags are rejected by name. */
  public static IngesterConfig from(Settings s) {
    IngesterFlags.TABLE.rejectUnknown(s, Set.of());
    return new IngesterConfig(
        s.string("kafka-bootstrap", DEFAULT_KAFKA_BOOTSTRAP),
        KafkaClientConfig.from(s),
        s.string("topic-prefix", ""),
        s.string("postgres-url", DEFAULT_POSTGRES_URL),
        PostgresTls.from(s),
        IngesterFlags.CONSUMER_GROUP.read(s),
        IngesterFlags.INGEST_BATCH_SIZE.read(s),
        IngesterFlags.INGEST_BATCH_WAIT.read(s),
        IngesterFlags.INGEST_LINGER.read(s),
        IngesterFlags.INGEST_MAX_ATTEMPTS.read(s),
        IngesterFlags.INGEST_CONSUMERS.read(s),
        IngesterFlags.INGEST_FUNNEL_CACHE.read(s),
        s.port("metrics-port", DEFAULT_METRICS_PORT, true),
        IngesterFlags.BIND.read(s),
        RetentionConfig.from(s),
        IngesterFlags.HISTORY_CONSUMER_GROUP.read(s),
        MetricsAccess.from(s, false));
  }

  /** The telemetry topic: {@code <prefix>updraft.telemetry}. */
  public String topic() {
    return Topics.telemetry(topicPrefix);
  }

  /** The events topic the history projection reads: {@code <prefix>updraft.events}. */
  public String eventsTopic() {
    return Topics.events(topicPrefix);
  }

  /** Connection options parsed from {@link #postgresUrl()}. */
  public PgConnectOptions pgConnectOptions() {
    return postgresTls.apply(pgOptions(postgresUrl));
  }

  /**
   * Parses a PostgreSQL URL; the only place a URL is turned into options, so that the ingester and the
   * insights service connect the same way.
   */
  static PgConnectOptions pgOptions(String url) {
    if (url == null || !(url.startsWith("postgresql://") || url.startsWith("postgres://"))) {
      throw new ConfigException(
          "--postgres-url must look like postgresql://user@host:port/database: got '" + redact(url) + "'");
    }
    try {
      return PgConnectOptions.fromUri(url);
    } catch (RuntimeException e) {
      throw new ConfigException("--postgres-url is not a valid PostgreSQL URL: '" + redact(url) + "': " + e.getMessage());
    }
  }

  /** The URL with any password replaced, for messages and logs. */
  static String redact(String url) {
    if (url == null) {
      return "null";
    }
    return url.replaceAll("(://[^:/@]+:)[^@]*@", "$1***@");
  }

  @Override
  public String toString() {
    return "IngesterConfig[kafkaBootstrap=" + kafkaBootstrap + ", kafkaConfig=" + kafka + ", topic=" + topic() + ", postgresUrl=" + redact(postgresUrl) + ", postgresTls=" + postgresTls
        + ", consumerGroup=" + consumerGroup + ", batchSize=" + batchSize + ", batchWait=" + batchWait.toMillis()
        + "ms, linger=" + linger.toMillis() + "ms, maxAttempts=" + maxAttempts + ", consumers=" + consumers + ", funnelCache=" + funnelCache + ", metricsPort=" + metricsPort + ", bind=" + bind + ", retention=" + retention + ", historyConsumerGroup=" + historyConsumerGroup + ", " + metricsAccess + "]";
  }
}
