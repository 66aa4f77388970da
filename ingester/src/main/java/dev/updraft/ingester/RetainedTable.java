package dev.updraft.ingester;

import java.time.Duration;
import java.util.List;
import java.util.StringJoiner;

/**
 * The telemetry tables retention deletes from, each with the column that ages its rows, its primary
 * key, the shortest retention the insights allow, and how a batch finds its old rows. The statements
 * are generated here; {@link RetentionJob} runs them. {@code ingest_offsets} (the consumed positions) and
 * {@code device_counts} (adjusted with the devices, never aged on its own), {@code update_device_totals} and
 * {@code receipt_minutes} (adjusted with the receipts and failures, {@link SetCounts}) are not listed.
 *
 * <p>Every batch takes its victims {@code FOR UPDATE SKIP LOCKED}: a row an ingester's batch is writing
 * right now is left for the next run instead of waited for, so retention never waits on a device row and
 * never deadlocks with the hot path, and the age condition is checked again on the row's newest version
 * once it is locked (a device whose check-in committed a moment ago is not old any more).
 */
enum RetainedTable {
  /** Walked by key: {@code last_seen} moves with every check-in, an index on it would cost every upsert. */
  DEVICES("devices", "devices", "last_seen", Walk.KEY_RANGE, Duration.ofDays(1),
      "shorter is a typo, a device that skips a day would leave and come back", List.of("app_id", "client_id")),
  /** By its time index ({@code V3}): rows are written once and never updated. */
  RECEIPTS("update_receipts", "receipts", "first_served", Walk.TIME_INDEX, Duration.ofDays(30),
      "the rollout guard counts the devices served within its window, up to 30 days",
      List.of("app_id", "update_id", "client_id")),
  /** Walked by key: {@code last_reported} moves with every report. */
  FAILURES("update_failures", "failures", "last_reported", Walk.KEY_RANGE, Duration.ofDays(30),
      "the rollout guard joins them to the devices served within its window, up to 30 days",
      List.of("app_id", "update_id", "client_id")),
  /** Walked by key: {@code last_reported} moves with every report ({@code V13}). */
  CRASHES("update_crashes", "crashes", "last_reported", Walk.KEY_RANGE, Duration.ofDays(30),
      "the rollout guard joins them to the devices served within its window, up to 30 days",
      List.of("app_id", "update_id", "client_id")),
  /** By its time index ({@code V3}): an hour never changes, its counters' updates stay HOT. */
  HOURLY("update_hourly", "hourly", "hour", Walk.TIME_INDEX, Duration.ofDays(7),
      "the insights read the last 7 days of launches and failure reports",
      List.of("app_id", "update_id", "hour", "platform", "channel")),
  /** Walked by key: a small table without a time index. */
  REJECTS("ingest_rejects", "rejects", "rejected_at", Walk.KEY_RANGE, Duration.ofDays(1),
      "kept for an operator to look at", List.of("topic", "kafka_partition", "record_offset")),
  /** By its time index ({@code V11}): a report is written once. */
  ERRORS("error_reports", "errors", "received_at", Walk.TIME_INDEX, Duration.ofDays(30),
      "the error and crash guards count the reports received within their window, up to 30 days", List.of("report_id")),
  /** Walked by key: written once per device and stage, no time index. */
  FUNNEL("update_funnel", "funnel", "first_at", Walk.KEY_RANGE, Duration.ofDays(7),
      "an update's funnel counts each device once per stage; a device whose row went counts again if it comes back",
      List.of("app_id", "update_id", "stage", "client_id")),
  /** Walked by key: {@code last_asked} moves with the device's asks. */
  KEY_ASKS("key_asks", "key-asks", "last_asked", Walk.KEY_RANGE, Duration.ofDays(30),
      "the control plane refuses to retire a key asked for within --key-in-use-days (30 by default): keep them at least"
          + " that long", List.of("app_id", "key_id", "client_id")),
  /** Walked by key: {@code last_seen} moves with every patch served. */
  PATCH_OUTCOMES("patch_outcomes", "patch-outcomes", "last_seen", Walk.KEY_RANGE, Duration.ofDays(30),
      "the control plane stops patching from a base whose patches devices could not use; a row gone starts it again",
      List.of("app_id", "base_update_id", "update_id", "platform")),
  /** Walked by key: a small table without a time index. */
  DEAD_LETTERS("ingest_dead_letters", "dead-letters", "dead_lettered_at", Walk.KEY_RANGE, Duration.ofDays(7),
      "kept for an operator to look at and replay", List.of("topic", "kafka_partition", "record_offset"));

  /** How a batch finds the rows older than the cutoff. */
  enum Walk {
    /** The oldest rows by an index on the time column, {@code batch} at most. */
    TIME_INDEX,
    /**
     * The next {@code batch} rows in primary-key order after the previous batch's last key, of which the
     * old ones are deleted: one pass over the table per run, each batch a bounded index range.
     */
    KEY_RANGE
  }

