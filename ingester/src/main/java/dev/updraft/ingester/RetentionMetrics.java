package dev.updraft.ingester;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The retention job's meters, registered only when retention is on. Names (Prometheus form in brackets):
 *
 * <ul>
 *   <li>{@code updraft.retention.rows} [{@code updraft_retention_rows_total{table}}]: rows deleted, per
 *       table ({@code devices}, {@code update_receipts}, ...)
 *   <li>{@code updraft.retention.batches} [{@code updraft_retention_batches_total{table}}]: transactions
 *       committed, per table
 *   <li>{@code updraft.retention.runs} [{@code updraft_retention_runs_total{outcome}}]: runs that
 *       {@code completed}, were {@code skipped} (another ingester held the retention lock) or {@code failed}
 *       (PostgreSQL refused or was unreachable; the next run starts over)
 *   <li>{@code updraft.retention.duration} [{@code updraft_retention_duration_seconds}]: time of each
 *       completed run
 *   <li>{@code updraft.retention.last.completed} [{@code updraft_retention_last_completed_seconds}]: end
 *       of the last completed run, seconds since the epoch (0: none yet)
 * </ul>
 *
 * Thread-safe.
 */
final class RetentionMetrics {
  private final Map<RetainedTable, Counter> rows = new EnumMap<>(RetainedTable.class);
  private final Map<RetainedTable, Counter> batches = new EnumMap<>(RetainedTable.class);
  final Counter completed;
  final Counter skipped;
  final Counter failed;
  final Timer duration;
  final AtomicLong lastCompletedSeconds = new AtomicLong();

  RetentionMetrics(MeterRegistry r) {
    for (RetainedTable t : RetainedTable.values()) {
      rows.put(t, Counter.builder("updraft.retention.rows").tag("table", t.table)
          .description("telemetry rows deleted by retention").register(r));
      batches.put(t, Counter.builder("updraft.retention.batches").tag("table", t.table)
          .description("retention transactions committed").register(r));
    }
    completed = run(r, "completed");
    skipped = run(r, "skipped");
    failed = run(r, "failed");
    duration = Timer.builder("updraft.retention.duration").description("time of a completed retention run").register(r);
    Gauge.builder("updraft.retention.last.completed", lastCompletedSeconds, AtomicLong::get)
        .baseUnit("seconds")
        .description("end of the last completed retention run, seconds since the epoch")
        .register(r);
  }

  private static Counter run(MeterRegistry r, String outcome) {
    return Counter.builder("updraft.retention.runs").tag("outcome", outcome).description("retention runs").register(r);
  }

  /** One committed batch of {@code table} that deleted {@code deleted} rows. */
  void batch(RetainedTable table, long deleted) {
    batches.get(table).increment();
    rows.get(table).increment(deleted);
  }
}
