package dev.updraft.ingester;

import dev.updraft.common.PostgresTls;
import dev.updraft.common.MetricsAccess;
import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.ingester.funnel.FunnelKeys;
import dev.updraft.ingester.history.HistoryProjection;
import dev.updraft.ingester.kafka.ReadCommittedConsumer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The telemetry ingester: device check-ins from {@code <prefix>updraft.telemetry} into PostgreSQL, exactly
 * once, in batches (see {@link IngestLoop} for how); and the history projection (the audit log and the update
 * groups, from {@code <prefix>updraft.events}: {@link HistoryProjection}). Any number of instances may run with the same
 * consumer group; the topic's partitions are spread over them.
 *
 * <p>{@link #start} applies the schema migrations, then consumes with {@code --ingest-consumers} Kafka
 * consumers of the group, each on a thread of its own and writing its own batches (so that PostgreSQL
 * works on several transactions at once). When
 * {@code --metrics-port} is not 0 it also serves {@code GET /metrics} (Prometheus text) and
 * {@code GET /healthz} (200 while the consumer loop runs, 503 once it has stopped).
 *
 * <p>Thread-safe.
 */
public final class TelemetryIngester {
  private static final Logger LOG = LoggerFactory.getLogger(TelemetryIngester.class);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /** How long a consumer that stopped heartbeating keeps its partitions (a crashed ingester's). */
  static final int SESSION_TIMEOUT_MS = 10_000;

  /**
   * Longest wait between two attempts to write PostgreSQL while it fails (the backoff doubles from 100 ms up to this):
   * once PostgreSQL is back, the ingester stores again within about this much.
   */
  public static final java.time.Duration MAX_PG_RETRY_BACKOFF = java.time.Duration.ofMillis(PgHealth.MAX_BACKOFF_MS);
  /** Statements up to this many characters are prepared once per connection and kept (the longest is ~3,700). */
  static final int STATEMENT_CACHE_SQL_LIMIT = 16 * 1024;

  private final Vertx vertx;
  private final IngesterConfig config;
  private final Pool pool;
  private final PrometheusMeterRegistry registry;
  private final IngestMetrics metrics;
  private final List<IngestLoop> loops;
  private final List<Thread> threads = new ArrayList<>();
  private final HttpServer http;
  private final HistoryProjection history;
  /** The error reports' loop (dev.updraft.ingester.errors), set once started. */
  private volatile dev.updraft.ingester.errors.ErrorProjection errors;
  /** Null when retention is off. */
  private volatile RetentionJob retention;
  private Future<Void> closed;

  private TelemetryIngester(
      Vertx vertx,
      IngesterConfig config,
      Pool pool,
      PrometheusMeterRegistry registry,
      IngestMetrics metrics,
      List<IngestLoop> loops,
      HttpServer http,
      HistoryProjection history) {
    this.vertx = vertx;
    this.config = config;
    this.pool = pool;
    this.registry = registry;
    this.metrics = metrics;
    this.loops = List.copyOf(loops);
    this.http = http;
    this.history = history;
    int instance = INSTANCES.incrementAndGet();
    for (int i = 0; i < this.loops.size(); i++) {
      Thread t = new Thread(this.loops.get(i), "updraft-ingest-" + instance + "-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
  }

  /**
   * Applies the schema migrations, starts consuming, and (unless {@code --metrics-port 0}) listens for
   * {@code /metrics} and {@code /healthz}.
   *
   * @return completed once consuming has started; failed when PostgreSQL cannot be migrated, the Kafka
   *     configuration is invalid or the metrics port cannot be bound
   */
  public static Future<TelemetryIngester> start(Vertx vertx, IngesterConfig config) {
    return start(vertx, config, IngestLoop.Hook.NONE, null);
  }

  /** {@link #start(Vertx, IngesterConfig)} with fault injection and a commit listener (tests, benchmarks). */
  static Future<TelemetryIngester> start(
      Vertx vertx, IngesterConfig config, IngestLoop.Hook hook, IngestLoop.CommitListener listener) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    FunnelKeys funnelKeys = new FunnelKeys(config.funnelCache());
    IngestMetrics metrics = new IngestMetrics(registry, funnelKeys);
    AtomicReference<HistoryProjection> history = new AtomicReference<>();
    // per consumer: one connection writing, one reading offsets or finishing a write that timed out; two for the
    // history projection
    Pool pool = pool(vertx, config.pgConnectOptions(), 2 * config.consumers() + 3, "updraft-ingester");
    PgConnectOptions pg = config.pgConnectOptions();
    return SchemaMigrations.apply(pool)
        .recover(err -> Future.failedFuture(PostgresTls.explain(err, pg.getHost(), pg.getPort())))
        .compose(
            applied ->
                vertx.executeBlocking(
                    () -> {
                      List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
                      history.set(HistoryProjection.start(
                          new HistoryProjection.Settings(config.kafkaBootstrap(), config.kafka(), config.eventsTopic(), config.historyConsumerGroup(),
                              SESSION_TIMEOUT_MS),
                          pool, registry));
                      for (int i = 0; i < config.consumers(); i++) {
                        consumers.add(new KafkaConsumer<>(consumerProperties(config)));
                      }
                      return consumers;
                    }))
        .compose(
            consumers -> {
              List<IngestLoop> loops = new ArrayList<>();
              for (KafkaConsumer<byte[], byte[]> consumer : consumers) {
                loops.add(
                    new IngestLoop(
                        config.topic(),
                        consumer,
                        new BatchWriter(pool, config.topic(), funnelKeys, metrics.funnelSkipped::increment),
                        metrics,
                        config.batchSize(),
                        config.maxAttempts(),
                        config.batchWait(),
                        config.linger(),
                        hook,
                        listener));
              }
              HttpServer http = config.metricsPort() == 0 ? null : vertx.createHttpServer();
              TelemetryIngester ingester = new TelemetryIngester(vertx, config, pool, registry, metrics, loops, http, history.get());
              Future<?> listening =
                  http == null
                      ? Future.succeededFuture()
                      : http.requestHandler(ingester::handle).listen(config.metricsPort(), config.bind());
              return listening
                  .recover(err -> vertx.executeBlocking(() -> {
                    history.get().close();
                    for (KafkaConsumer<byte[], byte[]> consumer : consumers) {
                      consumer.close();
                    }
                    return null;
                  }).transform(x -> Future.failedFuture(err)))
                  .map(
                      ok -> {
                        ingester.startRetention(registry);
                      ingester.startErrors();
                        ingester.startLoops();
                        LOG.info("telemetry ingester started: {}", config);
                        return ingester;
                      });
            })
        .onFailure(err -> {
          HistoryProjection h = history.get();
          Future<Void> stopped = h == null ? Future.succeededFuture() : h.close();
          stopped.onComplete(x -> {
            pool.close();
            registry.close();
          });
        });
  }

  /** Starts the error reports' loop (blocking consumer creation on a worker). */
  private void startErrors() {
    vertx.executeBlocking(() -> errors = dev.updraft.ingester.errors.ErrorProjection.start(config.kafkaBootstrap(), config.kafka(),
        config.topicPrefix(), dev.updraft.events.Topics.errors(config.topicPrefix()), SESSION_TIMEOUT_MS, pool, registry), false)
        .onFailure(e -> LOG.error("the error-report loop did not start", e));
  }

  /** Starts the retention job when a table has a retention (its own thread and connection). */
  private void startRetention(MeterRegistry meters) {
    if (config.retention().enabled()) {
      retention =
          new RetentionJob(vertx, config.pgConnectOptions(), config.retention(), new RetentionMetrics(meters),
              Clock.systemUTC(), RetentionJob.Hook.NONE);
      retention.start();
    }
  }

  private void startLoops() {
    for (IngestLoop loop : loops) {
      loop.exited().whenComplete((v, crash) -> {
        if (crash != null) {
          // one loop died abruptly (a VM error): the process is not to be trusted, stop the others as a dead
          // process would, without writing; connections drop and open transactions abort
          for (IngestLoop other : loops) {
            other.halt();
          }
          RetentionJob job = retention;
          if (job != null) {
            job.close();
          }
          pool.close();
        }
      });
    }
    for (Thread t : threads) {
      t.start();
    }
  }

  /** A pool on {@code options} with {@link #sessionOptions}. */
  static Pool pool(Vertx vertx, PgConnectOptions options, int size, String applicationName) {
    return PgBuilder.pool().with(new PoolOptions().setMaxSize(size)).connectingTo(sessionOptions(options, applicationName)).using(vertx)
        .build();
  }

  /**
   * Every ingester connection's session (the writers' pool and the retention job's): prepared statements cached,
   * server-side timeouts set, named {@code applicationName} in {@code pg_stat_activity}.
   */
  static PgConnectOptions sessionOptions(PgConnectOptions options, String applicationName) {
    PgConnectOptions o = new PgConnectOptions(options);
    o.setCachePreparedStatements(true);
    // the client caches only statements up to 2,048 characters by default; the device upsert is longer, and
    // uncached it was parsed and planned again in every batch (~2 ms of PostgreSQL's CPU per batch of 300)
    o.setPreparedStatementCacheSqlLimit(STATEMENT_CACHE_SQL_LIMIT);
    // a stuck statement or an abandoned transaction must not hold offset locks for ever; the server gives
    // up before the ingester does (Writes.WRITE_TIMEOUT_MS), so a timed-out write is rolled back
    o.addProperty("statement_timeout", "50000");
    o.addProperty("idle_in_transaction_session_timeout", "60000");
    o.addProperty("application_name", applicationName);
    return o;
  }

  static Map<String, Object> consumerProperties(IngesterConfig config) {
    // an ingester that dies without leaving the group (SIGKILL, a lost machine) holds its partitions until
    // its session times out: 10 s rather than Kafka's 45 s (heartbeats every 3 s; the poll loop never blocks)
    Map<String, Object> p =
        ReadCommittedConsumer.properties(config.kafkaBootstrap(), config.consumerGroup(), "updraft-ingester-", SESSION_TIMEOUT_MS, config.batchSize());
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    long lingerMs = config.linger().toMillis();
    if (lingerMs > 0) {
      // the loop waits for more check-ins anyway: let the broker gather them (up to the linger, at most its
      // default 500 ms), so that a low rate or an idle topic costs a few fetches a second rather than one per
      // record or twenty; the loop counts a record's linger from its send, so the fetch's wait is not added to it
      p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 256 * 1024);
      p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) Math.max(1, Math.min(500, lingerMs)));
    }
    return config.kafka().apply(p);
  }

  /**
   * Stops consuming after writing what was consumed (one attempt), then closes the HTTP server and the
   * database pool. Idempotent.
   */
  public synchronized Future<Void> close() {
    if (closed == null) {
      List<Future<Void>> exits = new ArrayList<>();
      for (IngestLoop loop : loops) {
        loop.stop();
        exits.add(Future.fromCompletionStage(loop.exited()).otherwiseEmpty());
      }
      if (retention != null) {
        exits.add(retention.close());
      }
      exits.add(history.close());
      if (errors != null) {
        exits.add(errors.close());
      }
      closed =
          Future.join(exits)
              .compose(v -> http == null ? Future.<Void>succeededFuture() : http.close())
              .eventually(pool::close)
              .andThen(r -> registry.close())
              .mapEmpty();
    }
    return closed;
  }

  /** The ingester's meters (names in {@link IngestMetrics}'s documentation). */
  public MeterRegistry registry() {
    return registry;
  }

  /** The meters in the Prometheus text format, as {@code /metrics} serves them. */
  public String scrape() {
    return registry.scrape();
  }

  /** The port of {@code /metrics} and {@code /healthz}, or 0 when no HTTP server runs. */
  public int metricsPort() {
    return http == null ? 0 : http.actualPort();
  }

  /** Whether every consumer loop is running, the history projection's too (false once closed, or when one stopped abruptly). */
  public boolean running() {
    if (!history.running()) {
      return false;
    }
    for (int i = 0; i < loops.size(); i++) {
      if (!threads.get(i).isAlive() || loops.get(i).exited().isDone()) {
        return false;
      }
    }
    return true;
  }

  IngesterConfig config() {
    return config;
  }

  /** The retention job, or null when retention is off. */
  RetentionJob retention() {
    return retention;
  }

  private void handle(io.vertx.core.http.HttpServerRequest req) {
    String path = req.path();
    if ("/metrics".equals(path) && !config.metricsAccess().allows(req.getHeader("authorization"))) {
      req.response().setStatusCode(401).putHeader("www-authenticate", "Bearer").putHeader("content-type", "application/json")
          .end(MetricsAccess.UNAUTHORIZED_BODY);
    } else if ("/metrics".equals(path)) {
      req.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(registry.scrape());
    } else if ("/healthz".equals(path)) {
      boolean up = running();
      JsonObject body =
          new JsonObject()
              .put("status", up ? "ok" : "stopped")
              .put("paused", metrics.paused() == 1)
              .put("partitions", (long) metrics.partitions())
              .put("lag", (long) metrics.lag());
      req.response().setStatusCode(up ? 200 : 503).putHeader("content-type", "application/json").end(body.encode());
    } else {
      JsonObject err =
          new JsonObject()
              .put("error", new JsonObject().put("code", "not_found").put("message", "no such path: " + path));
      req.response().setStatusCode(404).putHeader("content-type", "application/json").end(err.encode());
    }
  }

  Vertx vertx() {
    return vertx;
  }
}
