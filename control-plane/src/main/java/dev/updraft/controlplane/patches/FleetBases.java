package dev.updraft.controlplane.patches;

import dev.updraft.common.PostgresTls;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-only questions to the telemetry database (the ingester's tables): which updates the fleet runs
 * most (patch bases), how the patches served fared ({@code patch_outcomes}), and whether any device of a runtime version checked in lately (the publish CLI's
 * orphan warning). PostgreSQL is optional: creating this connects nothing, and every question answers
 * {@code null} (unknown) while it cannot be asked or gives no answer within {@link #ANSWER_MS}. Thread-safe.
 */
final class FleetBases {
  private static final Logger LOG = LoggerFactory.getLogger(FleetBases.class);

  /** The longest a question waits, whatever PostgreSQL or the network to it does (a stalled network cancels nothing). */
  static final long ANSWER_MS = 3_000;

  private final Pool pool;
  private volatile boolean down;

  private FleetBases(Pool pool) {
    this.pool = pool;
  }

  /** Null when {@code postgresUrl} is not a PostgreSQL URL (then nothing is asked). */
  static FleetBases create(Vertx vertx, String postgresUrl, PostgresTls tls) {
    if (postgresUrl == null || !(postgresUrl.startsWith("postgresql://") || postgresUrl.startsWith("postgres://"))) {
      return null;
    }
    PgConnectOptions options;
    try {
      options = tls.apply(PgConnectOptions.fromUri(postgresUrl));
    } catch (RuntimeException e) {
      return null;
    }
    options.addProperty("application_name", "updraft-patches").addProperty("statement_timeout", "10000")
        .addProperty("default_transaction_read_only", "on");
    Pool pool =
        PgBuilder.pool()
            .with(new PoolOptions().setMaxSize(2).setConnectionTimeout(5).setConnectionTimeoutUnit(TimeUnit.SECONDS))
            .with(new NetClientOptions().setConnectTimeout(3_000))
            .connectingTo(options)
            .using(vertx)
            .build();
    return new FleetBases(pool);
  }

  /** The update ids most devices of the app and platform run now (embedded ones included), most first; null when unknown. */
  Future<List<String>> mostCommon(String appId, String platform, int limit) {
    return pool.preparedQuery(
            "SELECT update_id, sum(devices) AS n FROM device_counts WHERE app_id = $1 AND platform = $2 AND update_id <> '' "
                + "GROUP BY update_id HAVING sum(devices) > 0 ORDER BY n DESC, update_id LIMIT $3")
        .execute(Tuple.of(appId, platform, limit))
        .map(rows -> {
          List<String> out = new ArrayList<>();
          for (Row r : rows) {
            out.add(r.getString("update_id"));
          }
          up();
          return out;
        })
        .timeout(ANSWER_MS, TimeUnit.MILLISECONDS)
        .otherwise(t -> unknown(t));
  }

  /** Devices of the runtime version that checked in within {@code days} days; null when unknown. */
  Future<Long> recentDevices(String appId, String runtimeVersion, int days) {
    return pool.preparedQuery(
            "SELECT count(*) AS n FROM devices WHERE app_id = $1 AND runtime_version = $2 AND last_seen > now() - make_interval(days => $3)")
        .execute(Tuple.of(appId, runtimeVersion, days))
        .map(rows -> {
          up();
          return rows.iterator().next().getLong("n");
        })
        .timeout(ANSWER_MS, TimeUnit.MILLISECONDS)
        .otherwise(t -> unknown(t));
  }

  /** The app's patches served and failed per base and update (empty when none); null when unknown. */
  Future<PatchOutcomes> patchOutcomes(String appId) {
    return pool.preparedQuery(
            "SELECT base_update_id, update_id, platform, from_embedded, served, failed FROM patch_outcomes WHERE app_id = $1 "
                + "ORDER BY base_update_id, update_id, platform LIMIT 10000")
        .execute(Tuple.of(appId))
        .map(rows -> {
          List<PatchOutcomes.Row> out = new ArrayList<>();
          for (Row r : rows) {
            out.add(new PatchOutcomes.Row(r.getString(0), r.getString(1), r.getString(2), r.getBoolean(3), r.getLong(4), r.getLong(5)));
          }
          up();
          return new PatchOutcomes(out);
        })
        .timeout(ANSWER_MS, TimeUnit.MILLISECONDS)
        .otherwise(t -> unknown(t));
  }

  private void up() {
    if (down) {
      down = false;
      LOG.info("patches: the telemetry database answers again");
    }
  }

  private <T> T unknown(Throwable t) {
    if (!down) {
      down = true;
      LOG.info("patches: the telemetry database cannot be asked ({}); fleet patch bases and device counts are unknown until it can", t.toString());
    }
    return null;
  }

  Future<Void> close() {
    return pool.close();
  }
}