  final String table;
  /** The flag's suffix: {@code --postgres-retention-<suffix>}. */
  final String suffix;
  final String timeColumn;
  final Walk walk;
  /** The shortest retention accepted. */
  final Duration minimum;
  /** Why the minimum, for the refusal. */
  final String why;
  final List<String> keys;
  /** Whether deleting a row moves a device out of {@code device_counts} (the registry only). */
  final boolean countsDevices;
  /**
   * Whether its rows are counted by {@link SetCounts} (receipts and failures): the delete then returns the
   * pairs it deleted (app, update, client, platform and, for a receipt, its minute) instead of a count.
   */
  final boolean countsPairs;

  /**
   * {@link Walk#KEY_RANGE}: the last key of the next {@code batch} rows. Parameters: the previous last key
   * (one per key column; absent in {@link #rangeEndFirstSql}), then the batch size.
   */
  final String rangeEndSql;
  final String rangeEndFirstSql;
  /**
   * Deletes one batch. {@link Walk#KEY_RANGE}: parameters the previous last key (absent in
   * {@link #deleteFirstSql}), the range's last key, the cutoff. {@link Walk#TIME_INDEX}: the cutoff, the
   * batch size. Returns one row with the rows deleted, or for {@link #DEVICES} one row per counting key of
   * {@code device_counts} with minus the devices that left it (the layout of {@code BatchWriter}'s moves).
   */
  final String deleteSql;
  final String deleteFirstSql;

  RetainedTable(String table, String suffix, String timeColumn, Walk walk, Duration minimum, String why, List<String> keys) {
    this.table = table;
    this.suffix = suffix;
    this.timeColumn = timeColumn;
    this.walk = walk;
    this.minimum = minimum;
    this.why = why;
    this.keys = List.copyOf(keys);
    this.countsDevices = "devices".equals(table);
    this.countsPairs = "update_receipts".equals(table) || "update_failures".equals(table);
    int k = keys.size();
    String cols = String.join(", ", keys);
    String lower = "(" + cols + ") > (" + params(1, k) + ")";
    // no switch here: a switch over an enum in an enum's constructor initialises the switch table of this
    // enum's own constants, which do not exist yet
    boolean byKey = walk == Walk.KEY_RANGE;
    this.rangeEndFirstSql = byKey ? rangeEnd(null, "$1") : null;
    this.rangeEndSql = byKey ? rangeEnd(lower, "$" + (k + 1)) : null;
    this.deleteFirstSql = byKey
        ? delete("(" + cols + ") <= (" + params(1, k) + ") AND " + timeColumn + " < $" + (k + 1), "")
        : delete(timeColumn + " < $1", " ORDER BY " + timeColumn + " LIMIT $2");
    this.deleteSql = byKey
        ? delete(lower + " AND (" + cols + ") <= (" + params(k + 1, k) + ") AND " + timeColumn + " < $" + (2 * k + 1), "")
        : deleteFirstSql;
  }

  /** {@code --postgres-retention-<suffix>}. */
  String flag() {
    return RetentionConfig.FLAG + "-" + suffix;
  }

  /**
   * The time one row covers after its time column: an hour of {@code update_hourly} is deleted once all of
   * it is older than the cutoff, never while its last minutes are still within the retention.
   */
  Duration span() {
    return switch (this) {
      case HOURLY -> Duration.ofHours(1);
      case DEVICES, RECEIPTS, FAILURES, CRASHES, REJECTS, ERRORS, FUNNEL, KEY_ASKS, PATCH_OUTCOMES, DEAD_LETTERS -> Duration.ZERO;
    };
  }

  private String rangeEnd(String after, String limit) {
    String cols = String.join(", ", keys);
    StringJoiner desc = new StringJoiner(", ");
    for (String c : keys) {
      desc.add(c + " DESC");
    }
    return "SELECT " + cols + " FROM (SELECT " + cols + " FROM " + table + (after == null ? "" : " WHERE " + after)
        + " ORDER BY " + cols + " LIMIT " + limit + ") s ORDER BY " + desc + " LIMIT 1";
  }

  private String delete(String where, String orderAndLimit) {
    String cols = String.join(", ", keys);
    StringJoiner join = new StringJoiner(" AND ");
    for (String c : keys) {
      join.add("x." + c + " = v." + c);
    }
    String victims = "WITH v AS (SELECT " + cols + " FROM " + table + " WHERE " + where + orderAndLimit
        + " FOR UPDATE SKIP LOCKED),"
        + " gone AS (DELETE FROM " + table + " x USING v WHERE " + join + " RETURNING ";
    if (countsDevices) {
      // each device leaves its counting key (update, platform, channel, source), as BatchWriter.DEVICES_SQL forms it
      return victims
          + "x.app_id, coalesce(x.current_update_id, '') AS update_id, x.platform, coalesce(x.channel, '') AS channel,"
          + " x.source)"
          + " SELECT app_id, update_id, platform, channel, source, -count(*) FROM gone"
          + " GROUP BY app_id, update_id, platform, channel, source";
    }
    if (countsPairs) {
      String minute = "update_receipts".equals(table) ? ", " + SetCounts.minuteMillis("x.first_served") : "";
      return victims + "x.app_id, x.update_id, x.client_id, x.platform" + minute + ") SELECT * FROM gone";
    }
    return victims + "1) SELECT count(*) FROM gone";
  }

  private static String params(int first, int n) {
    StringJoiner j = new StringJoiner(", ");
    for (int i = 0; i < n; i++) {
      j.add("$" + (first + i));
    }
    return j.toString();
  }
}
