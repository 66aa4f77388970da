package dev.updraft.controlplane.history;

import dev.updraft.common.PostgresTls;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.RolloutState;
import dev.updraft.events.EventCodec;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads of the history projection the ingester writes to PostgreSQL ({@code history_audit},
 * {@code history_groups}, {@code history_apps}; db-schema V6): the audit log, and the update groups the
 * control plane no longer holds. Rows are of the app's current incarnation: the one created at the app's
 * {@code createdAt} (an app id deleted and created again does not show the old app's rows).
 *
 * <p>The projection follows the log a little behind: an audit read first waits (up to
 * {@link #CATCH_UP_WAIT}) until the projection has reached the app's last sequence, so that a caller sees
 * the events of its own commands, then answers with what is there. Failures that mean PostgreSQL cannot be
 * used now fail with a 503 {@link CommandException} ({@code history-unavailable}) naming where it was
 * looked for; nothing here touches the publishing path. Thread-safe.
 */
public final class HistoryReads {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryReads.class);

  /** The longest an audit read waits for the projection to reach the app's last sequence. */
  public static final Duration CATCH_UP_WAIT = Duration.ofSeconds(3);
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final long POLL_MS = 50;

  static final String POSITION_SQL = "SELECT app_created_at, last_sequence FROM history_apps WHERE app_id = $1";

  static final String AUDIT_SQL =
      "SELECT sequence, event_id, type, occurred_at, actor, summary FROM history_audit"
          + " WHERE app_id = $1 AND app_created_at = $2 AND sequence < $3 ORDER BY sequence DESC LIMIT $4";

  private static final String COLUMNS =
      "SELECT group_id, sequence, published_at, actor, group_json, rollout_id, rollout_percentage, rollout_control_group_id,"
          + " rollout_status, rollout_started_at, rollout_changed_at, guard_max_failure_rate_percent, guard_min_devices,"
          + " guard_window_seconds, reverted_by, pinned FROM history_groups WHERE app_id = $1 AND app_created_at = $2"
          + " AND deleted_at IS NULL";

  static final String GROUP_SQL = COLUMNS + " AND group_id = $3";
  static final String GROUPS_SQL = COLUMNS + " AND sequence < $3 ORDER BY sequence DESC LIMIT $4";
  static final String GROUPS_OF_BRANCH_SQL = COLUMNS + " AND sequence < $3 AND branch = $5 ORDER BY sequence DESC LIMIT $4";
  static final String GROUPS_OF_RUNTIME_SQL = COLUMNS + " AND sequence < $3 AND runtime_version = $5 ORDER BY sequence DESC LIMIT $4";
  static final String GROUPS_OF_LINE_SQL =
      COLUMNS + " AND sequence < $3 AND branch = $5 AND runtime_version = $6 ORDER BY sequence DESC LIMIT $4";

  /** A page of the audit log, newest first; {@code nextBefore} null on the last page. */
  public record AuditPage(List<AuditEntry> items, Long nextBefore) {}

  private final Vertx vertx;
  private final TelemetryDb db;
  private final Counter unavailable;

  private HistoryReads(Vertx vertx, TelemetryDb db, MeterRegistry meters) {
    this.vertx = vertx;
    this.db = db;
    this.unavailable =
        Counter.builder("updraft.control.history.unavailable")
            .description("audit and group-history reads that found PostgreSQL unusable (answered 503, or groups from memory only)")
            .register(meters);
  }

  /** Reads on {@code postgresUrl}; nothing is connected yet. */
  public static HistoryReads create(Vertx vertx, String postgresUrl, PostgresTls tls, MeterRegistry meters) {
    return new HistoryReads(vertx, TelemetryDb.create(vertx, postgresUrl, tls, TIMEOUT, "history"), meters);
  }

  /**
   * The audit page below {@code before} (null: from the newest), after waiting for the projection to reach
   * {@code lastSequence} of the app created at {@code createdAt}.
   */
  public Future<AuditPage> audit(String appId, Instant createdAt, long lastSequence, Long before, int limit) {
    return guarded(() -> awaitCaughtUp(appId, createdAt, lastSequence, true)
        .compose(v -> db.pool().preparedQuery(AUDIT_SQL)
            .execute(Tuple.of(appId, utc(createdAt), before == null ? Long.MAX_VALUE : before, limit + 1)))
        .map(rows -> {
          List<AuditEntry> items = new ArrayList<>();
          for (Row r : rows) {
            OffsetDateTime at = r.getOffsetDateTime(3);
            items.add(new AuditEntry(r.getLong(0), r.getString(1), r.getString(2), at == null ? null : at.toInstant(), r.getString(4),
                r.getString(5)));
          }
          Long next = null;
          if (items.size() > limit) {
            items = items.subList(0, limit);
            next = items.get(limit - 1).sequence();
          }
          return new AuditPage(List.copyOf(items), next);
        }));
  }

  /** How far the projection is for an app: whether it knows the app's incarnation, and its last sequence there. */
  record Position(boolean known, long lastSequence) {}

  private Future<Position> position(String appId, Instant createdAt) {
    return guarded(() -> db.pool().preparedQuery(POSITION_SQL).execute(Tuple.of(appId)).map(rows -> {
      if (rows.size() == 0) {
        return new Position(false, 0);
      }
      Row r = rows.iterator().next();
      return sameInstant(r.getOffsetDateTime(0).toInstant(), createdAt) ? new Position(true, r.getLong(1)) : new Position(false, 0);
    }));
  }

  /**
   * Whether the projection has reached {@code lastSequence} of the app's current incarnation, waiting for it
   * up to {@link #CATCH_UP_WAIT} (so that a caller reads the effects of its own commands); when it does not
   * know the incarnation at all (no ingester ran since the app was created) only with {@code evenIfUnknown}.
   */
  public Future<Boolean> awaitCaughtUp(String appId, Instant createdAt, long lastSequence, boolean evenIfUnknown) {
    return awaitCaughtUp(appId, createdAt, lastSequence, evenIfUnknown, System.nanoTime() + CATCH_UP_WAIT.toNanos());
  }

  private Future<Boolean> awaitCaughtUp(String appId, Instant createdAt, long lastSequence, boolean evenIfUnknown, long deadlineNanos) {
    return position(appId, createdAt).compose(p -> {
      boolean done = p.known() && p.lastSequence() >= lastSequence;
      if (done || (!p.known() && !evenIfUnknown) || System.nanoTime() - deadlineNanos >= 0) {
        return Future.succeededFuture(done);
      }
      Promise<Boolean> next = Promise.promise();
      vertx.setTimer(POLL_MS, t -> awaitCaughtUp(appId, createdAt, lastSequence, evenIfUnknown, deadlineNanos).onComplete(next));
      return next.future();
    });
  }

  /**
   * Stored groups not deleted, newest first, with a sequence below {@code before} (null: any), on
   * {@code branch} and {@code runtimeVersion} when given; at most {@code limit}.
   */
  public Future<List<StoredGroup>> groups(
      String appId, Instant createdAt, String branch, String runtimeVersion, Long before, int limit) {
    Tuple t = Tuple.of(appId, utc(createdAt), before == null ? Long.MAX_VALUE : before, limit);
    String sql;
    if (branch != null && runtimeVersion != null) {
      sql = GROUPS_OF_LINE_SQL;
      t.addString(branch).addString(runtimeVersion);
    } else if (branch != null) {
      sql = GROUPS_OF_BRANCH_SQL;
      t.addString(branch);
    } else if (runtimeVersion != null) {
      sql = GROUPS_OF_RUNTIME_SQL;
      t.addString(runtimeVersion);
    } else {
      sql = GROUPS_SQL;
    }
    return guarded(() -> db.pool().preparedQuery(sql).execute(t).map(rows -> {
      List<StoredGroup> out = new ArrayList<>();
      for (Row r : rows) {
        StoredGroup g = group(appId, r);
        if (g != null) {
          out.add(g);
        }
      }
      return out;
    }));
  }

  /** The stored group {@code groupId} not deleted, or null. */
  public Future<StoredGroup> group(String appId, Instant createdAt, String groupId) {
    return guarded(() -> db.pool().preparedQuery(GROUP_SQL).execute(Tuple.of(appId, utc(createdAt), groupId))
        .map(rows -> rows.size() == 0 ? null : group(appId, rows.iterator().next())));
  }

  /** Counts and logs a read that found PostgreSQL unusable (the caller answers without it). */
  public void degraded(Throwable t) {
    unavailable.increment();
    LOG.debug("group history from memory only: {}", t.getMessage());
  }

  private static StoredGroup group(String appId, Row r) {
    UpdateGroup g = EventCodec.group(r.getString(4));
    if (g == null) {
      LOG.warn("history_groups row of appId={} groupId={} has a group_json this build cannot read; not shown", appId, r.getString(0));
      return null;
    }
    RolloutState rollout = null;
    if (r.getString(5) != null) {
      Double max = r.getDouble(11);
      RolloutGuard guard = max == null ? null : new RolloutGuard(max, r.getInteger(12), r.getLong(13));
      rollout = new RolloutState(r.getString(5), r.getInteger(6), r.getString(7), guard, r.getString(8), instant(r.getOffsetDateTime(9)),
          instant(r.getOffsetDateTime(10)));
    }
    GroupState state = new GroupState(g, r.getLong(1), instant(r.getOffsetDateTime(2)), r.getString(3), Map.of(), rollout, r.getString(14));
    return new StoredGroup(state, r.getBoolean(15));
  }

  /**
   * {@code query}, bounded by the timeout; a failure that means PostgreSQL cannot be used is a 503
   * {@code history-unavailable} (a bug in a query stays what it is: a 500).
   */
  private <T> Future<T> guarded(Supplier<Future<T>> query) {
    return db.ready().compose(v -> db.bounded(query.get())).andThen(ar -> {
      if (ar.succeeded()) {
        db.available();
      }
    }).recover(t -> {
      if (t instanceof CommandException || !TelemetryDb.isOutage(t)) {
        return Future.failedFuture(t);
      }
      db.unavailable(t);
      unavailable.increment();
      return Future.failedFuture(new CommandException(503, "history-unavailable",
          "the audit log and older update groups are read from PostgreSQL at " + db.where() + " (--postgres-url, written by the"
              + " ingester), which cannot be used now: " + TelemetryDb.describe(t) + "; retry later (publishing is not affected)"));
    });
  }

  /** Equal to PostgreSQL's microsecond precision. */
  static boolean sameInstant(Instant stored, Instant t) {
    return Math.abs(Duration.between(stored, t).toNanos()) < 1_000;
  }

  private static Instant instant(OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }

  static OffsetDateTime utc(Instant t) {
    return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
  }

  /** The telemetry database these reads use (shared with the key-in-use check). */
  public TelemetryDb db() {
    return db;
  }

  public Future<Void> close() {
    return db.close();
  }
}
