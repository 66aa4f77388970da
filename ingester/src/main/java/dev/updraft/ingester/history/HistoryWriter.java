package dev.updraft.ingester.history;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventEnvelope;
import dev.updraft.ingester.history.HistoryRows.AppPosition;
import dev.updraft.ingester.history.HistoryRows.AuditRow;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one poll's events to PostgreSQL in one transaction: first the new offsets of their partitions,
 * on the condition that PostgreSQL still holds the offsets the batch starts from (else
 * {@link StaleBatchException}, nothing written), then the positions of their apps ({@code history_apps},
 * locked), then each event in log order (group rows; the reads a summary needs), then the audit rows and
 * the apps' new positions. An event at or below its app's last sequence is skipped, so a replay changes
 * nothing even without the offset condition.
 *
 * <p>Thread-safe: each write runs on its own connection; the returned future completes on an event loop.
 */
final class HistoryWriter {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryWriter.class);

  /** Thrown (as a failed future) when PostgreSQL's offsets are not where the batch starts. */
  static final class StaleBatchException extends RuntimeException {
    StaleBatchException(String message) {
      super(message, null, false, false);
    }
  }

  /** One consumed record: decoded, with where it is in the log. */
  record Rec(int partition, long offset, Decoded decoded) {}

  /** Per partition: the stored offset the batch starts from (null: no row yet) and the one after its last record. */
  record Range(Long expected, long next) {}

  /** What a committed batch wrote. */
  record Written(int auditRows, int groupRows, int skipped) {}

  static final String OFFSETS_SQL =
      "WITH i AS (SELECT * FROM unnest($2::int[], $3::bigint[], $4::bigint[]) AS t(part, expected, next)),"
          + " u AS (UPDATE history_offsets o SET next_offset = i.next, updated_at = now() FROM i"
          + "   WHERE o.topic = $1 AND o.kafka_partition = i.part AND i.expected IS NOT NULL"
          + "   AND o.next_offset = i.expected RETURNING 1),"
          + " n AS (INSERT INTO history_offsets (topic, kafka_partition, next_offset)"
          + "   SELECT $1, part, next FROM i WHERE expected IS NULL ON CONFLICT DO NOTHING RETURNING 1)"
          + " SELECT (SELECT count(*) FROM u) + (SELECT count(*) FROM n) AS matched";

  static final String LOAD_OFFSETS_SQL =
      "SELECT kafka_partition, next_offset FROM history_offsets WHERE topic = $1 AND kafka_partition = ANY($2::int[])";

  static final String APPS_SQL =
      "SELECT app_id, app_created_at, last_sequence, deleted, key_ids FROM history_apps WHERE app_id = ANY($1::text[]) FOR UPDATE";

  static final String SAVE_APP_SQL =
      "INSERT INTO history_apps (app_id, app_created_at, last_sequence, deleted, key_ids) VALUES ($1, $2, $3, $4, $5)"
          + " ON CONFLICT (app_id) DO UPDATE SET app_created_at = excluded.app_created_at, last_sequence = excluded.last_sequence,"
          + " deleted = excluded.deleted, key_ids = excluded.key_ids, updated_at = now()";

  static final String AUDIT_SQL =
      "INSERT INTO history_audit (app_id, app_created_at, sequence, event_id, type, occurred_at, actor, summary, kafka_partition,"
          + " kafka_offset) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING";

  private final Pool pool;
  private final String topic;

  HistoryWriter(Pool pool, String topic) {
    this.pool = pool;
    this.topic = topic;
  }

  /** Writes {@code records} (in log order per partition) with the offsets {@code ranges} in one transaction. */
  Future<Written> write(List<Rec> records, Map<Integer, Range> ranges) {
    Set<String> appIds = new LinkedHashSet<>();
    for (Rec r : records) {
      String app = appId(r.decoded());
      if (app != null) {
        appIds.add(app);
      }
    }
    return pool.withTransaction(conn ->
        conn.preparedQuery(OFFSETS_SQL).execute(offsetsTuple(ranges))
            .compose(rows -> {
              long matched = rows.iterator().next().getLong(0);
              if (matched != ranges.size()) {
                return Future.failedFuture(new StaleBatchException(
                    "offsets in PostgreSQL moved: topic=" + topic + " partitions=" + ranges.size() + " matched=" + matched
                        + " ranges=" + ranges));
              }
              return conn.preparedQuery(APPS_SQL).execute(Tuple.tuple().addArrayOfString(appIds.toArray(new String[0])));
            })
            .compose(rows -> new Batch(conn, positions(rows)).run(records)));
  }

  /** The stored next offsets of {@code partitions} (absent: no row). */
  Future<Map<Integer, Long>> loadOffsets(List<Integer> partitions) {
    return pool.preparedQuery(LOAD_OFFSETS_SQL)
        .execute(Tuple.tuple().addString(topic).addArrayOfInteger(partitions.toArray(new Integer[0])))
        .map(rows -> {
          Map<Integer, Long> m = new HashMap<>();
          for (Row r : rows) {
            m.put(r.getInteger(0), r.getLong(1));
          }
          return m;
        });
  }

  private static Map<String, AppPosition> positions(RowSet<Row> rows) {
    Map<String, AppPosition> out = new HashMap<>();
    for (Row r : rows) {
      String[] keys = r.getArrayOfStrings(4);
      out.put(r.getString(0), new AppPosition(r.getString(0), r.getOffsetDateTime(1).toInstant(), r.getLong(2), r.getBoolean(3),
          keys == null ? List.of() : Arrays.asList(keys)));
    }
    return out;
  }

  private static String appId(Decoded d) {
    if (d instanceof Decoded.Known) {
      return ((Decoded.Known) d).envelope().appId();
    }
    if (d instanceof Decoded.Unknown) {
      return ((Decoded.Unknown) d).appId();
    }
    return null;
  }

  private Tuple offsetsTuple(Map<Integer, Range> ranges) {
    int n = ranges.size();
    Integer[] part = new Integer[n];
    Long[] expected = new Long[n];
    Long[] next = new Long[n];
    int i = 0;
    for (Map.Entry<Integer, Range> e : ranges.entrySet()) {
      part[i] = e.getKey();
      expected[i] = e.getValue().expected();
      next[i] = e.getValue().next();
      i++;
    }
    return Tuple.of(topic, part, expected, next);
  }

  /** One batch's events applied in order on one connection of the transaction. */
  private static final class Batch {
    private final SqlConnection conn;
    private final Map<String, AppPosition> apps;
    private final List<Tuple> audit = new ArrayList<>();
    private final GroupRows groups;
    private int skipped;

    Batch(SqlConnection conn, Map<String, AppPosition> apps) {
      this.conn = conn;
      this.apps = apps;
      this.groups = new GroupRows(conn);
    }

    Future<Written> run(List<Rec> records) {
      Future<Void> f = Future.succeededFuture();
      for (Rec r : records) {
        f = f.compose(v -> apply(r));
      }
      return f.compose(v -> saveAudit()).compose(v -> saveApps()).map(v -> new Written(audit.size(), groups.rows(), skipped));
    }

    private Future<Void> saveAudit() {
      return audit.isEmpty() ? Future.succeededFuture() : conn.preparedQuery(AUDIT_SQL).executeBatch(audit).mapEmpty();
    }

    private Future<Void> saveApps() {
      List<Tuple> rows = new ArrayList<>();
      for (AppPosition p : apps.values()) {
        if (p.changed) {
          rows.add(Tuple.of(p.appId, HistoryRows.utc(p.createdAt), p.lastSequence, p.deleted, p.keyIds.toArray(new String[0])));
        }
      }
      return rows.isEmpty() ? Future.succeededFuture() : conn.preparedQuery(SAVE_APP_SQL).executeBatch(rows).mapEmpty();
    }

    private Future<Void> apply(Rec r) {
      Decoded d = r.decoded();
      if (d instanceof Decoded.Unknown) {
        Decoded.Unknown u = (Decoded.Unknown) d;
        AppPosition pos = apps.get(u.appId());
        if (HistoryRows.verdict(pos, u) != HistoryRows.Verdict.APPLY) {
          skipped++;
          return Future.succeededFuture();
        }
        audit.add(HistoryRows.audit(pos, u, r.partition(), r.offset()).tuple());
        advance(pos, u.sequence());
        return Future.succeededFuture();
      }
      if (!(d instanceof Decoded.Known)) {
        skipped++; // counted and logged by the loop
        return Future.succeededFuture();
      }
      EventEnvelope e = ((Decoded.Known) d).envelope();
      AppPosition pos = apps.get(e.appId());
      switch (HistoryRows.verdict(pos, e.type(), e.sequence())) {
        case CREATE:
          pos = new AppPosition(e.appId(), e.occurredAt(), 0, false, List.of());
          apps.put(e.appId(), pos);
          break;
        case APPLY:
          break;
        default:
          LOG.debug("history: skipping appId={} type={} sequence={} at partition={} offset={}", e.appId(), e.type().wireName(),
              e.sequence(), r.partition(), r.offset());
          skipped++;
          return Future.succeededFuture();
      }
      AppPosition at = pos;
      return groups.at(at, r).dispatch(e).map(prior -> {
        AuditRow row = HistoryRows.audit(at, e, prior, r.partition(), r.offset());
        audit.add(row.tuple());
        advance(at, e.sequence());
        return null;
      });
    }

    private static void advance(AppPosition pos, long sequence) {
      pos.lastSequence = sequence;
      pos.changed = true;
    }
  }
}
