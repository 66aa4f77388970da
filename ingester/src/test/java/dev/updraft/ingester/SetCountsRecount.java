package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The device-set counters ({@code update_device_totals}, {@code receipt_minutes}) against a count over
 * the rows they count: what the insights read must be what counting the rows per request answered.
 */
final class SetCountsRecount {
  private SetCountsRecount() {}

  static final String TOTALS_SQL =
      "SELECT update_id || '|' || platform || '|' || received || '|' || failed || '|' || received_failed"
          + " FROM update_device_totals WHERE app_id = ? AND (received <> 0 OR failed <> 0 OR received_failed <> 0)";
  static final String TOTALS_RECOUNT_SQL =
      "SELECT update_id || '|' || platform || '|' || sum(received) || '|' || sum(failed) || '|' || sum(rf) FROM ("
          + " SELECT r.update_id, r.platform, 1 AS received, 0 AS failed, (f.client_id IS NOT NULL)::int AS rf"
          + " FROM update_receipts r LEFT JOIN update_failures f"
          + "   ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id WHERE r.app_id = ?"
          + " UNION ALL SELECT update_id, platform, 0, 1, 0 FROM update_failures WHERE app_id = ?) x"
          + " GROUP BY update_id, platform";
  static final String MINUTES_SQL =
      "SELECT update_id || '|' || extract(epoch FROM minute)::bigint || '|' || platform || '|' || received || '|' || failed"
          + " FROM receipt_minutes WHERE app_id = ? AND (received <> 0 OR failed <> 0)";
  static final String MINUTES_RECOUNT_SQL =
      "SELECT update_id || '|' || m || '|' || platform || '|' || count(*) || '|' || count(failed) FROM ("
          + " SELECT r.update_id, (floor(extract(epoch FROM r.first_served) / 60) * 60)::bigint AS m, r.platform,"
          + " f.client_id AS failed FROM update_receipts r LEFT JOIN update_failures f"
          + "   ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id WHERE r.app_id = ?) x"
          + " GROUP BY update_id, m, platform";

  /** Asserts that the counters of {@code app} equal a recount of its receipts and failures. */
  static void assertMatches(TestDb db, String app) {
    assertThat(strings(db, TOTALS_SQL, app))
        .as("update_device_totals of %s (update|platform|received|failed|received_failed) vs a recount", app)
        .isEqualTo(strings(db, TOTALS_RECOUNT_SQL, app, app));
    assertThat(strings(db, MINUTES_SQL, app))
        .as("receipt_minutes of %s (update|minute|platform|received|failed) vs a recount", app)
        .isEqualTo(strings(db, MINUTES_RECOUNT_SQL, app));
  }

  static Set<String> strings(TestDb db, String sql, Object... params) {
    Set<String> s = new TreeSet<>();
    for (List<Object> r : db.rows(sql, params)) {
      s.add(String.valueOf(r.get(0)));
    }
    return s;
  }
}
