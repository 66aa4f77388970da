package dev.updraft.controlplane.insights;

import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.EventPayload;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Queries over the telemetry the ingester writes (same database): how an update group is doing, who runs
 * what on a channel, and one device's record. Reads only; every method returns a future completed on a
 * Vert.x event loop.
 *
 * <p>Counts are exact as of the ingester's last committed batch (see its lag metric). Thread-safe.
 */
public final class Insights {
  private static final Duration DAY = Duration.ofHours(24);
  private static final Duration WEEK = Duration.ofHours(24 * 7);

  static final String DEVICES_NOW_SQL =
      "SELECT update_id, sum(devices) FROM device_counts WHERE app_id = $1 AND update_id = ANY($2::text[])"
          + " GROUP BY update_id";
  static final String WINDOWS_SQL =
      "SELECT update_id, coalesce(sum(launches) FILTER (WHERE hour >= $3), 0), coalesce(sum(launches), 0),"
          + " coalesce(sum(failure_reports) FILTER (WHERE hour >= $3), 0), coalesce(sum(failure_reports), 0)"
          + " FROM update_hourly WHERE app_id = $1 AND update_id = ANY($2::text[]) AND hour >= $4 GROUP BY update_id";
  /**
   * Failed, received, and received-or-failed devices per update, from the counters the ingester keeps
   * (migration V4): one row per platform of each update, never a count over the device rows.
   */
  static final String DEVICE_SETS_SQL =
      "SELECT update_id, sum(failed), sum(received), sum(received + failed - received_failed)"
          + " FROM update_device_totals WHERE app_id = $1 AND update_id = ANY($2::text[]) GROUP BY update_id";
  static final String CHANNEL_DEVICES_SQL =
      "SELECT platform, update_id, source, devices FROM device_counts"
          + " WHERE app_id = $1 AND channel = $2 AND devices <> 0";
  static final String CHANNEL_LAUNCHES_SQL =
      "SELECT coalesce(sum(launches), 0), coalesce(sum(embedded_launches), 0),"
          + " coalesce(sum(launches) FILTER (WHERE update_id = ''), 0)"
          + " FROM update_hourly WHERE app_id = $1 AND channel = $2 AND hour >= $3";
  /** The device's row, and when it was first served the update its newest check-in was served (a receipt's key lookup). */
  static final String DEVICE_SQL =
      "SELECT d.app_id, d.client_id, d.platform, d.runtime_version, d.channel, d.current_update_id, d.embedded_update_id,"
          + " d.source, d.failed_update_ids, d.fatal_error, d.fatal_error_at, d.first_seen, d.last_seen, d.check_ins,"
          + " d.last_check_in_id, d.edge_id, d.outcome, d.reason, d.branch, d.in_branch_rollout, d.rollout_bucket,"
          + " d.served_update_id, d.served_group_id, d.skipped_update_ids, r.first_served AS served_first"
          + " FROM devices d LEFT JOIN update_receipts r"
          + "   ON r.app_id = d.app_id AND r.update_id = d.served_update_id AND r.client_id = d.client_id"
          + " WHERE d.app_id = $1 AND d.client_id = $2";
  static final String REFUSALS_SQL =
      "SELECT reason, runtime_version, embedded_update_id, devices, requests, first_seen, last_seen FROM refusals"
          + " WHERE app_id = $1 ORDER BY devices DESC, requests DESC, reason, runtime_version, embedded_update_id LIMIT $2";
  /** The most refusal rows one answer lists. */
  static final int MAX_REFUSALS = 200;

  private final Pool pool;
  private final boolean ownsPool;

  private Insights(Pool pool, boolean ownsPool) {
    this.pool = pool;
    this.ownsPool = ownsPool;
  }

  /**
   * Insights over a pool the caller owns (and closes). The schema must exist: the ingester applies it, or
   * call {@link SchemaMigrations#apply(Pool)} first.
   */
  public static Insights create(Pool pool) {
    return new Insights(Objects.requireNonNull(pool, "pool"), false);
  }

