package dev.updraft.controlplane.guard;

import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.events.EventPayload;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.Tuple;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * The guard on the errors apps report (docs/errors.md): the error group new in the rollout's updates (no report of it
 * on the control group's updates) reported by the most devices, counting only devices an edge served one of the
 * rollout's updates within the window ({@code update_receipts}) and whose report was received after that; each client
 * id once, and at most {@code maxPerAddress} devices per address bucket (of the client's reports, the smallest bucket).
 * It fires when the devices served ({@code received}, the failure check's) are at least the guard's minimum and that
 * group's devices are more than its maximum share. Thread-safe; reads only.
 */
final class ErrorGuard {
  /** Public-for-plans style: one statement, one snapshot. */
  static final String SQL =
      "SELECT x.group_key, min(g.error_type) AS error_type, min(g.top_frame) AS top_frame,"
          + " sum(CASE WHEN x.bucket IS NULL THEN x.n ELSE least(x.n, $5) END)::bigint AS devices FROM ("
          + "   SELECT d.group_key, d.bucket, count(*) AS n FROM ("
          + "     SELECT e.group_key, e.client_id, min(e.address_bucket) AS bucket FROM error_reports e"
          + "       JOIN update_receipts r ON r.app_id = e.app_id AND r.update_id = e.update_id AND r.client_id = e.client_id"
          + "       WHERE e.app_id = $1 AND e.update_id = ANY($2::text[]) AND r.first_served >= $3 AND e.received_at > r.first_served"
          + "         AND NOT EXISTS (SELECT 1 FROM error_reports p WHERE p.app_id = $1 AND p.group_key = e.group_key AND p.update_id = ANY($4::text[]))"
          + "       GROUP BY e.group_key, e.client_id) d"
          + "   GROUP BY d.group_key, d.bucket) x"
          + " JOIN error_groups g ON g.app_id = $1 AND g.group_key = x.group_key"
          + " GROUP BY x.group_key ORDER BY devices DESC, x.group_key LIMIT 1";

  private final Pool pool;
  private final int maxPerAddress;

  ErrorGuard(Pool pool, int maxPerAddress) {
    this.pool = pool;
    this.maxPerAddress = maxPerAddress;
  }

  /** {@code failures} when it fires; else the verdict of the worst new error group (which may fire), or {@code failures} when there is none. */
  Future<GuardVerdict> evaluate(String appId, List<String> ids, List<String> controlIds, GuardVerdict failures) {
    EventPayload.RolloutGuard guard = failures.guard();
    if (failures.fire()) {
      return Future.succeededFuture(failures);
    }
    return pool.preparedQuery(SQL).execute(Tuple.of(appId, ids.toArray(new String[0]), TelemetryDb.utc(failures.windowStart()),
        controlIds.toArray(new String[0]), (long) maxPerAddress)).map(rows -> {
          RowIterator<Row> it = rows.iterator();
          if (!it.hasNext()) {
            return failures;
          }
          Row r = it.next();
          long received = failures.total().receivedDevices();
          long devices = r.getLong("devices");
          double rate = received == 0 ? 0 : 100.0 * devices / received;
          boolean fire = received > 0 && received >= guard.minDevices() && rate > guard.maxFailureRatePercent();
          if (!fire) {
            return failures;
          }
          String group = r.getString("error_type") + (r.getString("top_frame").isEmpty() ? "" : " at " + r.getString("top_frame"));
          String reason = String.format(Locale.ROOT,
              "guard fired: error group %s (key %s), new in this update: %d of %d devices (%.1f %%) that received the rollout's updates since %s"
                  + " reported it; the guard allows at most %.1f %% among at least %d devices within %d s",
              group, r.getString("group_key"), devices, received, rate, failures.windowStart().truncatedTo(ChronoUnit.SECONDS),
              guard.maxFailureRatePercent(), guard.minDevices(), guard.windowSeconds());
          GuardCheck trigger = new GuardCheck(null, received, devices, rate, true);
          return new GuardVerdict(true, reason, guard, failures.asOf(), failures.windowStart(), failures.total(), failures.perUpdate(), trigger);
        });
  }
}
