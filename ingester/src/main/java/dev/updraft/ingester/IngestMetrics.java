package dev.updraft.ingester;

import dev.updraft.ingester.funnel.FunnelKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ingester's meters. Names (Prometheus form in brackets):
 *
 * <ul>
 *   <li>{@code updraft.ingest.records} [{@code updraft_ingest_records_total}]: check-ins committed to
 *       PostgreSQL
 *   <li>{@code updraft.ingest.device.rows} [{@code updraft_ingest_device_rows_total}]: device rows written
 *       (check-ins of one device in a batch collapse into one)
 *   <li>{@code updraft.ingest.batches} [{@code updraft_ingest_batches_total}]: transactions committed
 *   <li>{@code updraft.ingest.batch.size} [{@code updraft_ingest_batch_size_records}]: Kafka records per
 *       committed batch
 *   <li>{@code updraft.ingest.pg.time} [{@code updraft_ingest_pg_time_seconds}]: time of one batch's
 *       transaction, committed or not
 *   <li>{@code updraft.ingest.delay} [{@code updraft_ingest_delay_seconds}]: per committed batch, commit
 *       time minus the edge time of its oldest check-in
 *   <li>{@code updraft.ingest.lag} [{@code updraft_ingest_lag_records}]: records behind the log end,
 *       counted from the offsets stored in PostgreSQL, summed over this instance's partitions (refreshed
 *       every second). The log end is the one the consumer's last fetch reported (a fetch waits up to the
 *       linger), so 0 does not mean that a check-in Kafka acknowledged a moment ago is stored: to know that,
 *       compare {@code ingest_offsets} with the topic's end offsets read after the acknowledgement
 *   <li>{@code updraft.ingest.decode.errors} [{@code updraft_ingest_decode_errors_total}]: records skipped
 *       because they are not check-ins (each is also kept in {@code ingest_rejects})
 *   <li>{@code updraft.ingest.pg.failures} [{@code updraft_ingest_pg_failures_total}]: failed writes or
 *       offset reads (PostgreSQL down, slow, or refusing)
 *   <li>{@code updraft.ingest.pg.retries} [{@code updraft_ingest_pg_retries_total}]: writes retried
 *   <li>{@code updraft.ingest.dead.letters} [{@code updraft_ingest_dead_letters_total}]: check-ins PostgreSQL
 *       refused alone after {@code --ingest-max-attempts} failed writes of their batch, set aside in
 *       {@code ingest_dead_letters} ({@link DeadLetters})
 *   <li>{@code updraft.ingest.stale.batches} [{@code updraft_ingest_stale_batches_total}]: batches not
 *       applied because PostgreSQL's offsets had moved (already written, or another instance took over)
 *   <li>{@code updraft.ingest.paused} [{@code updraft_ingest_paused}]: 1 while consumption is paused
 *       because PostgreSQL cannot be written
 *   <li>{@code updraft.ingest.partitions} [{@code updraft_ingest_partitions}]: partitions assigned to this
 *       instance's consumers
 *   <li>{@code updraft.ingest.batch.inflight} [{@code updraft_ingest_batch_inflight_records}]: Kafka records
 *       of the batches whose transaction is running now (0 between batches)
 *   <li>{@code updraft.ingest.funnel.rows.skipped} [{@code updraft_ingest_funnel_rows_skipped_total}]: download funnel
 *       rows committed batches did not send, the process knowing them written ({@link FunnelKeys})
 *   <li>{@code updraft.ingest.funnel.keys} [{@code updraft_ingest_funnel_keys}]: funnel keys the process remembers
 *       (at most {@code --ingest-funnel-cache}; one used again lately may count twice)
 * </ul>
 *
 * Thread-safe (Micrometer meters and atomics).
 */
final class IngestMetrics {
  final Counter records;
  final Counter deviceRows;
  final Counter batches;
  final DistributionSummary batchSize;
  final Timer pgTime;
  final Timer delay;
  final Counter decodeErrors;
  final Counter warmupSkipped;
  final Counter pgFailures;
  final Counter pgRetries;
  final Counter staleBatches;
  final Counter expired;
  final Counter deadLetters;
  final Counter funnelSkipped;
  private final List<Loop> loops = new CopyOnWriteArrayList<>();

  /** The gauges of one consumer loop; the registered gauges add them up over the loops. */
  static final class Loop {
    final AtomicLong lag = new AtomicLong();
    final AtomicLong paused = new AtomicLong();
    final AtomicLong partitions = new AtomicLong();
    final AtomicLong inflight = new AtomicLong();
  }

