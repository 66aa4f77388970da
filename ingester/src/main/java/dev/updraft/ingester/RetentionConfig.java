package dev.updraft.ingester;

import dev.updraft.common.ConfigException;
import dev.updraft.common.FlagTable;
import dev.updraft.common.Settings;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How long the ingester keeps telemetry rows in PostgreSQL, per table, and how its retention job runs
 * (see {@code RetentionJob}). Read at start with the rest of {@link IngesterConfig}. Immutable.
 *
 * <p>Off by default: without a flag nothing is ever deleted, as before the flags existed. Deleting is
 * irreversible, and the history an operator wants depends on the insights and audits they run, so an
 * upgrade must not start deleting rows nobody asked to delete. {@code --postgres-retention 90d} keeps
 * every table 90 days; a table's own flag overrides it, {@code off} keeps that table for ever.
 *
 * <p>The flags are not called {@code --telemetry-retention}: that is the control plane's flag for the
 * Kafka topic (3 days by default), and the launcher's dev stack and the Kubernetes ConfigMap hand the same
 * environment to both processes, so a shared name would start deleting PostgreSQL rows older than the
 * topic's retention.
 *
 * <p>One duration per {@link RetainedTable} ({@code --postgres-retention-<suffix>}, null keeps that table for
 * ever), {@code --postgres-retention-interval} (from the end of one run to the start of the next) and
 * {@code --postgres-retention-batch} (rows one transaction deletes at most and, for the tables walked by key,
 * reads).
 */
public final class RetentionConfig {

  public static final String FLAG = "postgres-retention";
  public static final String INTERVAL_FLAG = "postgres-retention-interval";
  public static final String BATCH_FLAG = "postgres-retention-batch";
  /** The word that keeps a table for ever. */
  public static final String OFF = "off";
  public static final Duration DEFAULT_INTERVAL = Duration.ofHours(1);
  public static final Duration MIN_INTERVAL = Duration.ofMinutes(1);
  public static final Duration MAX_INTERVAL = Duration.ofDays(7);
  /** Small enough that one batch's locks and WAL are brief next to an ingest batch, large enough to keep up. */
  public static final int DEFAULT_BATCH_SIZE = 5_000;
  public static final int MAX_BATCH_SIZE = 100_000;

  /** Nothing deleted. */
  public static final RetentionConfig NONE =
      new RetentionConfig(new EnumMap<>(RetainedTable.class), DEFAULT_INTERVAL, DEFAULT_BATCH_SIZE);

  /** Every retention flag (names without the leading dashes). */
  public static final Set<String> FLAGS = table().names();

  /** The tables with a retention, to how long they are kept. */
  private final Map<RetainedTable, Duration> keep;
  private final Duration interval;
  private final int batchSize;