  /**
   * Insights with a pool of their own on {@code postgresUrl} (the ingester's {@code --postgres-url}),
   * after applying the telemetry schema migrations so that the tables exist even before any ingester ran.
   * {@link #close()} closes the pool.
   */
  public static Future<Insights> connect(Vertx vertx, String postgresUrl) {
    PgConnectOptions options;
    try {
      options = PgConnectOptions.fromUri(postgresUrl);
    } catch (RuntimeException e) {
      return Future.failedFuture(new IllegalArgumentException("not a PostgreSQL URL: " + e.getMessage(), e));
    }
    options.setCachePreparedStatements(true).addProperty("application_name", "updraft-insights");
    Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(4)).connectingTo(options).using(vertx).build();
    return SchemaMigrations.apply(pool)
        .map(applied -> new Insights(pool, true))
        .onFailure(err -> pool.close());
  }

  /** Closes the pool when it is this object's own; otherwise nothing. */
  public Future<Void> close() {
    return ownsPool ? pool.close() : Future.succeededFuture();
  }

  /** The start of the hour of {@code now} minus {@code span} plus one hour: the first hour of the window. */
  static Instant windowStart(Instant now, Duration span) {
    return now.truncatedTo(ChronoUnit.HOURS).minus(span).plus(Duration.ofHours(1));
  }

  /**
   * How an update group is doing, per platform and in total.
   *
   * @param updates each platform's update of the group
   * @param now the end of the windows (usually {@code Instant.now()})
   */
  public Future<GroupInsights> group(String appId, List<UpdateRef> updates, Instant now) {
    Objects.requireNonNull(appId, "appId");
    List<UpdateRef> refs = List.copyOf(updates);
    String[] ids = new String[refs.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = refs.get(i).updateId();
    }
    Instant since24h = windowStart(now, DAY);
    Instant since7d = windowStart(now, WEEK);
    Future<Map<String, long[]>> devicesNow =
        pool.preparedQuery(DEVICES_NOW_SQL).execute(Tuple.tuple().addString(appId).addArrayOfString(ids)).map(rows -> byUpdate(rows, 1));
    Future<Map<String, long[]>> windows =
        pool.preparedQuery(WINDOWS_SQL)
            .execute(Tuple.of(appId, ids, utc(since24h), utc(since7d)))
            .map(rows -> byUpdate(rows, 4));
    Future<Map<String, long[]>> sets =
        pool.preparedQuery(DEVICE_SETS_SQL).execute(Tuple.tuple().addString(appId).addArrayOfString(ids)).map(rows -> byUpdate(rows, 3));
    return Future.all(devicesNow, windows, sets)
        .map(
            done -> {
              List<UpdateStats> per = new ArrayList<>(refs.size());
              long[] sum = new long[8];
              for (UpdateRef ref : refs) {
                long now0 = get(devicesNow.result(), ref.updateId(), 0);
                long[] w = windows.result().getOrDefault(ref.updateId(), new long[4]);
                long[] s = sets.result().getOrDefault(ref.updateId(), new long[3]);
                long[] v = {now0, w[0], w[1], w[2], w[3], s[0], s[1], s[2]};
                for (int i = 0; i < v.length; i++) {
                  sum[i] += v[i];
                }
                per.add(stats(ref.platform(), ref.updateId(), v));
              }
              return new GroupInsights(appId, now, since24h, since7d, per, stats(null, null, sum));
            });
  }

  /** {@link #group(String, List, Instant)} for the platform updates of {@code group}. */
  public Future<GroupInsights> group(String appId, EventPayload.UpdateGroup group, Instant now) {
    List<UpdateRef> refs = new ArrayList<>();
    for (EventPayload.PlatformUpdate p : group.platforms()) {
      refs.add(new UpdateRef(p.platform(), p.updateId()));
    }
    return group(appId, refs, now);
  }

  /** {@code group} over the last 7 days, hour by hour and per platform (see {@link UpdateSeries}). */
  public Future<UpdateSeries.Series> series(String appId, EventPayload.UpdateGroup group, Instant now) {
    Objects.requireNonNull(appId, "appId");
    List<UpdateRef> refs = new ArrayList<>();
    for (EventPayload.PlatformUpdate p : group.platforms()) {
      refs.add(new UpdateRef(p.platform(), p.updateId()));
    }
    return new UpdateSeries(pool).of(appId, refs, now);
  }

  /**
   * Who runs what on a channel.
   *
   * @param channel null for devices that sent no channel
   */
  public Future<ChannelInsights> channel(String appId, String channel, Instant now) {
    Objects.requireNonNull(appId, "appId");
    String key = channel == null ? "" : channel;
    Instant since7d = windowStart(now, WEEK);
    Future<List<ChannelAdoption>> rows =
        pool.preparedQuery(CHANNEL_DEVICES_SQL)
            .execute(Tuple.of(appId, key))
            .map(
                rs -> {
                  Map<String, long[]> byUpdate = new HashMap<>(); // platform \u0000 update -> devices, embedded, ota
                  for (Row r : rs) {
                    String k = r.getString(0) + '\u0000' + r.getString(1);
                    long[] c = byUpdate.computeIfAbsent(k, x -> new long[3]);
                    long n = r.getLong(3);
                    c[0] += n;
                    if ("embedded".equals(r.getString(2))) {
                      c[1] += n;
                    } else if ("ota".equals(r.getString(2))) {
                      c[2] += n;
                    }
                  }
                  long total = 0;
                  for (long[] c : byUpdate.values()) {
                    total += c[0];
                  }
                  List<ChannelAdoption> out = new ArrayList<>();
                  for (Map.Entry<String, long[]> e : byUpdate.entrySet()) {
                    String[] pu = e.getKey().split("\u0000", 2);
                    long[] c = e.getValue();
                    out.add(new ChannelAdoption(pu[0], pu[1].isEmpty() ? null : pu[1], c[0], c[1], c[2],
                        total == 0 ? 0 : 100.0 * c[0] / total));
                  }
                  out.sort((a, b) -> a.devices() != b.devices() ? Long.compare(b.devices(), a.devices())
                      : (a.platform() + a.updateId()).compareTo(b.platform() + b.updateId()));
                  return out;
                });
    Future<long[]> launches =
        pool.preparedQuery(CHANNEL_LAUNCHES_SQL)
            .execute(Tuple.of(appId, key, utc(since7d)))
            .map(rs -> {
              Row r = rs.iterator().next();
              return new long[] {r.getLong(0), r.getLong(1), r.getLong(2)};
            });
    return Future.all(rows, launches)
        .map(
            done -> {
              long devices = 0;
              long embedded = 0;
              long ota = 0;
              for (ChannelAdoption a : rows.result()) {
                devices += a.devices();
                embedded += a.embeddedDevices();
                ota += a.otaDevices();
              }
              long[] l = launches.result();
              return new ChannelInsights(appId, channel, now, devices, embedded, ota, devices - embedded - ota, since7d,
                  l[0], l[1], l[0] - l[1] - l[2], rows.result());
            });
  }

  /**
   * One device's record: what it last reported, what it was served and why.
   *
   * @param clientId its {@code EAS-Client-ID} in any letter case
   * @return empty when the device never checked in with this app
   */
  public Future<Optional<DeviceRecord>> device(String appId, String clientId) {
    Objects.requireNonNull(appId, "appId");
    Objects.requireNonNull(clientId, "clientId");
    return pool.preparedQuery(DEVICE_SQL)
        .execute(Tuple.of(appId, clientId.trim().toLowerCase(Locale.ROOT)))
        .map(
            rs -> {
              if (rs.size() == 0) {
                return Optional.<DeviceRecord>empty();
              }
              Row r = rs.iterator().next();
              String[] failed = r.getArrayOfStrings("failed_update_ids");
              String[] skipped = r.getArrayOfStrings("skipped_update_ids");
              return Optional.of(
                  new DeviceRecord(
                      r.getString("app_id"),
                      r.getString("client_id"),
                      r.getString("platform"),
                      r.getString("runtime_version"),
                      r.getString("channel"),
                      r.getString("current_update_id"),
                      r.getString("embedded_update_id"),
                      r.getString("source"),
                      failed == null ? List.of() : Arrays.asList(failed),
                      r.getString("fatal_error"),
                      instant(r.getOffsetDateTime("fatal_error_at")),
                      instant(r.getOffsetDateTime("first_seen")),
                      instant(r.getOffsetDateTime("last_seen")),
                      r.getLong("check_ins"),
                      r.getString("last_check_in_id"),
                      r.getString("edge_id"),
                      new DeviceRecord.Served(
                          r.getString("outcome"),
                          r.getString("reason"),
                          r.getString("branch"),
                          r.getBoolean("in_branch_rollout"),
                          r.getInteger("rollout_bucket"),
                          r.getString("served_update_id"),
                          r.getString("served_group_id"),
                          instant(r.getOffsetDateTime("served_first"))),
                      skipped == null ? List.of() : Arrays.asList(skipped)));
            });
  }

  /**
   * The requests edges refused for this app, per reason, runtime version and embedded update: most devices
   * first, at most {@value #MAX_REFUSALS} rows. Exact as of the ingester's last batch.
   */
  public Future<List<Refusal>> refusals(String appId) {
    Objects.requireNonNull(appId, "appId");
    return pool.preparedQuery(REFUSALS_SQL)
        .execute(Tuple.of(appId, MAX_REFUSALS))
        .map(
            rs -> {
              List<Refusal> out = new ArrayList<>();
              for (Row r : rs) {
                out.add(new Refusal(r.getString(0), blankToNull(r.getString(1)), blankToNull(r.getString(2)), r.getLong(3),
                    r.getLong(4), instant(r.getOffsetDateTime(5)), instant(r.getOffsetDateTime(6))));
              }
              return out;
            });
  }

  private static String blankToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static UpdateStats stats(String platform, String updateId, long[] v) {
    long failed = v[5];
    long union = v[7];
    Double rate = union == 0 ? null : 100.0 * failed / union;
    return new UpdateStats(platform, updateId, v[0], v[1], v[2], v[3], v[4], failed, v[6], rate);
  }

  private static Map<String, long[]> byUpdate(Iterable<Row> rows, int columns) {
    Map<String, long[]> m = new HashMap<>();
    for (Row r : rows) {
      long[] v = new long[columns];
      for (int i = 0; i < columns; i++) {
        Long n = r.getLong(i + 1);
        v[i] = n == null ? 0 : n;
      }
      m.put(r.getString(0), v);
    }
    return m;
  }

  private static long get(Map<String, long[]> m, String key, int i) {
    long[] v = m.get(key);
    return v == null ? 0 : v[i];
  }

  static OffsetDateTime utc(Instant i) {
    return TelemetryDb.utc(i);
  }

  private static Instant instant(OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }
}
