package dev.updraft.controlplane.guard;

import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.events.EventPayload;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * The guard on crashes (docs/errors.md): the devices an edge served one of the rollout's updates within the window
 * ({@code update_receipts}) that then reported a fatal error of it, over OTLP ({@code error_reports.fatal}: log severity
 * FATAL or {@code exception.escaped}, whatever its error group, new in the update or not) or with the
 * {@code Expo-Fatal-Error} header of a manifest request running it ({@code update_crashes}, written by the ingester:
 * the request's current update, not the embedded one, and no recent failed update listed, those being failures), the
 * report received after the serve; each client id once however it reported, at most {@code maxPerAddress} devices per
 * address bucket (of the client's reports, the smallest bucket). It fires when the devices served are at least the
 * guard's minimum and the crashing share is above its maximum. Thread-safe; reads only.
 */
final class CrashGuard {
  static final String SQL =
      "SELECT coalesce(sum(CASE WHEN x.bucket IS NULL THEN x.n ELSE least(x.n, $4) END), 0)::bigint AS devices FROM ("
          + " SELECT d.bucket, count(*) AS n FROM ("
          + "   SELECT c.client_id, min(c.bucket) AS bucket FROM ("
          + "     SELECT e.client_id, e.address_bucket AS bucket FROM error_reports e"
          + "       JOIN update_receipts r ON r.app_id = e.app_id AND r.update_id = e.update_id AND r.client_id = e.client_id"
          + "       WHERE e.app_id = $1 AND e.update_id = ANY($2::text[]) AND e.fatal AND r.first_served >= $3 AND e.received_at > r.first_served"
          + "     UNION ALL SELECT k.client_id, k.address_bucket FROM update_crashes k"
          + "       JOIN update_receipts r ON r.app_id = k.app_id AND r.update_id = k.update_id AND r.client_id = k.client_id"
          + "       WHERE k.app_id = $1 AND k.update_id = ANY($2::text[]) AND r.first_served >= $3 AND k.last_reported > r.first_served) c"
          + "   GROUP BY c.client_id) d"
          + " GROUP BY d.bucket) x";

  private final Pool pool;
  private final int maxPerAddress;

  CrashGuard(Pool pool, int maxPerAddress) {
    this.pool = pool;
    this.maxPerAddress = maxPerAddress;
  }

  /** {@code before} when it fires; else a firing verdict when the crashing share is above the maximum, or {@code before}. */
  Future<GuardVerdict> evaluate(String appId, List<String> ids, GuardVerdict before) {
    EventPayload.RolloutGuard guard = before.guard();
    if (before.fire()) {
      return Future.succeededFuture(before);
    }
    return pool.preparedQuery(SQL).execute(Tuple.of(appId, ids.toArray(new String[0]), TelemetryDb.utc(before.windowStart()), (long) maxPerAddress))
        .map(rows -> {
          long received = before.total().receivedDevices();
          long devices = rows.iterator().next().getLong("devices");
          double rate = received == 0 ? 0 : 100.0 * devices / received;
          if (!(received > 0 && received >= guard.minDevices() && rate > guard.maxFailureRatePercent())) {
            return before;
          }
          String reason = String.format(Locale.ROOT,
              "guard fired: crashes: %d of %d devices (%.1f %%) that received the rollout's updates since %s reported a fatal error of them"
                  + " (OTLP or Expo-Fatal-Error); the guard allows at most %.1f %% among at least %d devices within %d s",
              devices, received, rate, before.windowStart().truncatedTo(ChronoUnit.SECONDS), guard.maxFailureRatePercent(), guard.minDevices(),
              guard.windowSeconds());
          GuardCheck trigger = new GuardCheck(null, received, devices, rate, true);
          return new GuardVerdict(true, reason, guard, before.asOf(), before.windowStart(), before.total(), before.perUpdate(), trigger);
        });
  }
}
