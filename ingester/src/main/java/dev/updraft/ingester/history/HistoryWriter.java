package dev.updraft.ingester.history;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import dev.updraft.ingester.history.AuditSummaries.Prior;
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

  static final String GROUP_SQL =
      "INSERT INTO history_groups (app_id, app_created_at, group_id, sequence, kind, branch, runtime_version, message,"
          + " republished_from, platforms, update_ids, published_at, actor, group_json, rollout_id, rollout_percentage,"
          + " rollout_control_group_id, rollout_status, rollout_started_at, rollout_changed_at, guard_max_failure_rate_percent,"
          + " guard_min_devices, guard_window_seconds, kafka_partition, kafka_offset)"
          + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,"
          + " $24, $25) ON CONFLICT DO NOTHING";

  private static final String ONE_GROUP = " WHERE app_id = $1 AND app_created_at = $2 AND group_id = $3";

  static final String ROLLOUT_BEFORE_SQL =
      "SELECT rollout_percentage, guard_max_failure_rate_percent, guard_min_devices, guard_window_seconds FROM history_groups"
          + ONE_GROUP + " AND rollout_id IS NOT NULL";

  static final String ROLLOUT_CHANGED_SQL =
      "UPDATE history_groups SET rollout_percentage = $4, guard_max_failure_rate_percent = $5, guard_min_devices = $6,"
          + " guard_window_seconds = $7, rollout_changed_at = $8" + ONE_GROUP + " AND rollout_id IS NOT NULL";

  static final String ROLLOUT_STATUS_SQL =
      "UPDATE history_groups SET rollout_status = $4, rollout_changed_at = $5, reverted_by = coalesce($6, reverted_by)"
          + ONE_GROUP + " AND rollout_id IS NOT NULL";

  static final String PIN_SQL = "UPDATE history_groups SET pinned = $4" + ONE_GROUP + " AND deleted_at IS NULL";

  static final String DELETE_GROUPS_SQL =
      "UPDATE history_groups SET deleted_at = $4, deleted_sequence = $5, pinned = false"
          + " WHERE app_id = $1 AND app_created_at = $2 AND group_id = ANY($3::text[]) AND deleted_at IS NULL";

  static final String DELETE_BRANCH_SQL =
      "UPDATE history_groups SET deleted_at = $4, deleted_sequence = $5, pinned = false"
          + " WHERE app_id = $1 AND app_created_at = $2 AND branch = $3 AND deleted_at IS NULL";

  static final String DELETE_APP_SQL =
      "UPDATE history_groups SET deleted_at = $3, deleted_sequence = $4, pinned = false"
          + " WHERE app_id = $1 AND app_created_at = $2 AND deleted_at IS NULL";

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
    private int groupRows;
    private int skipped;

    Batch(SqlConnection conn, Map<String, AppPosition> apps) {
      this.conn = conn;
      this.apps = apps;
    }

    Future<Written> run(List<Rec> records) {
      Future<Void> f = Future.succeededFuture();
      for (Rec r : records) {
        f = f.compose(v -> apply(r));
      }
      return f.compose(v -> saveAudit()).compose(v -> saveApps()).map(v -> new Written(audit.size(), groupRows, skipped));
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
      return groups(at, e, r).map(prior -> {
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

    /** What the event does to the group rows (and the app's key ring), and what its summary needs from before. */
    private Future<Prior> groups(AppPosition pos, EventEnvelope e, Rec r) {
      EventPayload p = e.payload();
      Tuple key = Tuple.of(e.appId(), HistoryRows.utc(pos.createdAt));
      return switch (e.type()) {
        case UPDATE_PUBLISHED -> insert(pos, e, ((UpdatePublished) p).group(), r);
        case ROLLED_BACK_TO_EMBEDDED -> insert(pos, e, ((RolledBackToEmbedded) p).group(), r);
        case ROLLOUT_CHANGED -> rolloutChanged(key, e, (RolloutChanged) p);
        case ROLLOUT_FINISHED -> status(key, e, ((RolloutFinished) p).groupId(), HistoryRows.FINISHED, null);
        case ROLLOUT_REVERTED -> {
          RolloutReverted rr = (RolloutReverted) p;
          UpdateGroup rep = rr.replacement();
          Future<Prior> f = status(key, e, rr.groupId(), HistoryRows.REVERTED, rep == null ? null : rep.groupId());
          yield rep == null ? f : f.compose(x -> insert(pos, e, rep, r));
        }
        case UPDATES_DELETED ->
            count(DELETE_GROUPS_SQL, key.addArrayOfString(((UpdatesDeleted) p).groupIds().toArray(new String[0])), e);
        case BRANCH_DELETED -> count(DELETE_BRANCH_SQL, key.addString(((BranchDeleted) p).branch()), e);
        case UPDATE_PINNED -> {
          UpdatePinned u = (UpdatePinned) p;
          yield update(PIN_SQL, key.addString(u.groupId()).addBoolean(u.pinned()));
        }
        case APP_DELETED -> {
          pos.deleted = true;
          yield update(DELETE_APP_SQL, key.addOffsetDateTime(HistoryRows.utc(e.occurredAt())).addLong(e.sequence()));
        }
        case SIGNING_KEY_REGISTERED ->
            Future.succeededFuture(new Prior(null, 0, HistoryRows.registerKey(pos, (SigningKeyRegistered) p)));
        case SIGNING_KEY_RETIRED -> {
          pos.keyIds.remove(((SigningKeyRetired) p).keyId());
          yield Future.succeededFuture(Prior.NONE);
        }
        case APP_CREATED, TOKEN_ISSUED, TOKEN_REVOKED, CHANNEL_MAPPED, MANIFESTS_RENEWED, LAUNCH_ASSET_STORED, PATCHES_COMPUTED,
            BUILD_REGISTERED, APP_UPDATED, CHANNEL_DELETED, RETENTION_SET -> Future.succeededFuture(Prior.NONE);
      };
    }

    private Future<Prior> insert(AppPosition pos, EventEnvelope e, UpdateGroup g, Rec r) {
      return conn.preparedQuery(GROUP_SQL).execute(HistoryRows.group(pos, e, g, r.partition(), r.offset()).tuple())
          .map(rows -> {
            groupRows += rows.rowCount();
            return Prior.NONE;
          });
    }

    private Future<Prior> update(String sql, Tuple params) {
      return conn.preparedQuery(sql).execute(params).map(rows -> {
        groupRows += rows.rowCount();
        return Prior.NONE;
      });
    }

    private Future<Prior> count(String sql, Tuple params, EventEnvelope e) {
      params.addOffsetDateTime(HistoryRows.utc(e.occurredAt())).addLong(e.sequence());
      return conn.preparedQuery(sql).execute(params).map(rows -> {
        groupRows += rows.rowCount();
        return new Prior(null, rows.rowCount(), false);
      });
    }

    private Future<Prior> rolloutChanged(Tuple key, EventEnvelope e, RolloutChanged c) {
      Tuple one = Tuple.of(key.getValue(0), key.getValue(1), c.groupId());
      return conn.preparedQuery(ROLLOUT_BEFORE_SQL).execute(one).compose(rows -> {
        AuditSummaries.RolloutBefore before = null;
        if (rows.size() > 0) {
          Row row = rows.iterator().next();
          Double max = row.getDouble(1);
          RolloutGuard guard = max == null ? null : new RolloutGuard(max, row.getInteger(2), row.getLong(3));
          before = new AuditSummaries.RolloutBefore(row.getInteger(0), guard);
        }
        RolloutGuard g = c.guard();
        Tuple set = Tuple.of(key.getValue(0), key.getValue(1), c.groupId(), c.percentage())
            .addDouble(g == null ? null : g.maxFailureRatePercent()).addInteger(g == null ? null : g.minDevices())
            .addLong(g == null ? null : g.windowSeconds()).addOffsetDateTime(HistoryRows.utc(e.occurredAt()));
        AuditSummaries.RolloutBefore b = before;
        return update(ROLLOUT_CHANGED_SQL, set).map(x -> new Prior(b, 0, false));
      });
    }

    private Future<Prior> status(Tuple key, EventEnvelope e, String groupId, String status, String revertedBy) {
      return update(ROLLOUT_STATUS_SQL, Tuple.of(key.getValue(0), key.getValue(1), groupId, status)
          .addOffsetDateTime(HistoryRows.utc(e.occurredAt())).addString(revertedBy));
    }
  }
}
