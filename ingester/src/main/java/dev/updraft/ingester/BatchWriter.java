package dev.updraft.ingester;

import dev.updraft.ingester.funnel.FunnelKeys;
import dev.updraft.ingester.funnel.FunnelPlan;
import dev.updraft.ingester.funnel.FunnelRows;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes a {@link Batch} to PostgreSQL in one transaction: first the new offsets of its partitions, on
 * the condition that PostgreSQL still holds the offsets the batch starts from, then its rows with
 * set-based multi-row upserts ({@code INSERT ... SELECT FROM unnest(arrays) ON CONFLICT DO UPDATE}), one
 * statement per table, pipelined on one connection; the counter rows every writer shares go last (the
 * device-set counters of {@link SetCounts} from the pairs the failure and receipt statements inserted). The
 * row statements and their parameter arrays are generated from the tables of columns in {@link Tables}. The download
 * funnel's insert leaves out the rows the process knows written ({@link FunnelKeys}, shared by its writers): the
 * transaction reads the count of funnel deletions with the offsets and, when it is not the one those rows were learnt
 * under, sends them all; once it has committed, its rows are known.
 *
 * <p>The offset condition is what makes a write safe to retry and safe against another ingester: a
 * batch whose commit was in fact applied before its connection broke, or a batch of partitions another
 * instance took over and wrote meanwhile, finds other offsets in PostgreSQL and fails with
 * {@link StaleBatchException}, its whole transaction rolled back. Taking the offset rows first also locks
 * them, so two writers of one partition never interleave.
 *
 * <p>Thread-safe: {@link #write} builds its parameter arrays on the calling thread (the consumer's) and
 * returns a future completed on a Vert.x event loop.
 */
final class BatchWriter {

  /** Thrown (as a failed future) when PostgreSQL's offsets are not where the batch starts. */
  static final class StaleBatchException extends RuntimeException {
    StaleBatchException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Moves the offsets of the batch's partitions, on the condition that they are where the batch starts,
   * and returns how many did (written by hand: a conditional update, not an upsert of rows).
   */
  static final String OFFSETS_SQL =
      "WITH i AS (SELECT * FROM unnest($2::int[], $3::bigint[], $4::bigint[]) AS t(part, expected, next)),"
          + " u AS (UPDATE ingest_offsets o SET next_offset = i.next, updated_at = now() FROM i"
          + "   WHERE o.topic = $1 AND o.kafka_partition = i.part AND i.expected IS NOT NULL"
          + "   AND o.next_offset = i.expected RETURNING 1),"
          + " n AS (INSERT INTO ingest_offsets (topic, kafka_partition, next_offset)"
          + "   SELECT $1, part, next FROM i WHERE expected IS NULL ON CONFLICT DO NOTHING RETURNING 1)"
          + " SELECT (SELECT count(*) FROM u) + (SELECT count(*) FROM n) AS matched";

  /**
   * Upserts the device rows ({@link Tables#DEVICES}) and returns how the devices moved between counting
   * keys of {@code device_counts} (update, platform, channel, source): an update copies the row's previous
   * key into its {@code prev_*} columns, so {@code RETURNING} gives old and new key without a second read
   * of the registry (a new device has no previous key); only devices whose key changed (or that are new)
   * are added up per key, the others would cancel out, and the moves are applied by {@link #COUNTS_SQL} at
   * the end of the transaction.
   */
  static final String DEVICES_SQL =
      "WITH up AS (" + Tables.DEVICES.sql() + "),"
          + " moved AS (SELECT * FROM up WHERE prev_platform IS NULL"
          + "   OR (current_update_id, platform, channel, source)"
          + "     IS DISTINCT FROM (prev_update_id, prev_platform, prev_channel, prev_source)),"
          + " delta AS (SELECT app_id, coalesce(current_update_id, '') AS update_id, platform,"
          + "     coalesce(channel, '') AS channel, source, 1 AS n FROM moved"
          + "   UNION ALL SELECT app_id, coalesce(prev_update_id, ''), prev_platform, coalesce(prev_channel, ''), prev_source, -1"
          + "     FROM moved WHERE prev_platform IS NOT NULL)"
          + " SELECT app_id, update_id, platform, channel, source, sum(n) FROM delta"
          + " GROUP BY app_id, update_id, platform, channel, source HAVING sum(n) <> 0";

  /** Adds the moves {@link #DEVICES_SQL} returned to the shared counters. */
  static final String COUNTS_SQL = Tables.DEVICE_COUNTS.sql();

  static final String HOURS_SQL = Tables.UPDATE_HOURLY.sql();

  /** Upserts the failures, returning the pairs new to {@code update_failures} ({@link SetCounts}). */
  static final String FAILURES_SQL = SetCounts.INSERT_FAILURES_SQL;

  /** Inserts the receipts, returning the pairs new to {@code update_receipts} ({@link SetCounts}). */
  static final String RECEIPTS_SQL = SetCounts.INSERT_RECEIPTS_SQL;

  static final String REJECTS_SQL = Tables.INGEST_REJECTS.sql();
  static final String CRASHES_SQL = Tables.UPDATE_CRASHES.sql();

  /**
   * Inserts the batch's refused devices that are new to their refusal key and returns how many per key:
   * what {@code refusals.devices} grows by, so that it stays an exact count of distinct devices without
   * counting rows at query time.
   */
  static final String REFUSED_DEVICES_SQL =
      "WITH ins AS (" + Tables.REFUSED_DEVICES.sql() + ")"
          + " SELECT app_id, reason, runtime_version, embedded_update_id, count(*) FROM ins"
          + " GROUP BY app_id, reason, runtime_version, embedded_update_id";

  static final String REFUSALS_SQL = Tables.REFUSALS.sql();
  static final String PATCH_OUTCOMES_SQL = Tables.PATCH_OUTCOMES.sql();

  static final String LOAD_OFFSETS_SQL =
      "SELECT kafka_partition, next_offset FROM ingest_offsets WHERE topic = $1 AND kafka_partition = ANY($2::int[])";

  private final Pool pool;
  private final String topic;
  private final FunnelKeys funnelKeys;
  private final LongConsumer funnelSkipped;

  /** A writer that sends every funnel row (tests). */
  BatchWriter(Pool pool, String topic) {
    this(pool, topic, FunnelKeys.OFF, n -> {});
  }

  /**
   * @param funnelKeys the funnel keys the process knows written (shared by its writers)
   * @param funnelSkipped told, after each commit, how many funnel rows its insert left out
   */
  BatchWriter(Pool pool, String topic, FunnelKeys funnelKeys, LongConsumer funnelSkipped) {
    this.pool = pool;
    this.topic = topic;
    this.funnelKeys = funnelKeys;
    this.funnelSkipped = funnelSkipped;
  }

  /**
   * Writes {@code batch} in one transaction.
   *
   * @return the number of device rows written; failed with {@link StaleBatchException} when PostgreSQL's
   *     offsets are not where the batch starts (nothing written), or with the database error
   */
  Future<Integer> write(Batch batch) {
    Tuple offsets = offsetsTuple(batch);
    Tuple devices = batch.devices().isEmpty() ? null : Tables.DEVICES.tuple(batch.devices().values());
    // key order, so that concurrent ingesters lock shared counter rows in the same order (no deadlock)
    Tuple hours = batch.hours().isEmpty() ? null : Tables.UPDATE_HOURLY.tuple(new TreeMap<>(batch.hours()).values());
    Tuple failures = batch.failures().isEmpty() ? null : Tables.UPDATE_FAILURES.tuple(batch.failures().values());
    Tuple receipts = batch.receipts().isEmpty() ? null : Tables.UPDATE_RECEIPTS.tuple(batch.receipts().values());
    Tuple rejects = batch.rejects().isEmpty() ? null : Tables.INGEST_REJECTS.tuple(batch.rejects());
    Tuple crashes = batch.crashes().isEmpty() ? null : Tables.UPDATE_CRASHES.tuple(batch.crashes().values());
    List<Refusals.RefusedDevice> refusedList = batch.refusedDevices();
    Tuple refused = refusedList.isEmpty() ? null : Tables.REFUSED_DEVICES.tuple(refusedList);
    Tuple patches = batch.patches().tuple();
    FunnelPlan funnel = funnelKeys.plan(batch.funnel());
    int expectedPartitions = batch.ranges().size();
    int deviceRows = batch.devices().size();
    return pool.withTransaction(
        conn -> {
          // Pipelined: sent together, the offset check is looked at once all have run. The rows every
          // writer shares (hourly and device counters) come last, right before the commit, so that
          // concurrent writers (other consumers, other instances) wait on each other's row locks for
          // milliseconds, not for a whole batch; they are taken in key order, so never in a cycle.
          Future<RowSet<Row>> offsetCheck = conn.preparedQuery(OFFSETS_SQL).execute(offsets);
          // read before the funnel insert: a deletion committed before this read makes the insert send every row
          Future<RowSet<Row>> funnelEpoch = funnel == null || !funnel.readsEpoch()
              ? Future.succeededFuture(null) : conn.preparedQuery(FunnelKeys.EPOCH_SQL).execute();
          Future<RowSet<Row>> moves =
              devices == null ? Future.succeededFuture(null) : conn.preparedQuery(DEVICES_SQL).execute(devices);
          Future<RowSet<Row>> newlyRefused =
              refused == null ? Future.succeededFuture(null) : conn.preparedQuery(REFUSED_DEVICES_SQL).execute(refused);
          // failures before receipts: a pair new in this batch is counted once, by the receipts statement
          Future<RowSet<Row>> newFailures =
              failures == null ? Future.succeededFuture(null) : conn.preparedQuery(FAILURES_SQL).execute(failures);
          Future<RowSet<Row>> newReceipts =
              receipts == null ? Future.succeededFuture(null) : conn.preparedQuery(RECEIPTS_SQL).execute(receipts);
          List<Future<?>> all = new ArrayList<>(9);
          all.add(offsetCheck);
          all.add(funnelEpoch);
          all.add(moves);
          all.add(newlyRefused);
          all.add(newFailures);
          all.add(newReceipts);
          execute(conn, REJECTS_SQL, rejects, all);
          execute(conn, CRASHES_SQL, crashes, all);
          for (Batch.DeadLetter d : batch.deadLetters()) {
            all.add(conn.preparedQuery(DeadLetters.INSERT_SQL).execute(DeadLetters.tuple(d)));
          }
          return Future.all(all)
              .compose(
                  done -> {
                    long matched = offsetCheck.result().iterator().next().getLong(0);
                    if (matched != expectedPartitions) {
                      return Future.failedFuture(
                          new StaleBatchException(
                              "offsets in PostgreSQL moved: topic=" + topic + " partitions=" + expectedPartitions
                                  + " matched=" + matched + " ranges=" + describe(batch)));
                    }
                    List<Future<?>> shared = new ArrayList<>(4);
                    execute(conn, HOURS_SQL, hours, shared);
                    execute(conn, COUNTS_SQL, countsTuple(moves.result()), shared);
                    execute(conn, REFUSALS_SQL, refusalsTuple(batch, newlyRefused.result()), shared);
                    execute(conn, PATCH_OUTCOMES_SQL, patches, shared);
                    execute(conn, KeyAsks.SQL, batch.keyAsks().tuple(), shared);
                    execute(conn, FunnelRows.SQL, funnel == null ? null : funnel.tuple(funnelEpoch.result()), shared);
                    shared.add(new SetCounts().failures(newFailures.result(), 1).receipts(newReceipts.result(), 1)
                        .apply(conn, false));
                    return Future.all(shared).map(d -> deviceRows);
                  });
        })
        .onSuccess(committed -> {
          if (funnel != null) {
            funnelSkipped.accept(funnelKeys.written(funnel));
          }
        });
  }

  /**
   * The device moves as counter deltas in key order; null when there are none. Retention moves the
   * devices it deletes through this too, so that both take the counter rows' locks in the same order.
   */
  static Tuple countsTuple(RowSet<Row> moves) {
    if (moves == null || moves.size() == 0) {
      return null;
    }
    TreeMap<String, Tables.Move> sorted = new TreeMap<>();
    for (Row r : moves) {
      Tables.Move m =
          new Tables.Move(r.getString(0), r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5));
      sorted.put(
          m.appId() + "\u0000" + m.updateId() + "\u0000" + m.platform() + "\u0000" + m.channel() + "\u0000" + m.source(), m);
    }
    return Tables.DEVICE_COUNTS.tuple(sorted.values());
  }

  /**
   * The batch's refusal counters in key order, each with the devices {@link #REFUSED_DEVICES_SQL} found new
   * to its key; null when the batch refused nothing.
   */
  private static Tuple refusalsTuple(Batch batch, RowSet<Row> newDevices) {
    if (batch.refusals().isEmpty()) {
      return null;
    }
    if (newDevices != null) {
      for (Row r : newDevices) {
        Refusals.Refusal f = batch.refusals().get(new Refusals.RefusalKey(r.getString(0), r.getString(1), r.getString(2), r.getString(3)));
        if (f != null) {
          f.devices += r.getLong(4);
        }
      }
    }
    return Tables.REFUSALS.tuple(new TreeMap<>(batch.refusals()).values());
  }

  /** The stored next offsets of {@code partitions} (absent: no row). */
  Future<Map<Integer, Long>> loadOffsets(List<Integer> partitions) {
    return pool.preparedQuery(LOAD_OFFSETS_SQL)
        .execute(Tuple.tuple().addString(topic).addArrayOfInteger(partitions.toArray(new Integer[0])))
        .map(
            rows -> {
              Map<Integer, Long> m = new HashMap<>();
              for (Row r : rows) {
                m.put(r.getInteger(0), r.getLong(1));
              }
              return m;
            });
  }

  private static void execute(SqlConnection conn, String sql, Tuple params, List<Future<?>> all) {
    if (params != null) {
      all.add(conn.preparedQuery(sql).execute(params));
    }
  }

  private Tuple offsetsTuple(Batch b) {
    int n = b.ranges().size();
    Integer[] part = new Integer[n];
    Long[] expected = new Long[n];
    Long[] next = new Long[n];
    int i = 0;
    for (Map.Entry<TopicPartition, Batch.Range> e : b.ranges().entrySet()) {
      part[i] = e.getKey().partition();
      expected[i] = e.getValue().expectedRow ? e.getValue().expected : null;
      next[i] = e.getValue().next;
      i++;
    }
    return Tuple.of(topic, part, expected, next);
  }

  static String describe(Batch b) {
    StringBuilder sb = new StringBuilder("[");
    for (Map.Entry<TopicPartition, Batch.Range> e : b.ranges().entrySet()) {
      if (sb.length() > 1) {
        sb.append(", ");
      }
      Batch.Range r = e.getValue();
      sb.append(e.getKey().partition()).append(':')
          .append(r.expectedRow ? Long.toString(r.expected) : "none")
          .append("->").append(r.next);
    }
    return sb.append(']').toString();
  }
}
