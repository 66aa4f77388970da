package dev.updraft.ingester;

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
import org.apache.kafka.common.TopicPartition;

/**
 * Writes a {@link Batch} to PostgreSQL in one transaction: first the new offsets of its partitions, on
 * the condition that PostgreSQL still holds the offsets the batch starts from, then its rows with
 * set-based multi-row upserts ({@code INSERT ... SELECT FROM unnest(arrays) ON CONFLICT DO UPDATE}), one
 * statement per table, pipelined on one connection; the counter rows every writer shares go last.
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

  static final String OFFSETS_SQL =
      "WITH i AS (SELECT * FROM unnest($2::int[], $3::bigint[], $4::bigint[]) AS t(part, expected, next)),"
          + " u AS (UPDATE ingest_offsets o SET next_offset = i.next, updated_at = now() FROM i"
          + "   WHERE o.topic = $1 AND o.kafka_partition = i.part AND i.expected IS NOT NULL"
          + "   AND o.next_offset = i.expected RETURNING 1),"
          + " n AS (INSERT INTO ingest_offsets (topic, kafka_partition, next_offset)"
          + "   SELECT $1, part, next FROM i WHERE expected IS NULL ON CONFLICT DO NOTHING RETURNING 1)"
          + " SELECT (SELECT count(*) FROM u) + (SELECT count(*) FROM n) AS matched";

  /**
   * Upserts the device rows and returns how the devices moved between counting keys of
   * {@code device_counts} (update, platform, channel, source): an update copies the row's previous key
   * into its {@code prev_*} columns, so {@code RETURNING} gives old and new key without a second read of
   * the registry (a new device has no previous key); the moves are added up per key (devices whose key
   * did not change cancel out) and applied by {@link #COUNTS_SQL} at the end of the transaction.
   */
  static final String DEVICES_SQL =
      "WITH i AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
          + "   $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::text[], $14::text[],"
          + "   $15::text[], $16::boolean[], $17::int[], $18::text[], $19::text[], $20::text[], $21::text[], $22::bigint[],"
          + "   $23::text[])"
          + " AS t(app_id, client_id, platform, runtime_version, channel, current_update_id, embedded_update_id, source,"
          + "   first_ms, last_ms, check_ins, last_check_in_id, outcome, reason, branch, in_branch_rollout, rollout_bucket,"
          + "   served_update_id, served_group_id, failed_ids, fatal_error, fatal_ms, edge_id)),"
          + " up AS (INSERT INTO devices AS d (app_id, client_id, platform, runtime_version, channel, current_update_id,"
          + "     embedded_update_id, source, first_seen, last_seen, check_ins, last_check_in_id, outcome, reason, branch,"
          + "     in_branch_rollout, rollout_bucket, served_update_id, served_group_id, failed_update_ids, fatal_error,"
          + "     fatal_error_at, edge_id)"
          + "   SELECT app_id, client_id, platform, runtime_version, channel, current_update_id, embedded_update_id, source,"
          + "     to_timestamp(first_ms::float8 / 1000), to_timestamp(last_ms::float8 / 1000), check_ins, last_check_in_id, outcome,"
          + "     reason, branch, in_branch_rollout, rollout_bucket, served_update_id, served_group_id,"
          + "     coalesce(string_to_array(nullif(failed_ids, ''), ','), '{}'), fatal_error, to_timestamp(fatal_ms::float8 / 1000),"
          + "     edge_id"
          + "   FROM i"
          + "   ON CONFLICT (app_id, client_id) DO UPDATE SET"
          + "     prev_update_id = d.current_update_id, prev_platform = d.platform, prev_channel = d.channel,"
          + "     prev_source = d.source,"
          + "     platform = EXCLUDED.platform, runtime_version = EXCLUDED.runtime_version, channel = EXCLUDED.channel,"
          + "     current_update_id = EXCLUDED.current_update_id, embedded_update_id = EXCLUDED.embedded_update_id,"
          + "     source = EXCLUDED.source, first_seen = LEAST(d.first_seen, EXCLUDED.first_seen),"
          + "     last_seen = GREATEST(d.last_seen, EXCLUDED.last_seen), check_ins = d.check_ins + EXCLUDED.check_ins,"
          + "     last_check_in_id = EXCLUDED.last_check_in_id, outcome = EXCLUDED.outcome, reason = EXCLUDED.reason,"
          + "     branch = EXCLUDED.branch, in_branch_rollout = EXCLUDED.in_branch_rollout,"
          + "     rollout_bucket = EXCLUDED.rollout_bucket, served_update_id = EXCLUDED.served_update_id,"
          + "     served_group_id = EXCLUDED.served_group_id, failed_update_ids = EXCLUDED.failed_update_ids,"
          + "     fatal_error = coalesce(EXCLUDED.fatal_error, d.fatal_error),"
          + "     fatal_error_at = CASE WHEN EXCLUDED.fatal_error IS NULL THEN d.fatal_error_at ELSE EXCLUDED.fatal_error_at END,"
          + "     edge_id = EXCLUDED.edge_id"
          + "   RETURNING d.app_id, d.current_update_id, d.platform, d.channel, d.source, d.prev_update_id, d.prev_platform,"
          + "     d.prev_channel, d.prev_source),"
          + " delta AS (SELECT app_id, coalesce(current_update_id, '') AS update_id, platform,"
          + "     coalesce(channel, '') AS channel, source, 1 AS n FROM up"
          + "   UNION ALL SELECT app_id, coalesce(prev_update_id, ''), prev_platform, coalesce(prev_channel, ''), prev_source, -1"
          + "     FROM up WHERE prev_platform IS NOT NULL)"
          + " SELECT app_id, update_id, platform, channel, source, sum(n) FROM delta"
          + " GROUP BY app_id, update_id, platform, channel, source HAVING sum(n) <> 0";

  /** Adds the moves {@link #DEVICES_SQL} returned to the shared counters. */
  static final String COUNTS_SQL =
      "INSERT INTO device_counts AS c (app_id, update_id, platform, channel, source, devices)"
          + " SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])"
          + " ON CONFLICT (app_id, update_id, platform, channel, source) DO UPDATE SET devices = c.devices + EXCLUDED.devices";

  static final String HOURS_SQL =
      "INSERT INTO update_hourly AS h (app_id, update_id, hour, platform, channel, launches, embedded_launches,"
          + "   failure_reports, served)"
          + " SELECT app_id, update_id, to_timestamp(hour_ms::float8 / 1000), platform, channel, launches, embedded_launches,"
          + "   failure_reports, served"
          + " FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],"
          + "   $8::bigint[], $9::bigint[])"
          + " AS t(app_id, update_id, hour_ms, platform, channel, launches, embedded_launches, failure_reports, served)"
          + " ON CONFLICT (app_id, update_id, hour, platform, channel) DO UPDATE SET"
          + "   launches = h.launches + EXCLUDED.launches,"
          + "   embedded_launches = h.embedded_launches + EXCLUDED.embedded_launches,"
          + "   failure_reports = h.failure_reports + EXCLUDED.failure_reports,"
          + "   served = h.served + EXCLUDED.served";

  static final String FAILURES_SQL =
      "INSERT INTO update_failures AS f (app_id, update_id, client_id, platform, first_reported, last_reported, reports)"
          + " SELECT app_id, update_id, client_id, platform, to_timestamp(first_ms::float8 / 1000),"
          + "   to_timestamp(last_ms::float8 / 1000), reports"
          + " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])"
          + " AS t(app_id, update_id, client_id, platform, first_ms, last_ms, reports)"
          + " ON CONFLICT (app_id, update_id, client_id) DO UPDATE SET"
          + "   first_reported = LEAST(f.first_reported, EXCLUDED.first_reported),"
          + "   last_reported = GREATEST(f.last_reported, EXCLUDED.last_reported),"
          + "   reports = f.reports + EXCLUDED.reports";

  static final String RECEIPTS_SQL =
      "INSERT INTO update_receipts (app_id, update_id, client_id, platform, first_served)"
          + " SELECT app_id, update_id, client_id, platform, to_timestamp(first_ms::float8 / 1000)"
          + " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])"
          + " AS t(app_id, update_id, client_id, platform, first_ms)"
          // a device's check-ins come in offset order, so the first receipt written is the first served:
          // DO NOTHING (no row lock, no WAL) for the many repeats
          + " ON CONFLICT (app_id, update_id, client_id) DO NOTHING";

  static final String REJECTS_SQL =
      "INSERT INTO ingest_rejects (topic, kafka_partition, record_offset, error, value_excerpt)"
          + " SELECT $1, part, record_offset, error, excerpt"
          + " FROM unnest($2::int[], $3::bigint[], $4::text[], $5::text[]) AS t(part, record_offset, error, excerpt)"
          + " ON CONFLICT DO NOTHING";

  static final String LOAD_OFFSETS_SQL =
      "SELECT kafka_partition, next_offset FROM ingest_offsets WHERE topic = $1 AND kafka_partition = ANY($2::int[])";

  private final Pool pool;
  private final String topic;

  BatchWriter(Pool pool, String topic) {
    this.pool = pool;
    this.topic = topic;
  }

  /**
   * Writes {@code batch} in one transaction.
   *
   * @return the number of device rows written; failed with {@link StaleBatchException} when PostgreSQL's
   *     offsets are not where the batch starts (nothing written), or with the database error
   */
  Future<Integer> write(Batch batch) {
    Tuple offsets = offsetsTuple(batch);
    Tuple devices = batch.devices().isEmpty() ? null : devicesTuple(batch);
    Tuple hours = batch.hours().isEmpty() ? null : hoursTuple(batch);
    Tuple failures = batch.failures().isEmpty() ? null : failuresTuple(batch);
    Tuple receipts = batch.receipts().isEmpty() ? null : receiptsTuple(batch);
    Tuple rejects = batch.rejects().isEmpty() ? null : rejectsTuple(batch);
    int expectedPartitions = batch.ranges().size();
    int deviceRows = batch.devices().size();
    return pool.withTransaction(
        conn -> {
          // Pipelined: sent together, the offset check is looked at once all have run. The rows every
          // writer shares (hourly and device counters) come last, right before the commit, so that
          // concurrent writers (other consumers, other instances) wait on each other's row locks for
          // milliseconds, not for a whole batch; they are taken in key order, so never in a cycle.
          Future<RowSet<Row>> offsetCheck = conn.preparedQuery(OFFSETS_SQL).execute(offsets);
          Future<RowSet<Row>> moves =
              devices == null ? Future.succeededFuture(null) : conn.preparedQuery(DEVICES_SQL).execute(devices);
          List<Future<?>> all = new ArrayList<>(8);
          all.add(offsetCheck);
          all.add(moves);
          execute(conn, FAILURES_SQL, failures, all);
          execute(conn, RECEIPTS_SQL, receipts, all);
          execute(conn, REJECTS_SQL, rejects, all);
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
                    List<Future<?>> shared = new ArrayList<>(2);
                    execute(conn, HOURS_SQL, hours, shared);
                    execute(conn, COUNTS_SQL, countsTuple(moves.result()), shared);
                    return Future.all(shared).map(d -> deviceRows);
                  });
        });
  }

  /** The device moves as counter deltas in key order; null when there are none. */
  private static Tuple countsTuple(RowSet<Row> moves) {
    if (moves == null || moves.size() == 0) {
      return null;
    }
    TreeMap<String, Object[]> sorted = new TreeMap<>();
    for (Row r : moves) {
      Object[] v = {r.getString(0), r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5)};
      sorted.put(v[0] + "\u0000" + v[1] + "\u0000" + v[2] + "\u0000" + v[3] + "\u0000" + v[4], v);
    }
    int n = sorted.size();
    String[][] keys = new String[5][n];
    Long[] delta = new Long[n];
    int i = 0;
    for (Object[] v : sorted.values()) {
      for (int k = 0; k < 5; k++) {
        keys[k][i] = (String) v[k];
      }
      delta[i++] = (Long) v[5];
    }
    return Tuple.tuple(List.of(keys[0], keys[1], keys[2], keys[3], keys[4], delta));
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

  private static Tuple devicesTuple(Batch b) {
    int n = b.devices().size();
    String[] app = new String[n];
    String[] client = new String[n];
    String[] platform = new String[n];
    String[] runtime = new String[n];
    String[] channel = new String[n];
    String[] current = new String[n];
    String[] embedded = new String[n];
    String[] source = new String[n];
    Long[] first = new Long[n];
    Long[] last = new Long[n];
    Long[] count = new Long[n];
    String[] checkInId = new String[n];
    String[] outcome = new String[n];
    String[] reason = new String[n];
    String[] branch = new String[n];
    Boolean[] inBranchRollout = new Boolean[n];
    Integer[] bucket = new Integer[n];
    String[] servedUpdate = new String[n];
    String[] servedGroup = new String[n];
    String[] failed = new String[n];
    String[] fatal = new String[n];
    Long[] fatalAt = new Long[n];
    String[] edge = new String[n];
    int i = 0;
    for (Map.Entry<Batch.DeviceKey, Batch.Device> e : b.devices().entrySet()) {
      Batch.Device d = e.getValue();
      var c = d.latest;
      app[i] = e.getKey().appId();
      client[i] = e.getKey().clientId();
      platform[i] = c.platform();
      runtime[i] = c.runtimeVersion();
      channel[i] = c.channel();
      current[i] = c.currentUpdateId();
      embedded[i] = c.embeddedUpdateId();
      source[i] = Batch.source(c);
      first[i] = d.first;
      last[i] = d.last;
      count[i] = d.checkIns;
      checkInId[i] = c.checkInId();
      outcome[i] = c.outcome();
      reason[i] = c.reason();
      branch[i] = c.branch();
      inBranchRollout[i] = c.inBranchRollout();
      bucket[i] = c.rolloutBucket();
      servedUpdate[i] = c.servedUpdateId();
      servedGroup[i] = c.servedGroupId();
      // ids are UUID-like: no commas (any comma would only split an id, never break the statement)
      failed[i] = c.failedUpdateIds().isEmpty() ? null : String.join(",", c.failedUpdateIds());
      fatal[i] = d.fatalError;
      fatalAt[i] = d.fatalError == null ? null : d.fatalErrorAt;
      edge[i] = c.edgeId();
      i++;
    }
    return Tuple.tuple(
        List.of(app, client, platform, runtime, channel, current, embedded, source, first, last, count, checkInId,
            outcome, reason, branch, inBranchRollout, bucket, servedUpdate, servedGroup, failed, fatal, fatalAt, edge));
  }

  private static Tuple hoursTuple(Batch b) {
    // key order, so that concurrent ingesters lock shared counter rows in the same order (no deadlock)
    TreeMap<Batch.HourKey, Batch.Hour> sorted = new TreeMap<>(b.hours());
    int n = sorted.size();
    String[] app = new String[n];
    String[] update = new String[n];
    Long[] hour = new Long[n];
    String[] platform = new String[n];
    String[] channel = new String[n];
    Long[] launches = new Long[n];
    Long[] embedded = new Long[n];
    Long[] failures = new Long[n];
    Long[] served = new Long[n];
    int i = 0;
    for (Map.Entry<Batch.HourKey, Batch.Hour> e : sorted.entrySet()) {
      Batch.HourKey k = e.getKey();
      Batch.Hour h = e.getValue();
      app[i] = k.appId();
      update[i] = k.updateId();
      hour[i] = k.hourMillis();
      platform[i] = k.platform();
      channel[i] = k.channel();
      launches[i] = h.launches;
      embedded[i] = h.embeddedLaunches;
      failures[i] = h.failureReports;
      served[i] = h.served;
      i++;
    }
    return Tuple.tuple(List.of(app, update, hour, platform, channel, launches, embedded, failures, served));
  }

  private static Tuple failuresTuple(Batch b) {
    int n = b.failures().size();
    String[] app = new String[n];
    String[] update = new String[n];
    String[] client = new String[n];
    String[] platform = new String[n];
    Long[] first = new Long[n];
    Long[] last = new Long[n];
    Long[] reports = new Long[n];
    int i = 0;
    for (Map.Entry<Batch.DeviceUpdateKey, Batch.Failure> e : b.failures().entrySet()) {
      app[i] = e.getKey().appId();
      update[i] = e.getKey().updateId();
      client[i] = e.getKey().clientId();
      platform[i] = e.getValue().platform;
      first[i] = e.getValue().first;
      last[i] = e.getValue().last;
      reports[i] = e.getValue().reports;
      i++;
    }
    return Tuple.tuple(List.of(app, update, client, platform, first, last, reports));
  }

  private static Tuple receiptsTuple(Batch b) {
    int n = b.receipts().size();
    String[] app = new String[n];
    String[] update = new String[n];
    String[] client = new String[n];
    String[] platform = new String[n];
    Long[] first = new Long[n];
    int i = 0;
    for (Map.Entry<Batch.DeviceUpdateKey, Batch.Receipt> e : b.receipts().entrySet()) {
      app[i] = e.getKey().appId();
      update[i] = e.getKey().updateId();
      client[i] = e.getKey().clientId();
      platform[i] = e.getValue().platform;
      first[i] = e.getValue().first;
      i++;
    }
    return Tuple.tuple(List.of(app, update, client, platform, first));
  }

  private Tuple rejectsTuple(Batch b) {
    int n = b.rejects().size();
    Integer[] part = new Integer[n];
    Long[] offset = new Long[n];
    String[] error = new String[n];
    String[] excerpt = new String[n];
    int i = 0;
    for (Batch.Reject r : b.rejects()) {
      part[i] = r.partition().partition();
      offset[i] = r.offset();
      error[i] = r.error();
      excerpt[i] = r.excerpt();
      i++;
    }
    return Tuple.of(topic, part, offset, error, excerpt);
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
