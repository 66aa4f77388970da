package dev.updraft.ingester;

import static dev.updraft.ingester.Upsert.OnConflict.ADD;
import static dev.updraft.ingester.Upsert.OnConflict.KEY;

import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * The counters of the device sets ({@code update_device_totals}, {@code receipt_minutes}, migration V4):
 * how many devices received an update, reported it failed, or both, in total and per minute of first
 * receipt. They change only with rows really inserted into (by a batch) or deleted from (by retention)
 * {@code update_receipts} and {@code update_failures}, in the same transaction.
 *
 * <p>Both writers describe the pairs they inserted or deleted in the same two row layouts, the
 * <em>failure rows</em> and the <em>receipt rows</em> (see {@link #FAILURE_PAIRS_SQL} and
 * {@link #RECEIPT_PAIRS_SQL}); this class adds them up per counter key and applies them in key order
 * (totals, then minutes), the order every writer takes the counter rows' locks in.
 *
 * <p>Exactness under concurrency: a pair's two rows are written by one ingester (a device's check-ins
 * share a partition), in one transaction, failures before receipts, so a pair inserted whole in one batch
 * is seen once, by the receipts statement. Where the ingester looks for the pair's other row it takes a
 * {@code FOR KEY SHARE} lock on it: retention, which locks its victims {@code FOR UPDATE SKIP LOCKED},
 * either skips that row or has the ingester wait until the row is gone. Retention looks for the other row
 * in a statement of its own after its delete, so it sees every pair an ingester committed before.
 *
 * <p>Not thread-safe: one instance per transaction.
 */
final class SetCounts {
  /** The minute of a {@code timestamptz} expression as epoch milliseconds, whatever the session's time zone. */
  static String minuteMillis(String expression) {
    return "(floor(extract(epoch FROM " + expression + ") / 60)::bigint * 60000)";
  }

  /**
   * Failure rows: per (app, update, the failure's platform, the receipt's platform, its minute) the pairs
   * counted; the receipt columns are null when the device has no receipt of the update. Parameters:
   * arrays of app ids, update ids, client ids, platforms (the pairs).
   */
  static final String FAILURE_PAIRS_SQL =
      "SELECT k.app_id, k.update_id, k.platform, r.platform, " + minuteMillis("r.first_served") + ", count(*)"
          + " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(app_id, update_id, client_id, platform)"
          + " LEFT JOIN update_receipts r ON r.app_id = k.app_id AND r.update_id = k.update_id AND r.client_id = k.client_id"
          + " GROUP BY 1, 2, 3, 4, 5";

  /**
   * Receipt rows: per (app, update, platform, minute of first served) the receipts counted and, of them,
   * those whose device has a failure row of the update. Parameters: arrays of app ids, update ids, client
   * ids, platforms, minutes (epoch ms).
   */
  static final String RECEIPT_PAIRS_SQL =
      "SELECT k.app_id, k.update_id, k.platform, k.minute_ms, count(*), count(f.client_id)"
          + " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])"
          + "   AS k(app_id, update_id, client_id, platform, minute_ms)"
          + " LEFT JOIN update_failures f ON f.app_id = k.app_id AND f.update_id = k.update_id AND f.client_id = k.client_id"
          + " GROUP BY 1, 2, 3, 4";

  /** The batch's failure upsert, returning the failure rows of the pairs it inserted. */
  static final String INSERT_FAILURES_SQL =
      "WITH up AS (" + Tables.UPDATE_FAILURES.sql() + " RETURNING f.app_id, f.update_id, f.client_id, f.platform,"
          + " (f.xmax = 0) AS inserted)"
          + " SELECT up.app_id, up.update_id, up.platform, r.platform, " + minuteMillis("r.first_served") + ", count(*)"
          + " FROM up LEFT JOIN LATERAL (SELECT platform, first_served FROM update_receipts x"
          + "   WHERE x.app_id = up.app_id AND x.update_id = up.update_id AND x.client_id = up.client_id FOR KEY SHARE) r"
          + " ON true WHERE up.inserted GROUP BY 1, 2, 3, 4, 5";

  /** The batch's receipt insert, returning the receipt rows of the pairs it inserted. */
  static final String INSERT_RECEIPTS_SQL =
      "WITH ins AS (" + Tables.UPDATE_RECEIPTS.sql() + " RETURNING r.app_id, r.update_id, r.client_id, r.platform,"
          + " r.first_served)"
          + " SELECT ins.app_id, ins.update_id, ins.platform, " + minuteMillis("ins.first_served") + ", count(*),"
          + " count(f.client_id)"
          + " FROM ins LEFT JOIN LATERAL (SELECT client_id FROM update_failures x"
          + "   WHERE x.app_id = ins.app_id AND x.update_id = ins.update_id AND x.client_id = ins.client_id FOR KEY SHARE) f"
          + " ON true GROUP BY 1, 2, 3, 4";

  /** Deletes the minute rows of the given keys that count nothing any more (retention). */
  static final String EMPTY_MINUTES_SQL =
      "DELETE FROM receipt_minutes m USING unnest($1::text[], $2::text[], $3::bigint[], $4::text[])"
          + " AS k(app_id, update_id, minute_ms, platform)"
          + " WHERE m.app_id = k.app_id AND m.update_id = k.update_id AND m.minute = to_timestamp(k.minute_ms::float8 / 1000)"
          + " AND m.platform = k.platform AND m.received = 0 AND m.failed = 0";

  /** One key of {@code update_device_totals} and what it changes by. */
  static final class Total {
    final String appId;
    final String updateId;
    final String platform;
    long received;
    long failed;
    long receivedFailed;

    Total(String appId, String updateId, String platform) {
      this.appId = appId;
      this.updateId = updateId;
      this.platform = platform;
    }
  }

  /** One key of {@code receipt_minutes} and what it changes by. */
  static final class Minute {
    final String appId;
    final String updateId;
    final long minuteMillis;
    final String platform;
    long received;
    long failed;

    Minute(String appId, String updateId, long minuteMillis, String platform) {
      this.appId = appId;
      this.updateId = updateId;
      this.minuteMillis = minuteMillis;
      this.platform = platform;
    }
  }

  static final Upsert<Total> TOTALS =
      Upsert.<Total>into("update_device_totals", "t")
          .text("app_id", KEY, t -> t.appId)
          .text("update_id", KEY, t -> t.updateId)
          .text("platform", KEY, t -> t.platform)
          .bigint("received", ADD, t -> t.received)
          .bigint("failed", ADD, t -> t.failed)
          .bigint("received_failed", ADD, t -> t.receivedFailed)
          .build();

  static final Upsert<Minute> MINUTES =
      Upsert.<Minute>into("receipt_minutes", "m")
          .text("app_id", KEY, m -> m.appId)
          .text("update_id", KEY, m -> m.updateId)
          .millis("minute", KEY, m -> m.minuteMillis)
          .text("platform", KEY, m -> m.platform)
          .bigint("received", ADD, m -> m.received)
          .bigint("failed", ADD, m -> m.failed)
          .build();

  private final TreeMap<String, Total> totals = new TreeMap<>();
  private final TreeMap<String, Minute> minutes = new TreeMap<>();

  /** Adds failure rows ({@code sign} 1: inserted pairs, -1: deleted ones). */
  SetCounts failures(RowSet<Row> rows, int sign) {
    if (rows == null) {
      return this;
    }
    for (Row r : rows) {
      long n = sign * r.getLong(5);
      total(r.getString(0), r.getString(1), r.getString(2)).failed += n;
      String receiptPlatform = r.getString(3);
      if (receiptPlatform != null) {
        total(r.getString(0), r.getString(1), receiptPlatform).receivedFailed += n;
        minute(r.getString(0), r.getString(1), r.getLong(4), receiptPlatform).failed += n;
      }
    }
    return this;
  }

  /** Adds receipt rows ({@code sign} 1: inserted pairs, -1: deleted ones). */
  SetCounts receipts(RowSet<Row> rows, int sign) {
    if (rows == null) {
      return this;
    }
    for (Row r : rows) {
      long received = sign * r.getLong(4);
      long failed = sign * r.getLong(5);
      Total t = total(r.getString(0), r.getString(1), r.getString(2));
      t.received += received;
      t.receivedFailed += failed;
      Minute m = minute(r.getString(0), r.getString(1), r.getLong(3), r.getString(2));
      m.received += received;
      m.failed += failed;
    }
    return this;
  }

  boolean isEmpty() {
    return totals.isEmpty() && minutes.isEmpty();
  }

  /**
   * Applies the changes: totals, then minutes, each in key order (with retention, then the minute rows
   * left at zero go).
   */
  Future<Void> apply(SqlConnection conn, boolean dropEmptyMinutes) {
    if (isEmpty()) {
      return Future.succeededFuture();
    }
    List<Future<?>> all = new ArrayList<>(3);
    all.add(conn.preparedQuery(TOTALS.sql()).execute(TOTALS.tuple(totals.values())));
    all.add(conn.preparedQuery(MINUTES.sql()).execute(MINUTES.tuple(minutes.values())));
    if (dropEmptyMinutes) {
      int n = minutes.size();
      String[] apps = new String[n];
      String[] updates = new String[n];
      Long[] mins = new Long[n];
      String[] platforms = new String[n];
      int i = 0;
      for (Minute m : minutes.values()) {
        apps[i] = m.appId;
        updates[i] = m.updateId;
        mins[i] = m.minuteMillis;
        platforms[i] = m.platform;
        i++;
      }
      all.add(conn.preparedQuery(EMPTY_MINUTES_SQL).execute(Tuple.of(apps, updates, mins, platforms)));
    }
    return Future.all(all).mapEmpty();
  }

  private Total total(String app, String update, String platform) {
    return totals.computeIfAbsent(app + '\u0000' + update + '\u0000' + platform, k -> new Total(app, update, platform));
  }

  private Minute minute(String app, String update, long minuteMillis, String platform) {
    // the minute zero-padded, so that the string order is the primary key's order
    String key = app + '\u0000' + update + '\u0000' + String.format(Locale.ROOT, "%020d", minuteMillis) + '\u0000' + platform;
    return minutes.computeIfAbsent(key, k -> new Minute(app, update, minuteMillis, platform));
  }
}