  private RetentionConfig(Map<RetainedTable, Duration> keep, Duration interval, int batchSize) {
    for (Map.Entry<RetainedTable, Duration> e : keep.entrySet()) {
      RetainedTable t = e.getKey();
      if (e.getValue().compareTo(t.minimum) < 0) {
        throw new ConfigException(
            describe(t.flag()) + " must be at least " + format(t.minimum) + " (" + t.why + ") or " + OFF + ": got "
                + format(e.getValue()));
      }
    }
    if (interval == null || interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) > 0) {
      throw new ConfigException(describe(INTERVAL_FLAG) + " must be between 1m and 7d: got " + format(interval));
    }
    if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      throw new ConfigException(describe(BATCH_FLAG) + " must be between 1 and " + MAX_BATCH_SIZE + ": got " + batchSize);
    }
    this.keep = Collections.unmodifiableMap(new EnumMap<>(keep));
    this.interval = interval;
    this.batchSize = batchSize;
  }

  /**
   * Reads the retention flags. A table's own flag wins over {@code --postgres-retention}; a value taken
   * from the general flag that is too short for a table is refused naming both flags.
   */
  public static RetentionConfig from(Settings s) {
    Duration general = keep(s, FLAG);
    Map<RetainedTable, Duration> keep = new EnumMap<>(RetainedTable.class);
    for (RetainedTable t : RetainedTable.values()) {
      Duration d = s.has(t.flag()) ? keep(s, t.flag()) : general;
      if (!s.has(t.flag()) && d != null && d.compareTo(t.minimum) < 0) {
        throw new ConfigException(
            describe(FLAG) + " is " + format(d) + ", which would apply to " + t.table + ": " + t.table + " must be kept at least "
                + format(t.minimum) + " (" + t.why + "); give " + describe(t.flag()) + " " + format(t.minimum)
                + " or longer (or " + OFF + ")");
      }
      if (d != null) {
        keep.put(t, d);
      }
    }
    return new RetentionConfig(keep, s.duration(INTERVAL_FLAG, DEFAULT_INTERVAL),
        s.integer(BATCH_FLAG, DEFAULT_BATCH_SIZE, 1, MAX_BATCH_SIZE));
  }

  /** Whether any table has a retention (otherwise no job runs). */
  public boolean enabled() {
    return !keep.isEmpty();
  }

  /** How long {@code table} is kept, or null for ever. */
  Duration keep(RetainedTable table) {
    return keep.get(table);
  }

  /** The tables with a retention (their PostgreSQL names) to how long they are kept, in the order they are worked. */
  public Map<String, Duration> tables() {
    Map<String, Duration> m = new java.util.LinkedHashMap<>();
    keep.forEach((t, d) -> m.put(t.table, d));
    return Collections.unmodifiableMap(m);
  }

  /** From the end of one run to the start of the next ({@code --postgres-retention-interval}). */
  public Duration interval() {
    return interval;
  }

  /** Rows one transaction deletes at most ({@code --postgres-retention-batch}). */
  public int batchSize() {
    return batchSize;
  }

  private static Duration keep(Settings s, String flag) {
    String v = s.raw(flag);
    if (v == null || OFF.equals(v.toLowerCase(Locale.ROOT))) {
      return null;
    }
    try {
      return Settings.parseDuration(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(describe(flag) + " must be a duration like 90d or 12h, or " + OFF + ": got '" + v + "'");
    }
  }

  private static String describe(String flag) {
    return "--" + flag + " (" + Settings.envName(flag) + ")";
  }

  /** {@code 90d}, {@code 36h}, {@code 90m}, {@code 30s} or {@code 250ms}: the largest unit that is exact. */
  static String format(Duration d) {
    if (d == null) {
      return OFF;
    }
    long ms = d.toMillis();
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms != 0 && ms % units[i] == 0) {
        return ms / units[i] + names[i];
      }
    }
    return ms + "ms";
  }

  /** The retention flags, declared once: the ingester's table includes them. */
  static FlagTable table() {
    FlagTable.Builder t = FlagTable.builder();
    t.custom(FLAG, OFF, "duration \\| off", "How long every telemetry table keeps its rows (`90d`, `36h`; `off`): see"
        + " [Retention](#retention).");
    for (RetainedTable r : RetainedTable.values()) {
      t.custom(r.flag(), "`--" + FLAG + "`", "duration (at least " + format(r.minimum) + ") \\| off",
          "`" + r.table + "`, by `" + r.timeColumn + "` (" + r.why + ").");
    }
    t.duration(INTERVAL_FLAG, DEFAULT_INTERVAL, null, null, "From the end of one retention run to the start of the next (1m–7d).");
    t.integer(BATCH_FLAG, DEFAULT_BATCH_SIZE, 1, MAX_BATCH_SIZE, "rows", "Most rows one retention transaction deletes (and, for the"
        + " tables walked by key, reads).");
    return t.build();
  }

  @Override
  public String toString() {
    if (!enabled()) {
      return OFF;
    }
    StringBuilder sb = new StringBuilder("[");
    for (RetainedTable t : RetainedTable.values()) {
      sb.append(t.suffix).append('=').append(format(keep(t))).append(", ");
    }
    return sb.append("interval=").append(format(interval)).append(", batch=").append(batchSize).append(']').toString();
  }
}
