package dev.updraft.controlplane.telemetry;

import dev.updraft.common.PostgresTls;
import dev.updraft.common.ConfigException;
import dev.updraft.dbschema.SchemaMigrations;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's connection to the telemetry database (insights, and the history projection's audit
 * and groups: {@code dev.updraft.controlplane.history}): a small pool that connects lazily, the
 * telemetry schema applied on first contact (so the routes work before any ingester ran), and the
 * difference between "PostgreSQL cannot be used now" (a 503 the caller can wait out) and a bug in a query.
 *
 * <p>Creating it never touches the network: the control plane starts and serves its publisher API
 * whether or not PostgreSQL is up. Every request is bounded by the query timeout ({@code --insights-timeout}):
 * the server cancels a statement running longer ({@code statement_timeout}), a request waits no longer for
 * a pooled connection (and at most {@link #MAX_WAITING} requests wait at all), and {@link #bounded} gives up
 * on an answer that does not come (a network that stalls answers no cancel). Thread-safe.
 */
public final class TelemetryDb {
  private static final Logger LOG = LoggerFactory.getLogger(TelemetryDb.class);

  /** Requests that may wait for a pooled connection; more are answered 503 at once. */
  static final int MAX_WAITING = 64;

  private final Pool pool;
  private final String where;
  private final Duration timeout;
  /** What reads through it, for its log lines ({@code insights}, {@code history}). */
  private final String purpose;
  private final AtomicReference<Future<Void>> schema = new AtomicReference<>();
  private volatile boolean down;

  private TelemetryDb(Pool pool, String where, Duration timeout, String purpose) {
    this.pool = pool;
    this.where = where;
    this.timeout = timeout;
    this.purpose = purpose;
  }

  /**
   * A pool on {@code postgresUrl} ({@code --postgres-url}); nothing is connected yet.
   *
   * @param timeout the longest a request waits for PostgreSQL ({@code --insights-timeout})
   * @throws ConfigException when the URL is not a PostgreSQL URL
   */
  public static TelemetryDb create(Vertx vertx, String postgresUrl, Duration timeout) {
    return create(vertx, postgresUrl, timeout, "insights");
  }

  /** {@link #create(Vertx, String, Duration)} for another reader ({@code purpose} names it in logs). */
  public static TelemetryDb create(Vertx vertx, String postgresUrl, Duration timeout, String purpose) {
    return create(vertx, postgresUrl, PostgresTls.NONE, timeout, purpose);
  }

  /** {@link #create(Vertx, String, Duration, String)} over TLS as {@code tls} says ({@code --postgres-ssl-*}). */
  public static TelemetryDb create(Vertx vertx, String postgresUrl, PostgresTls tls, Duration timeout, String purpose) {
    PgConnectOptions options;
    if (postgresUrl == null || !(postgresUrl.startsWith("postgresql://") || postgresUrl.startsWith("postgres://"))) {
      throw new ConfigException("--postgres-url must look like postgresql://user@host:port/database (insights read the telemetry there)");
    }
    try {
      options = tls.apply(PgConnectOptions.fromUri(postgresUrl));
    } catch (RuntimeException e) {
      throw new ConfigException("--postgres-url is not a valid PostgreSQL URL (insights read the telemetry there): " + e.getMessage());
    }
    options.setCachePreparedStatements(true)
        .addProperty("application_name", "updraft-" + purpose)
        // a query stuck behind a lock or a slow disk gives up server-side rather than holding a connection
        .addProperty("statement_timeout", Long.toString(timeout.toMillis()));
    int millis = (int) timeout.toMillis();
    Pool pool =
        PgBuilder.pool()
            .with(
                new PoolOptions()
                    .setMaxSize(4)
                    .setMaxWaitQueueSize(MAX_WAITING)
                    .setConnectionTimeout(millis)
                    .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS))
            .with(new NetClientOptions().setConnectTimeout(Math.min(millis, 5_000)))
            .connectingTo(options)
            .using(vertx)
            .build();
    return new TelemetryDb(pool, options.getHost() + ":" + options.getPort() + "/" + options.getDatabase(), timeout, purpose);
  }

  /**
   * {@code f}, failed with a {@link TimeoutException} naming the timeout when it has not completed within
   * it (its result, if it comes later, is dropped).
   */
  public <T> Future<T> bounded(Future<T> f) {
    return f.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .recover(t -> Future.failedFuture(t instanceof TimeoutException
            ? new TimeoutException("no answer within " + timeout.toMillis() + " ms (--insights-timeout)")
            : t));
  }

  public Pool pool() {
    return pool;
  }

  /** {@code host:port/database}, never the password: for messages. */
  public String where() {
    return where;
  }

  /**
   * Completes once the telemetry schema is known to be there (applied now or by the ingester). After a
   * failure the next call tries again, so PostgreSQL coming back is noticed without a restart.
   */
  public Future<Void> ready() {
    Future<Void> f = schema.get();
    if (f != null && (!f.isComplete() || f.succeeded())) {
      return f;
    }
    Future<Void> next =
        SchemaMigrations.apply(pool)
            .<Void>mapEmpty()
            .andThen(ar -> {
              if (ar.succeeded()) {
                available();
              } else {
                unavailable(ar.cause());
              }
            });
    return schema.compareAndSet(f, next) ? next : schema.get();
  }

  /** Records a query that worked: logs once when PostgreSQL is back after an outage. */
  public void available() {
    if (down) {
      down = false;
      LOG.info("{}: PostgreSQL at {} is reachable again", purpose, where);
    }
  }

  /** Records a failure that made PostgreSQL unusable: logs once per outage, not per request. */
  public void unavailable(Throwable cause) {
    if (!down) {
      down = true;
      LOG.warn("{}: PostgreSQL at {} cannot be used ({}); {} answer 503 until it is back", purpose, where, describe(cause),
          "insights".equals(purpose) ? "insights (and the guard waits)" : "its reads");
    } else {
      LOG.debug("{}: PostgreSQL at {} still unavailable: {}", purpose, where, describe(cause));
    }
  }

  /**
   * Whether {@code t} means the database cannot be used right now (connection refused or dropped, server
   * starting or shutting down, timeouts, no such database, authentication), as opposed to a bug in our
   * SQL or our Java (a 500).
   */
  public static boolean isOutage(Throwable t) {
    if (t instanceof PgException) {
      String state = ((PgException) t).getSqlState();
      // 22 data exception, 23 integrity violation, 42 syntax error or undefined object: our query is wrong
      return state == null || !(state.startsWith("22") || state.startsWith("23") || state.startsWith("42"));
    }
    return !(t instanceof NullPointerException
        || t instanceof ClassCastException
        || t instanceof IllegalArgumentException
        || t instanceof IndexOutOfBoundsException
        || t instanceof ArithmeticException
        || t instanceof UnsupportedOperationException);
  }

  /** The cause in one line: its message, or its class when it has none. */
  public static String describe(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /** {@code i} as the {@code timestamptz} parameter the telemetry queries take (UTC). */
  public static OffsetDateTime utc(Instant i) {
    return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  public Future<Void> close() {
    return pool.close();
  }
}
