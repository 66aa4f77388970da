package dev.updraft.ingester;

import dev.updraft.common.loop.LoopClock;
import io.vertx.pgclient.PgException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one consumer loop can use PostgreSQL now. A failed write or offset read starts an outage:
 * consumption pauses ({@code updraft.ingest.paused}), the next attempt waits an exponential backoff
 * (100 ms to 5 s), and the outage is logged once, then every tenth attempt. The first success after it
 * resumes consumption.
 *
 * <p>Not thread-safe: the loop's consumer thread only.
 */
final class PgHealth {
  private static final Logger LOG = LoggerFactory.getLogger(PgHealth.class);

  static final long MIN_BACKOFF_MS = 100;
  static final long MAX_BACKOFF_MS = 5_000;

  private final IngestMetrics.Loop gauges;
  private final LoopClock clock;
  /** The last PostgreSQL operation failed; consumption is paused until one succeeds. */
  private boolean trouble;
  private int attempts;
  private long retryAtNanos;
  private long troubleSinceNanos;

  PgHealth(IngestMetrics.Loop gauges, LoopClock clock) {
    this.gauges = gauges;
    this.clock = clock;
    // nanoTime has an arbitrary origin (it may be negative): deadlines start from now, never from 0
    this.retryAtNanos = clock.nanoTime();
  }

  /** The backoff before attempt {@code attempt + 1} (1-based): 100 ms doubling up to 5 s. */
  static long backoffMs(int attempt) {
    return Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(attempt - 1, 16));
  }

  /** PostgreSQL failed {@code what}: counts the attempt, sets the next retry time, pauses, logs. */
  void failed(String what, Throwable err) {
    attempts++;
    long backoff = backoffMs(attempts);
    retryAtNanos = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoff);
    String detail = err instanceof PgException ? "SQLSTATE " + ((PgException) err).getSqlState() + " " + err.getMessage() : err.toString();
    if (!trouble) {
      trouble = true;
      troubleSinceNanos = clock.nanoTime();
      gauges.paused.set(1);
      LOG.warn("PostgreSQL failed {}: {}; consumption paused, retrying in {} ms", what, detail, backoff);
    } else if (attempts % 10 == 0) {
      LOG.warn("PostgreSQL still failing after {} attempts ({} s): {}: {}", attempts,
          TimeUnit.NANOSECONDS.toSeconds(clock.nanoTime() - troubleSinceNanos), what, detail);
    } else {
      LOG.debug("PostgreSQL failed again (attempt {}): {}: {}", attempts, what, detail);
    }
    if (err instanceof PgException && isDataError(((PgException) err).getSqlState())) {
      LOG.error("PostgreSQL refused the data itself ({}): after --ingest-max-attempts the records it refuses alone are set aside"
          + " in ingest_dead_letters (SQLSTATE class 22, 23, 54); a schema error (class 42) keeps failing until an operator fixes it",
          detail);
    }
  }

  private static boolean isDataError(String sqlState) {
    return sqlState != null && (sqlState.startsWith("22") || sqlState.startsWith("23") || sqlState.startsWith("42"));
  }

  /** An operation succeeded: the next failure backs off from the start again. */
  void succeeded() {
    attempts = 0;
  }

  /** Ends the outage (when there is one): consumption resumes. Call only when no failed batch is held. */
  void recovered() {
    if (trouble) {
      trouble = false;
      gauges.paused.set(0);
      LOG.info("PostgreSQL writable again after {} ms; consumption resumed",
          TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - troubleSinceNanos));
    }
  }

  boolean inTrouble() {
    return trouble;
  }

  /** Whether the backoff since the last failure has passed at {@code nowNanos}. */
  boolean retryDue(long nowNanos) {
    return nowNanos - retryAtNanos >= 0;
  }

  /** Milliseconds until the next attempt is due (negative when it is). */
  long millisUntilRetry() {
    return TimeUnit.NANOSECONDS.toMillis(retryAtNanos - clock.nanoTime());
  }
}
