package dev.updraft.ingester.history;

import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.AppDeleted;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.ChannelEvents.ChannelDeleted;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventHandler;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import dev.updraft.ingester.history.AuditSummaries.Prior;
import dev.updraft.ingester.history.HistoryRows.AppPosition;
import dev.updraft.ingester.history.HistoryWriter.Rec;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

/**
 * The history's fold of the log into its group rows ({@code history_groups}) and the app's key ring, as the log's
 * {@link EventHandler}: what each event type does to them, and what its audit summary needs from before
 * ({@link Prior}). Used by one {@link HistoryWriter} batch, on its connection, one event at a time
 * ({@link #at} then {@link #dispatch}); not thread-safe.
 */
final class GroupRows implements EventHandler<Future<Prior>> {
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

  private final SqlConnection conn;
  private int written;
  /** The event's app position and record, set by {@link #at} before each dispatch. */
  private AppPosition pos;
  private Rec rec;

  GroupRows(SqlConnection conn) {
    this.conn = conn;
  }

  /** Group rows written so far. */
  int rows() {
    return written;
  }

  /** This fold for the next event: of the app at {@code pos}, read from {@code rec}. */
  GroupRows at(AppPosition pos, Rec rec) {
    this.pos = pos;
    this.rec = rec;
    return this;
  }

  private Tuple key(EventEnvelope e) {
    return Tuple.of(e.appId(), HistoryRows.utc(pos.createdAt));
  }

  @Override
  public Future<Prior> updatePublished(EventEnvelope e, UpdatePublished p) {
    return insert(pos, e, p.group(), rec);
  }

  @Override
  public Future<Prior> rolledBackToEmbedded(EventEnvelope e, RolledBackToEmbedded p) {
    return insert(pos, e, p.group(), rec);
  }

  @Override
  public Future<Prior> rolloutChanged(EventEnvelope e, RolloutChanged p) {
    return rolloutChange(key(e), e, p);
  }

  @Override
  public Future<Prior> rolloutFinished(EventEnvelope e, RolloutFinished p) {
    return status(key(e), e, p.groupId(), HistoryRows.FINISHED, null);
  }

  @Override
  public Future<Prior> rolloutReverted(EventEnvelope e, RolloutReverted p) {
    AppPosition at = pos;
    Rec r = rec;
    UpdateGroup rep = p.replacement();
    Future<Prior> f = status(key(e), e, p.groupId(), HistoryRows.REVERTED, rep == null ? null : rep.groupId());
    return rep == null ? f : f.compose(x -> insert(at, e, rep, r));
  }

  @Override
  public Future<Prior> updatesDeleted(EventEnvelope e, UpdatesDeleted p) {
    return count(DELETE_GROUPS_SQL, key(e).addArrayOfString(p.groupIds().toArray(new String[0])), e);
  }

  @Override
  public Future<Prior> branchDeleted(EventEnvelope e, BranchDeleted p) {
    return count(DELETE_BRANCH_SQL, key(e).addString(p.branch()), e);
  }

  @Override
  public Future<Prior> updatePinned(EventEnvelope e, UpdatePinned p) {
    return update(PIN_SQL, key(e).addString(p.groupId()).addBoolean(p.pinned()));
  }

  @Override
  public Future<Prior> appDeleted(EventEnvelope e, AppDeleted p) {
    pos.deleted = true;
    return update(DELETE_APP_SQL, key(e).addOffsetDateTime(HistoryRows.utc(e.occurredAt())).addLong(e.sequence()));
  }

  @Override
  public Future<Prior> signingKeyRegistered(EventEnvelope e, SigningKeyRegistered p) {
    return Future.succeededFuture(new Prior(null, 0, HistoryRows.registerKey(pos, p)));
  }

  @Override
  public Future<Prior> signingKeyRetired(EventEnvelope e, SigningKeyRetired p) {
    pos.keyIds.remove(p.keyId());
    return Future.succeededFuture(Prior.NONE);
  }

  // ---------------------------------------------------------------- no group row, no key: the audit row only

  @Override
  public Future<Prior> appCreated(EventEnvelope e, AppCreated p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> tokenIssued(EventEnvelope e, TokenIssued p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> tokenRevoked(EventEnvelope e, TokenRevoked p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> channelMapped(EventEnvelope e, ChannelMapped p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> manifestsRenewed(EventEnvelope e, ManifestsRenewed p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> launchAssetStored(EventEnvelope e, LaunchAssetStored p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> patchesComputed(EventEnvelope e, PatchesComputed p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> buildRegistered(EventEnvelope e, BuildRegistered p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> appUpdated(EventEnvelope e, AppUpdated p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> channelDeleted(EventEnvelope e, ChannelDeleted p) {
    return Future.succeededFuture(Prior.NONE);
  }

  @Override
  public Future<Prior> retentionSet(EventEnvelope e, RetentionSet p) {
    return Future.succeededFuture(Prior.NONE);
  }

  private Future<Prior> insert(AppPosition pos, EventEnvelope e, UpdateGroup g, Rec r) {
    return conn.preparedQuery(GROUP_SQL).execute(HistoryRows.group(pos, e, g, r.partition(), r.offset()).tuple())
        .map(rows -> {
          written += rows.rowCount();
          return Prior.NONE;
        });
  }

  private Future<Prior> update(String sql, Tuple params) {
    return conn.preparedQuery(sql).execute(params).map(rows -> {
      written += rows.rowCount();
      return Prior.NONE;
    });
  }

  private Future<Prior> count(String sql, Tuple params, EventEnvelope e) {
    params.addOffsetDateTime(HistoryRows.utc(e.occurredAt())).addLong(e.sequence());
    return conn.preparedQuery(sql).execute(params).map(rows -> {
      written += rows.rowCount();
      return new Prior(null, rows.rowCount(), false);
    });
  }

  private Future<Prior> rolloutChange(Tuple key, EventEnvelope e, RolloutChanged c) {
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