  /** Meters without funnel keys (tests). */
  IngestMetrics(MeterRegistry r) {
    this(r, FunnelKeys.OFF);
  }

  IngestMetrics(MeterRegistry r, FunnelKeys funnelKeys) {
    records = Counter.builder("updraft.ingest.records").description("check-ins committed to PostgreSQL").register(r);
    deviceRows =
        Counter.builder("updraft.ingest.device.rows").description("device rows written after collapsing a batch").register(r);
    batches = Counter.builder("updraft.ingest.batches").description("batches committed").register(r);
    batchSize =
        DistributionSummary.builder("updraft.ingest.batch.size")
            .baseUnit("records")
            .description("Kafka records per committed batch")
            .register(r);
    pgTime =
        Timer.builder("updraft.ingest.pg.time").description("time of one batch transaction in PostgreSQL").register(r);
    delay =
        Timer.builder("updraft.ingest.delay")
            .description("commit time minus the edge time of the batch's oldest check-in")
            .register(r);
    decodeErrors =
        Counter.builder("updraft.ingest.decode.errors").description("records that are not check-ins, skipped").register(r);
    warmupSkipped =
        Counter.builder("updraft.ingest.warmup.skipped")
            .description("check-ins an edge sent to warm itself up (header updraft-warmup), skipped")
            .register(r);
    pgFailures =
        Counter.builder("updraft.ingest.pg.failures").description("failed PostgreSQL writes or offset reads").register(r);
    pgRetries = Counter.builder("updraft.ingest.pg.retries").description("batch writes retried").register(r);
    staleBatches =
        Counter.builder("updraft.ingest.stale.batches")
            .description("batches not applied because the offsets in PostgreSQL had moved")
            .register(r);
    expired =
        Counter.builder("updraft.ingest.checkins.expired")
            .description("check-ins deleted from the telemetry topic by its retention before they were stored: lost")
            .register(r);
    deadLetters =
        Counter.builder("updraft.ingest.dead.letters")
            .description("check-ins PostgreSQL refused every time, set aside in ingest_dead_letters: not counted until replayed")
            .register(r);
    funnelSkipped =
        Counter.builder("updraft.ingest.funnel.rows.skipped")
            .description("download funnel rows not sent to PostgreSQL: known written (--ingest-funnel-cache)")
            .register(r);
    Gauge.builder("updraft.ingest.funnel.keys", funnelKeys, FunnelKeys::size)
        .description("download funnel keys remembered as written (--ingest-funnel-cache)")
        .register(r);
    Gauge.builder("updraft.ingest.lag", this, IngestMetrics::lag)
        .baseUnit("records")
        .description("records behind the log end, from the offsets stored in PostgreSQL")
        .register(r);
    Gauge.builder("updraft.ingest.paused", this, IngestMetrics::paused)
        .description("1 while consumption is paused because PostgreSQL cannot be written")
        .register(r);
    Gauge.builder("updraft.ingest.partitions", this, IngestMetrics::partitions)
        .description("telemetry partitions assigned to this instance")
        .register(r);
    Gauge.builder("updraft.ingest.batch.inflight", this, IngestMetrics::inflight)
        .baseUnit("records")
        .description("records of the batches being written to PostgreSQL now")
        .register(r);
  }

  /** Counts a batch committed at {@code nowMillis} with {@code deviceRows} device rows. */
  void committed(Batch b, int deviceRows, long nowMillis) {
    records.increment(b.checkIns());
    this.deviceRows.increment(deviceRows);
    batches.increment();
    batchSize.record(b.records());
    if (b.checkIns() > 0) {
      delay.record(Math.max(0, nowMillis - b.oldestAt()), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }

  /** Gauges for one more consumer loop. */
  Loop newLoop() {
    Loop l = new Loop();
    loops.add(l);
    return l;
  }

  /** Records behind the log end, over every loop. */
  double lag() {
    long s = 0;
    for (Loop l : loops) {
      s += l.lag.get();
    }
    return s;
  }

  /** 1 while any loop is paused because PostgreSQL cannot be written. */
  double paused() {
    for (Loop l : loops) {
      if (l.paused.get() != 0) {
        return 1;
      }
    }
    return 0;
  }

  /** Records of the batches being written now, over every loop. */
  double inflight() {
    long s = 0;
    for (Loop l : loops) {
      s += l.inflight.get();
    }
    return s;
  }

  /** Partitions assigned to the loops. */
  double partitions() {
    long s = 0;
    for (Loop l : loops) {
      s += l.partitions.get();
    }
    return s;
  }
}
