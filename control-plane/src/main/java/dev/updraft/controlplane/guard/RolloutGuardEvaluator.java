package dev.updraft.controlplane.guard;

import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.events.EventPayload;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Decides whether a rollout's automatic-revert guard fires, from the telemetry in PostgreSQL.
 *
 * <p>Contract: the devices counted are those first served one of the rollout's updates at or after
 * {@code now - windowSeconds} ({@code update_receipts}); the failed ones are those of them that reported
 * that update in {@code expo-recent-failed-update-ids} in a check-in after the one that served it
 * ({@code update_failures.last_reported} later than the receipt), counting at most {@code maxFailuresPerAddress}
 * devices per address bucket (the keyed hash of the /24 or /48 of their first report, {@code CheckIn.addressBucket}):
 * a stranger's fresh client ids with made-up failure ids, all from one network, move the count by at most that. A check
 * <em>exceeds</em> the guard when at least {@code minDevices} devices (and at least one) received the
 * update(s) and the failure rate is strictly above {@code maxFailureRatePercent}. The guard fires when
 * the rollout's updates together exceed it, or any one of them does on its own (a crash on one platform
 * is not hidden by the other platform's healthy devices). Check-ins without a client id never count. The
 * rollout's numbers are the sums of its updates' (one per platform: a device is served one of them).
 *
 * <p>Cost: at most one counter row per minute of the window and platform, plus the receipts of the
 * window's first partial minute, plus the update's failure rows (one per failing device, kept
 * {@code --postgres-retention-failures}) each with its receipt; nothing grows with the healthy devices served.
 *
 * <p>The control plane calls {@link #evaluate} periodically for each rollout with a guard and, when it
 * fires, appends {@code rollout.reverted} with actor {@code guard} and {@link GuardVerdict#reason()}.
 * Thread-safe; reads only.
 */
public final class RolloutGuardEvaluator {
  /**
   * Received and failed devices per update within the window. Received: the whole minutes from the counters
   * the ingester keeps ({@code receipt_minutes}, one row per minute and platform), the window's first partial
   * minute ({@code $3} up to {@code $4}, the next whole minute) counted row by row over {@code update_receipts}'
   * time index. Failed: the devices of {@code update_failures} whose receipt is in the window and whose last
   * report came after that receipt (a report in the very request that served the update, or before it, does
   * not count), grouped by the address bucket of their first report and each bucket counted at most {@code $5}
   * (a NULL bucket, from edges older than check-in layout 3, is not capped). One statement, so one snapshot.
   * Public for the query-plan check ({@code InsightsPlansIT}, beside the insights' statements).
   */
  public static final String SQL =
      "SELECT update_id, sum(received)::bigint AS received, sum(failed)::bigint AS failed FROM ("
          + " SELECT m.update_id, m.received, 0::bigint AS failed FROM receipt_minutes m"
          + "   WHERE m.app_id = $1 AND m.update_id = ANY($2::text[]) AND m.minute >= $4"
          + " UNION ALL SELECT r.update_id, 1, 0 FROM update_receipts r"
          + "   WHERE r.app_id = $1 AND r.update_id = ANY($2::text[]) AND r.first_served >= $3 AND r.first_served < $4"
          + " UNION ALL SELECT b.update_id, 0, CASE WHEN b.bucket IS NULL THEN b.n ELSE least(b.n, $5) END FROM ("
          + "   SELECT f.update_id, f.address_bucket AS bucket, count(*) AS n FROM update_failures f"
          + "     JOIN update_receipts r ON r.app_id = f.app_id AND r.update_id = f.update_id AND r.client_id = f.client_id"
          + "     WHERE f.app_id = $1 AND f.update_id = ANY($2::text[]) AND r.first_served >= $3"
          + "       AND f.last_reported > r.first_served"
          + "     GROUP BY f.update_id, f.address_bucket) b"
          + ") x GROUP BY update_id";

  /** How many failing devices one address bucket counts for unless {@code --guard-max-failures-per-address} says otherwise. */
  public static final int DEFAULT_MAX_FAILURES_PER_ADDRESS = 10;

  private final Pool pool;
  private final int maxFailuresPerAddress;
  private final ErrorGuard errors;
  private final CrashGuard crashes;

  /** An evaluator reading through {@code pool} (the caller owns and closes it), with the default cap per address. */
  public RolloutGuardEvaluator(Pool pool) {
    this(pool, DEFAULT_MAX_FAILURES_PER_ADDRESS);
  }

  /**
   * An evaluator counting at most {@code maxFailuresPerAddress} failing devices per address bucket.
   *
   * @throws IllegalArgumentException when {@code maxFailuresPerAddress} is under 1
   */
  public RolloutGuardEvaluator(Pool pool, int maxFailuresPerAddress) {
    this.pool = Objects.requireNonNull(pool, "pool");
    if (maxFailuresPerAddress < 1) {
      throw new IllegalArgumentException("maxFailuresPerAddress must be at least 1: got " + maxFailuresPerAddress);
    }
    this.maxFailuresPerAddress = maxFailuresPerAddress;
    this.errors = new ErrorGuard(pool, maxFailuresPerAddress);
    this.crashes = new CrashGuard(pool, maxFailuresPerAddress);
  }

  /**
   * {@link #evaluate(String, List, EventPayload.RolloutGuard, Instant)}, then, when the failures hold, the errors the
   * apps reported ({@link ErrorGuard}): the guard also fires when the share of served devices that reported an error
   * group new in the rollout's updates (none of {@code controlUpdateIds} reported it) is above the guard's maximum;
   * then the crashes ({@link CrashGuard}): the share of served devices that reported a fatal error of the rollout's updates
   * (over OTLP or with {@code Expo-Fatal-Error}).
   */
  public Future<GuardVerdict> evaluate(String appId, List<String> updateIds, List<String> controlUpdateIds, EventPayload.RolloutGuard guard,
      Instant now) {
    List<String> ids = List.copyOf(updateIds);
    return evaluate(appId, ids, guard, now).compose(v -> errors.evaluate(appId, ids, controlUpdateIds, v))
        .compose(v -> crashes.evaluate(appId, ids, v));
  }

  /**
   * Evaluates {@code guard} for the updates of one rollout.
   *
   * @param updateIds the rollout's platform update ids
   * @param now the end of the window (usually {@code Instant.now()})
   * @throws IllegalArgumentException when the guard is malformed (rate outside 0..100, window not
   *     positive, negative minimum) or no update id is given
   */
  public Future<GuardVerdict> evaluate(String appId, List<String> updateIds, EventPayload.RolloutGuard guard, Instant now) {
    Objects.requireNonNull(appId, "appId");
    Objects.requireNonNull(guard, "guard");
    Objects.requireNonNull(now, "now");
    if (updateIds == null || updateIds.isEmpty()) {
      throw new IllegalArgumentException("a rollout guard needs the rollout's update ids: appId=" + appId);
    }
    if (!(guard.maxFailureRatePercent() >= 0 && guard.maxFailureRatePercent() <= 100) || guard.windowSeconds() <= 0
        || guard.minDevices() < 0) {
      throw new IllegalArgumentException(
          "malformed rollout guard: maxFailureRatePercent=" + guard.maxFailureRatePercent() + " minDevices="
              + guard.minDevices() + " windowSeconds=" + guard.windowSeconds());
    }
    List<String> ids = List.copyOf(updateIds);
    Instant windowStart = now.minusSeconds(guard.windowSeconds());
    Instant firstWholeMinute = windowStart.plusSeconds(59).plusNanos(999_999_999).truncatedTo(ChronoUnit.MINUTES);
    return pool.preparedQuery(SQL)
        .execute(Tuple.of(appId, ids.toArray(new String[0]), TelemetryDb.utc(windowStart), TelemetryDb.utc(firstWholeMinute),
            (long) maxFailuresPerAddress))
        .map(
            rows -> {
              Map<String, long[]> per = new HashMap<>();
              long[] total = new long[2];
              for (Row r : rows) {
                long[] v = {r.getLong("received"), r.getLong("failed")};
                per.put(r.getString("update_id"), v);
                // a device runs one platform, so it is served at most one of the rollout's updates: they add up
                total[0] += v[0];
                total[1] += v[1];
              }
              GuardCheck all = check(null, total, guard);
              List<GuardCheck> checks = new ArrayList<>(ids.size());
              GuardCheck worst = null;
              for (String id : ids) {
                GuardCheck c = check(id, per.getOrDefault(id, new long[2]), guard);
                checks.add(c);
                if (c.exceeds() && (worst == null || c.failureRatePercent() > worst.failureRatePercent())) {
                  worst = c;
                }
              }
              GuardCheck trigger = all.exceeds() ? all : worst;
              return new GuardVerdict(
                  trigger != null, reason(trigger, all, checks, guard, windowStart), guard, now, windowStart, all, checks,
                  trigger);
            });
  }

  /**
   * Evaluates the guard of {@code group}'s per-update rollout over its platform updates.
   *
   * @throws IllegalArgumentException when the group has no rollout or its rollout no guard
   */
  public Future<GuardVerdict> evaluate(String appId, EventPayload.UpdateGroup group, Instant now) {
    if (group.rollout() == null || group.rollout().guard() == null) {
      throw new IllegalArgumentException("update group has no rollout guard: appId=" + appId + " groupId=" + group.groupId());
    }
    List<String> ids = new ArrayList<>();
    for (EventPayload.PlatformUpdate p : group.platforms()) {
      ids.add(p.updateId());
    }
    return evaluate(appId, ids, group.rollout().guard(), now);
  }

  private static GuardCheck check(String updateId, long[] v, EventPayload.RolloutGuard guard) {
    long received = v[0];
    long failed = v[1];
    double rate = received == 0 ? 0 : 100.0 * failed / received;
    boolean exceeds = received > 0 && received >= guard.minDevices() && rate > guard.maxFailureRatePercent();
    return new GuardCheck(updateId, received, failed, rate, exceeds);
  }

  private static String reason(
      GuardCheck trigger, GuardCheck all, List<GuardCheck> checks, EventPayload.RolloutGuard guard, Instant windowStart) {
    String limit =
        String.format(Locale.ROOT, "%.1f %% among at least %d devices within %d s", guard.maxFailureRatePercent(),
            guard.minDevices(), guard.windowSeconds());
    if (trigger != null) {
      return "guard fired: " + numbers(trigger, windowStart) + "; the guard allows at most " + limit;
    }
    GuardCheck shown = all;
    for (GuardCheck c : checks) {
      if (c.failureRatePercent() > shown.failureRatePercent()) {
        shown = c;
      }
    }
    return "guard holds: " + numbers(shown, windowStart) + "; it fires above " + limit;
  }

  private static String numbers(GuardCheck c, Instant windowStart) {
    return String.format(Locale.ROOT, "%d of %d devices (%.1f %%) that received %s since %s reported it failed",
        c.failedDevices(), c.receivedDevices(), c.failureRatePercent(),
        c.updateId() == null ? "the rollout's updates" : "update " + c.updateId(), windowStart.truncatedTo(ChronoUnit.SECONDS));
  }
}
