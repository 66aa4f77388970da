package dev.updraft.controlplane.insights;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An update group over time: per platform and per hour of the last 7 days (the current hour and the 167
 * before it), the check-ins from {@code update_hourly} (launches, check-ins served it, failure reports)
 * and the adoption and failure rate as they stood at the end of each hour (distinct devices from
 * {@code update_receipts} and {@code update_failures}, the same definition as {@link UpdateStats}'s rate,
 * which the rollout guard compares with its threshold). Reads only. Thread-safe.
 */
public final class UpdateSeries {
  /** Hours in a series. */
  public static final int HOURS = 168;

  static final String HOURLY_SQL =
      "SELECT update_id, floor(extract(epoch FROM hour) / 3600)::bigint, sum(launches), sum(served), sum(failure_reports)"
          + " FROM update_hourly WHERE app_id = $1 AND update_id = ANY($2::text[]) AND hour >= $3 AND hour < $4"
          + " GROUP BY 1, 2";
  /**
   * Per update and hour (epoch hours, before the window's end): devices first seen (served it or reported
   * it failed, whichever came first) and devices first reporting it failed.
   */
  static final String DEVICES_SQL =
      "WITH d AS (SELECT update_id, client_id, min(at) AS first_at, min(failed_at) AS failed_at FROM ("
          + " SELECT update_id, client_id, first_served AS at, NULL::timestamptz AS failed_at FROM update_receipts"
          + "  WHERE app_id = $1 AND update_id = ANY($2::text[])"
          + " UNION ALL SELECT update_id, client_id, first_reported, first_reported FROM update_failures"
          + "  WHERE app_id = $1 AND update_id = ANY($2::text[])) x GROUP BY update_id, client_id)"
          + " SELECT update_id, floor(extract(epoch FROM first_at) / 3600)::bigint, count(*), 0::bigint FROM d"
          + "  WHERE first_at < $3 GROUP BY 1, 2"
          + " UNION ALL SELECT update_id, floor(extract(epoch FROM failed_at) / 3600)::bigint, 0::bigint, count(*) FROM d"
          + "  WHERE failed_at IS NOT NULL AND failed_at < $3 GROUP BY 1, 2";

  private final Pool pool;

  UpdateSeries(Pool pool) {
    this.pool = Objects.requireNonNull(pool, "pool");
  }

  /**
   * One hour of one platform's update.
   *
   * @param hour the start of the hour (UTC)
   * @param launches check-ins running the update in the hour
   * @param served check-ins that were served the update in the hour
   * @param failureReports check-ins that listed the update as failed in the hour
   * @param devices distinct devices that had received it (or reported it failed) by the hour's end
   * @param failedDevices distinct devices that had reported it failed by the hour's end
   * @param failureRatePercent {@code failedDevices} of {@code devices}; null while {@code devices} is 0
   */
  public record Point(Instant hour, long launches, long served, long failureReports, long devices, long failedDevices, Double failureRatePercent) {}

  /** One platform's update over the window, {@link #HOURS} points oldest first. */
  public record Platform(String platform, String updateId, List<Point> points) {
    public Platform {
      points = List.copyOf(points);
    }
  }

  /**
   * The group's series.
   *
   * @param since the first hour of the window
   * @param platforms in the order asked
   */
  public record Series(String appId, Instant asOf, Instant since, List<Platform> platforms) {
    public Series {
      platforms = List.copyOf(platforms);
    }
  }

  /** The series of {@code updates} (one per platform) for the 7 days ending with {@code now}'s hour. */
  public Future<Series> of(String appId, List<UpdateRef> updates, Instant now) {
    List<UpdateRef> refs = List.copyOf(updates);
    String[] ids = new String[refs.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = refs.get(i).updateId();
    }
    Instant since = Insights.windowStart(now, Duration.ofHours(HOURS));
    Instant end = since.plus(Duration.ofHours(HOURS));
    long firstHour = since.getEpochSecond() / 3600;
    Future<Map<String, long[][]>> hourly =
        pool.preparedQuery(HOURLY_SQL)
            .execute(Tuple.of(appId, ids, Insights.utc(since), Insights.utc(end)))
            .map(rows -> perHour(rows, firstHour, 3, false));
    Future<Map<String, long[][]>> devices =
        pool.preparedQuery(DEVICES_SQL).execute(Tuple.of(appId, ids, Insights.utc(end))).map(rows -> perHour(rows, firstHour, 2, true));
    return Future.all(hourly, devices)
        .map(
            done -> {
              List<Platform> out = new ArrayList<>();
              for (UpdateRef ref : refs) {
                long[][] h = hourly.result().getOrDefault(ref.updateId(), new long[HOURS][3]);
                long[][] d = devices.result().getOrDefault(ref.updateId(), new long[HOURS][2]);
                List<Point> points = new ArrayList<>(HOURS);
                for (int i = 0; i < HOURS; i++) {
                  long seen = d[i][0];
                  long failed = d[i][1];
                  points.add(new Point(since.plus(Duration.ofHours(i)), h[i][0], h[i][1], h[i][2], seen, failed,
                      seen == 0 ? null : 100.0 * failed / seen));
                }
                out.add(new Platform(ref.platform(), ref.updateId(), points));
              }
              return new Series(appId, now, since, out);
            });
  }

  /**
   * Per update, {@link #HOURS} rows of {@code columns} counts. With {@code cumulative}, hours before the
   * window count into its first hour and each hour holds the running total.
   */
  private static Map<String, long[][]> perHour(Iterable<Row> rows, long firstHour, int columns, boolean cumulative) {
    Map<String, long[][]> m = new HashMap<>();
    for (Row r : rows) {
      int i = (int) Math.max(0, r.getLong(1) - firstHour);
      if (i >= HOURS) {
        continue;
      }
      long[][] v = m.computeIfAbsent(r.getString(0), k -> new long[HOURS][columns]);
      for (int c = 0; c < columns; c++) {
        Long n = r.getLong(c + 2);
        v[i][c] += n == null ? 0 : n;
      }
    }
    if (cumulative) {
      for (long[][] v : m.values()) {
        for (int i = 1; i < HOURS; i++) {
          for (int c = 0; c < columns; c++) {
            v[i][c] += v[i - 1][c];
          }
        }
      }
    }
    return m;
  }
}
