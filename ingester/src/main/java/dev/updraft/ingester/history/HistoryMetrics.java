package dev.updraft.ingester.history;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The history projection's meters, on the ingester's registry (Prometheus form in brackets):
 *
 * <ul>
 *   <li>{@code updraft.history.events} [{@code updraft_history_events_total}]: events of
 *       {@code updraft.events} committed (projected or skipped)
 *   <li>{@code updraft.history.audit.rows} [{@code updraft_history_audit_rows_total}]: audit rows written
 *   <li>{@code updraft.history.group.rows} [{@code updraft_history_group_rows_total}]: group rows inserted or
 *       changed (published, rollout changed, pinned, deleted)
 *   <li>{@code updraft.history.skipped} [{@code updraft_history_skipped_total}]: events skipped (of an app never
 *       created, duplicates, and records that are not events)
 *   <li>{@code updraft.history.decode.errors} [{@code updraft_history_decode_errors_total}]: records that are
 *       not events (logged with partition and offset)
 *   <li>{@code updraft.history.batches} [{@code updraft_history_batches_total}]: transactions committed
 *   <li>{@code updraft.history.pg.time} [{@code updraft_history_pg_time_seconds}]: time of one batch's transaction
 *   <li>{@code updraft.history.pg.failures} [{@code updraft_history_pg_failures_total}]: failed writes or offset
 *       reads (the batch is read again after a backoff)
 *   <li>{@code updraft.history.stale.batches} [{@code updraft_history_stale_batches_total}]: batches refused
 *       because PostgreSQL's offsets had moved (another instance took the partitions over)
 *   <li>{@code updraft.history.lag} [{@code updraft_history_lag_records}]: events behind the log end, counted
 *       from the offsets stored in PostgreSQL (refreshed every second)
 * </ul>
 *
 * Thread-safe.
 */
final class HistoryMetrics {
  final Counter events;
  final Counter auditRows;
  final Counter groupRows;
  final Counter skipped;
  final Counter decodeErrors;
  final Counter batches;
  final Timer pgTime;
  final Counter pgFailures;
  final Counter staleBatches;
  final AtomicLong lag = new AtomicLong();
  final AtomicLong partitions = new AtomicLong();

  HistoryMetrics(MeterRegistry r) {
    events = Counter.builder("updraft.history.events").description("events of updraft.events committed to the history projection").register(r);
    auditRows = Counter.builder("updraft.history.audit.rows").description("audit rows written").register(r);
    groupRows = Counter.builder("updraft.history.group.rows").description("update group rows inserted or changed").register(r);
    skipped = Counter.builder("updraft.history.skipped").description("events skipped: unknown app, duplicate, not an event").register(r);
    decodeErrors = Counter.builder("updraft.history.decode.errors").description("records of updraft.events that are not events").register(r);
    batches = Counter.builder("updraft.history.batches").description("history batches committed").register(r);
    pgTime = Timer.builder("updraft.history.pg.time").description("time of one history batch transaction").register(r);
    pgFailures = Counter.builder("updraft.history.pg.failures").description("failed history writes or offset reads").register(r);
    staleBatches =
        Counter.builder("updraft.history.stale.batches").description("history batches refused because the stored offsets moved").register(r);
    Gauge.builder("updraft.history.lag", lag, AtomicLong::get).baseUnit("records")
        .description("events behind the log end, from the offsets stored in PostgreSQL").register(r);
    Gauge.builder("updraft.history.partitions", partitions, AtomicLong::get)
        .description("partitions of updraft.events assigned to this instance's history consumer").register(r);
  }
}
