package dev.updraft.ingester;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes telemetry rows older than their table's retention ({@link RetentionConfig}), off the consumers'
 * hot path: a thread of its own, a PostgreSQL connection of its own, a run shortly after start and then
 * {@code --postgres-retention-interval} after the end of each run.
 *
 * <p><b>One instance at a time.</b> A run first takes a session advisory lock ({@link #LOCK_KEY}); when
 * another ingester holds it, the run is skipped (counted, logged). The lock goes with the run's
 * connection, so a crashed ingester never leaves it taken.
 *
 * <p><b>Bounded batches.</b> Each table is worked through in transactions of at most
 * {@code --postgres-retention-batch} rows ({@link RetainedTable.Walk} says how each finds them), until a
 * batch finds nothing more. A device's row leaves {@code devices} in the same transaction that takes it out
 * of {@code device_counts} (the counters move in key order, as {@link BatchWriter}'s do, so the two never
 * wait on each other in a cycle): the counts stay those of the devices that remain. Deleted receipts and
 * failures leave the device-set counters ({@link SetCounts}) in the same transaction, likewise.
 *
 * <p><b>A check-in racing the deletion of its device.</b> Victims are locked {@code FOR UPDATE SKIP
 * LOCKED} and their age checked again on the locked version: a device an ingester is writing right now is
 * skipped (it is not old any more once that commits); a device whose deletion is not committed yet makes
 * the ingester's upsert wait, and once the deletion commits the upsert inserts it as a new device, counted
 * once under its new key. Either way {@code device_counts} equals a recount of {@code devices}.
 *
 * <p>Thread-safe: {@link #runOnce} is serialised; {@link #close} may be called from any thread.
 */
final class RetentionJob {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionJob.class);

  /** Key of the advisory lock: the ASCII of "retentio", recognisable in {@code pg_locks}. */
  static final long LOCK_KEY = 0x72_65_74_65_6e_74_69_6fL;
  /** The first run waits this long after start, so that the consumers take their partitions first. */
  static final Duration FIRST_RUN_DELAY = Duration.ofSeconds(5);
  private static final long PROGRESS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** Longer than the server-side statement timeout: a stuck statement fails there first. */
  private static final long AWAIT_SECONDS = 70;

  /** Deletes the {@code device_counts} rows of the given keys that count no device. */
  static final String EMPTY_COUNTS_SQL =
      "DELETE FROM device_counts c USING unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])"
          + " AS k(app_id, update_id, platform, channel, source)"
          + " WHERE c.app_id = k.app_id AND c.update_id = k.update_id AND c.platform = k.platform"
          + " AND c.channel = k.channel AND c.source = k.source AND c.devices = 0";

  /** How a run ended. */
  enum Outcome {
    /** Every retained table was worked through. */
    COMPLETED,
    /** Another ingester held the retention lock. */
    SKIPPED,
    /** PostgreSQL failed; what was committed stays, the next run starts over. */
    FAILED,
    /** The ingester is closing; the run ended after its current batch. */
    STOPPED
  }

  /** What one run did: rows deleted and batches committed per table, and why it ended. */
  record Run(Outcome outcome, Map<RetainedTable, Long> deleted, Map<RetainedTable, Integer> batches, long millis, String error) {
    Run {
      deleted = Collections.unmodifiableMap(new EnumMap<>(deleted));
      batches = Collections.unmodifiableMap(new EnumMap<>(batches));
    }

    long deleted(RetainedTable t) {
      return deleted.getOrDefault(t, 0L);
    }

    int batches(RetainedTable t) {
      return batches.getOrDefault(t, 0);
    }
  }

  /** Test hook: called on the running thread before each batch's commit. */
  interface Hook {
    Hook NONE = (table, batch) -> {};

    void beforeCommit(RetainedTable table, int batch);
  }

  /** A batch's result: rows deleted, and for a key walk the last key of its range (null: the walk is done). */
  private record Step(long deleted, Tuple rangeEnd, boolean more) {}

  private final Vertx vertx;
  private final PgConnectOptions options;
  private final RetentionConfig config;
  private final RetentionMetrics metrics;
  private final Clock clock;
  private final Hook hook;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final CompletableFuture<Void> exited = new CompletableFuture<>();
  private final Thread thread;
  private volatile boolean stopping;

  RetentionJob(Vertx vertx, PgConnectOptions options, RetentionConfig config, RetentionMetrics metrics, Clock clock, Hook hook) {
    this.vertx = vertx;
    this.options = TelemetryIngester.sessionOptions(options, "updraft-retention"); // the writers' session settings
    this.config = config;
    this.metrics = metrics;
    this.clock = clock;
    this.hook = hook;
    this.thread = new Thread(this::loop, "updraft-retention");
    this.thread.setDaemon(true);
  }

  /** Starts the schedule: a first run after {@link #FIRST_RUN_DELAY}, then one every interval. */
  void start() {
    thread.start();
  }

  /** Stops the schedule; a running batch commits first. Completes once the job's thread has ended. */
  Future<Void> close() {
    stopping = true;
    stop.countDown();
    if (!thread.isAlive() && !exited.isDone()) {
      exited.complete(null); // never started
    }
    return Future.fromCompletionStage(exited);
  }

  private void loop() {
    try {
      long waitMs = FIRST_RUN_DELAY.toMillis();
      while (!stop.await(waitMs, TimeUnit.MILLISECONDS)) {
        runOnce();
        waitMs = config.interval().toMillis();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      exited.complete(null);
    }
  }

  /** One run now (the schedule calls it; tests too). Never throws: a failure is its {@link Outcome}. */
  synchronized Run runOnce() {
    long t0 = System.nanoTime();
    Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    Map<RetainedTable, Long> deleted = new EnumMap<>(RetainedTable.class);
    Map<RetainedTable, Integer> batches = new EnumMap<>(RetainedTable.class);
    PgConnection conn = null;
    Outcome outcome = Outcome.COMPLETED;
    String error = null;
    try {
      conn = await(PgConnection.connect(vertx, options));
      RowSet<Row> lock = await(conn.preparedQuery("SELECT pg_try_advisory_lock($1)").execute(Tuple.of(LOCK_KEY)));
      if (!lock.iterator().next().getBoolean(0)) {
        outcome = Outcome.SKIPPED;
      } else {
        for (RetainedTable t : RetainedTable.values()) {
          Duration keep = config.keep(t);
          if (keep == null) {
            continue;
          }
          if (stopping) {
            outcome = Outcome.STOPPED;
            break;
          }
          pass(conn, t, keep, now, deleted, batches);
        }
        if (stopping) {
          outcome = Outcome.STOPPED;
        }
      }
    } catch (Exception e) {
      outcome = Outcome.FAILED;
      error = e.toString();
    } finally {
      if (conn != null) {
        // closing the session also releases the advisory lock
        awaitQuietly(conn.close());
      }
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    Run run = new Run(outcome, deleted, batches, millis, error);
    record(run);
    return run;
  }

  private void record(Run run) {
    if (run.outcome() == Outcome.COMPLETED) {
      metrics.duration.record(run.millis(), TimeUnit.MILLISECONDS);
      metrics.lastCompletedSeconds.set(clock.instant().getEpochSecond());
    }
    Counter counter = switch (run.outcome()) {
      case COMPLETED -> metrics.completed;
      case SKIPPED -> metrics.skipped;
      case FAILED -> metrics.failed;
      case STOPPED -> null; // the process is closing: neither a success nor a failure
    };
    if (counter != null) {
      counter.increment();
    }
    String message = switch (run.outcome()) {
      case COMPLETED -> "retention run completed in " + run.millis() + " ms: " + summary(run);
      case SKIPPED -> "retention run skipped: another ingester holds the retention lock (advisory lock " + LOCK_KEY + ")";
      case FAILED -> "retention run failed after " + run.millis() + " ms: " + run.error() + "; committed so far: "
          + summary(run) + "; the next run, in " + RetentionConfig.format(config.interval()) + ", starts over";
      case STOPPED -> "retention run stopped by close after " + run.millis() + " ms: " + summary(run);
    };
    if (run.outcome() == Outcome.FAILED) {
      LOG.warn(message);
    } else {
      LOG.info(message);
    }
  }

  private static String summary(Run run) {
    StringJoiner j = new StringJoiner(", ");
    for (Map.Entry<RetainedTable, Long> e : run.deleted().entrySet()) {
      j.add(e.getKey().table + " deleted=" + e.getValue() + " batches=" + run.batches(e.getKey()));
    }
    return j.length() == 0 ? "nothing retained" : j.toString();
  }

  /** Works through one table, batch by batch, until a batch finds nothing more (or the job stops). */
  private void pass(SqlConnection conn, RetainedTable t, Duration keep, Instant now, Map<RetainedTable, Long> deleted,
      Map<RetainedTable, Integer> batches) throws Exception {
    Instant cutoff = now.minus(keep).minus(t.span());
    OffsetDateTime cut = OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC);
    long t0 = System.nanoTime();
    long progressAt = t0 + PROGRESS_EVERY_NANOS;
    long total = 0;
    int n = 0;
    Tuple after = null;
    deleted.put(t, 0L);
    batches.put(t, 0);
    while (!stopping) {
      Step step = batch(conn, t, cut, after, n + 1);
      if (step == null) {
        break;
      }
      n++;
      total += step.deleted();
      deleted.put(t, total);
      batches.put(t, n);
      metrics.batch(t, step.deleted());
      if (!step.more()) {
        break;
      }
      after = step.rangeEnd();
      if (System.nanoTime() - progressAt >= 0) {
        progressAt = System.nanoTime() + PROGRESS_EVERY_NANOS;
        LOG.info("retention: {}: deleting rows older than {}: deleted={} batches={} so far, {} s", t.table, cutoff, total, n,
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
      }
    }
    LOG.info("retention: {}: rows older than {} ({}): deleted={} batches={} in {} ms", t.table, cutoff,
        RetentionConfig.format(keep), total, n, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  /**
   * One transaction of {@code t}'s walk.
   *
   * @param after the last key of the previous batch's range (key walk; null for the first)
   * @return null when the key walk has passed the last row
   */
  private Step batch(SqlConnection conn, RetainedTable t, OffsetDateTime cutoff, Tuple after, int number) throws Exception {
    Transaction tx = await(conn.begin());
    try {
      Step step = switch (t.walk) {
        case KEY_RANGE -> keyRange(conn, t, cutoff, after);
        case TIME_INDEX -> timeIndex(conn, t, cutoff);
      };
      if (step == null) {
        await(tx.commit());
        return null;
      }
      hook.beforeCommit(t, number);
      await(tx.commit());
      return step;
    } catch (Exception | Error e) {
      awaitQuietly(tx.rollback());
      throw e;
    }
  }

  private Step keyRange(SqlConnection conn, RetainedTable t, OffsetDateTime cutoff, Tuple after) throws Exception {
    Tuple rangeParams = after == null ? Tuple.tuple() : copy(after, Tuple.tuple());
    rangeParams.addInteger(config.batchSize());
    RowSet<Row> end = await(conn.preparedQuery(after == null ? t.rangeEndFirstSql : t.rangeEndSql).execute(rangeParams));
    if (end.size() == 0) {
      return null;
    }
    Row last = end.iterator().next();
    Tuple rangeEnd = Tuple.tuple();
    for (int i = 0; i < t.keys.size(); i++) {
      rangeEnd.addValue(last.getValue(i));
    }
    Tuple params = after == null ? Tuple.tuple() : copy(after, Tuple.tuple());
    copy(rangeEnd, params).addValue(cutoff);
    long deleted = delete(conn, t, after == null ? t.deleteFirstSql : t.deleteSql, params);
    return new Step(deleted, rangeEnd, true);
  }

  private Step timeIndex(SqlConnection conn, RetainedTable t, OffsetDateTime cutoff) throws Exception {
    long deleted = delete(conn, t, t.deleteSql, Tuple.of(cutoff, config.batchSize()));
    // fewer than a batch: nothing older is left (but rows being written now, left for the next run)
    return new Step(deleted, null, deleted >= config.batchSize());
  }

  /** Runs a delete statement; for the registry, moves the devices out of {@code device_counts} too. */
  private static long delete(SqlConnection conn, RetainedTable t, String sql, Tuple params) throws Exception {
    RowSet<Row> rows = await(conn.preparedQuery(sql).execute(params));
    if (t.countsPairs) {
      return deletePairs(conn, t, rows);
    }
    if (!t.countsDevices) {
      return rows.iterator().next().getLong(0);
    }
    long deleted = 0;
    for (Row r : rows) {
      deleted -= r.getLong(5);
    }
    Tuple moves = BatchWriter.countsTuple(rows);
    if (moves != null) {
      await(conn.preparedQuery(BatchWriter.COUNTS_SQL).execute(moves));
      // a key no device is on any more leaves the table (an ingester's upsert that races this re-creates it)
      await(conn.preparedQuery(EMPTY_COUNTS_SQL).execute(
          Tuple.of(moves.getValue(0), moves.getValue(1), moves.getValue(2), moves.getValue(3), moves.getValue(4))));
    }
    return deleted;
  }

  /**
   * Takes the deleted receipts or failures out of {@link SetCounts}: the pairs' other rows are looked up
   * by a statement of its own, after the delete, so that it sees every pair an ingester committed before.
   */
  private static long deletePairs(SqlConnection conn, RetainedTable t, RowSet<Row> gone) throws Exception {
    int n = gone.size();
    if (n == 0) {
      return 0;
    }
    boolean receipts = t == RetainedTable.RECEIPTS;
    String[] apps = new String[n];
    String[] updates = new String[n];
    String[] clients = new String[n];
    String[] platforms = new String[n];
    Long[] minutes = new Long[n];
    int i = 0;
    for (Row r : gone) {
      apps[i] = r.getString(0);
      updates[i] = r.getString(1);
      clients[i] = r.getString(2);
      platforms[i] = r.getString(3);
      minutes[i] = receipts ? r.getLong(4) : null;
      i++;
    }
    SetCounts counts = new SetCounts();
    if (receipts) {
      counts.receipts(await(conn.preparedQuery(SetCounts.RECEIPT_PAIRS_SQL)
          .execute(Tuple.of(apps, updates, clients, platforms, minutes))), -1);
    } else {
      counts.failures(await(conn.preparedQuery(SetCounts.FAILURE_PAIRS_SQL)
          .execute(Tuple.of(apps, updates, clients, platforms))), -1);
    }
    await(counts.apply(conn, true));
    return n;
  }

  private static Tuple copy(Tuple from, Tuple to) {
    for (int i = 0; i < from.size(); i++) {
      to.addValue(from.getValue(i));
    }
    return to;
  }

  private static <T> T await(Future<T> f) throws Exception {
    try {
      return f.toCompletionStage().toCompletableFuture().get(AWAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof Exception ? (Exception) c : e;
    }
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      f.toCompletionStage().toCompletableFuture().get(AWAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception ignored) {
      // the connection is gone: PostgreSQL rolls back and releases the lock by itself
    }
  }
}
