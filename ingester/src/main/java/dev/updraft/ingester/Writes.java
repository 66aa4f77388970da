package dev.updraft.ingester;

import dev.updraft.common.loop.LoopClock;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side of one {@link IngestLoop}: at most one batch write in flight, the batch PostgreSQL failed (kept and
 * retried after {@link PgHealth}'s backoff, or set aside record by record by {@link DeadLetters} once refused for its
 * data), and what a commit does (the positions move on, Kafka is told for operators' tools). When what PostgreSQL
 * holds no longer matches (a stale batch, records that could not be set aside), the loop is asked to read on from the
 * stored offsets ({@link IngestLoop#resetToStored()}).
 *
 * <p>Not thread-safe: the loop's consumer thread only.
 */
final class Writes {
  private static final Logger LOG = LoggerFactory.getLogger(Writes.class);
  static final long WRITE_TIMEOUT_MS = 60_000;

  private final IngestLoop loop;
  private final Consumer<byte[], byte[]> consumer;
  private final BatchWriter writer;
  private final IngestMetrics metrics;
  private final IngestMetrics.Loop gauges;
  private final PgHealth health;
  private final Partitions partitions;
  private final DeadLetters deadLetters;
  private final IngestLoop.Hook hook;
  private final IngestLoop.CommitListener listener;
  private final LoopClock clock;

  private Flight inflight;
  /** A batch whose write failed, to be retried before anything else is written. */
  private Batch failed;

  Writes(IngestLoop loop, Consumer<byte[], byte[]> consumer, BatchWriter writer, IngestMetrics metrics, IngestMetrics.Loop gauges,
      PgHealth health, Partitions partitions, DeadLetters deadLetters, IngestLoop.Hook hook, IngestLoop.CommitListener listener,
      LoopClock clock) {
    this.loop = loop;
    this.consumer = consumer;
    this.writer = writer;
    this.metrics = metrics;
    this.gauges = gauges;
    this.health = health;
    this.partitions = partitions;
    this.deadLetters = deadLetters;
    this.hook = hook;
    this.listener = listener;
    this.clock = clock;
  }

  /** Whether a write is running. */
  boolean running() {
    return inflight != null;
  }

  /** Whether a batch PostgreSQL failed is held for a retry. */
  boolean failing() {
    return failed != null;
  }

  /** Records of the failed batch held (0: none). */
  int failedRecords() {
    return failed == null ? 0 : failed.records();
  }

  void start(Batch b) {
    long t0 = clock.nanoTime();
    CompletableFuture<Integer> result = writer.write(b).toCompletionStage().toCompletableFuture();
    result.whenComplete((rows, err) -> metrics.pgTime.record(clock.nanoTime() - t0, TimeUnit.NANOSECONDS));
    inflight = new Flight(b, result);
    gauges.inflight.set(b.records());
  }

  /** Writes the failed batch again when its backoff is over (no write running); returns whether it started. */
  boolean retryIfDue() {
    if (failed == null || inflight != null || !health.retryDue(clock.nanoTime())) {
      return false;
    }
    metrics.pgRetries.increment();
    Batch b = failed;
    failed = null;
    start(b);
    return true;
  }

  /** Writes the failed batch again now, once, and waits for it (on stop). */
  void retryNow() {
    if (failed != null) {
      Batch b = failed;
      failed = null;
      start(b);
      complete(true);
    }
  }

  /**
   * Handles the end of the running write.
   *
   * @param block wait for it (up to {@link #WRITE_TIMEOUT_MS}); otherwise return at once when it is running
   */
  void complete(boolean block) {
    Flight f = inflight;
    Flight.End end = f.end(block, WRITE_TIMEOUT_MS);
    if (end == null) {
      return;
    }
    Integer rows = end.rows();
    Throwable err = end.err();
    inflight = null;
    gauges.inflight.set(0);
    if (err == null) {
      committed(f.batch(), rows);
    } else if (err instanceof BatchWriter.StaleBatchException) {
      metrics.staleBatches.increment();
      pgRecovered();
      LOG.warn("{}; dropping uncommitted check-ins and reading on from the offsets stored in PostgreSQL", err.getMessage());
      loop.resetToStored();
    } else {
      writeFailed(f.batch(), err);
    }
  }

  private void committed(Batch b, int deviceRows) {
    hook.at(IngestLoop.Point.AFTER_COMMIT, loop);
    long nowMillis = System.currentTimeMillis();
    metrics.committed(b, deviceRows, nowMillis);
    stored(b);
    if (listener != null) {
      listener.committed(nowMillis, b.times());
    }
  }

  /** {@code b}'s offsets are in PostgreSQL: reads on from them. */
  private void stored(Batch b) {
    deadLetters.reset();
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    Set<TopicPartition> assigned = consumer.assignment();
    for (Map.Entry<TopicPartition, Batch.Range> e : b.ranges().entrySet()) {
      if (assigned.contains(e.getKey())) {
        partitions.stored(e.getKey(), e.getValue().next);
        commit.put(e.getKey(), new OffsetAndMetadata(e.getValue().next));
      }
    }
    health.succeeded();
    pgRecovered();
    if (!commit.isEmpty()) {
      // for operators' tools only (kafka-consumer-groups): PostgreSQL holds the positions that count
      consumer.commitAsync(
          commit,
          (offsets, e) -> {
            if (e != null) {
              LOG.debug("informational Kafka offset commit failed: {}", e.toString());
            }
          });
    }
  }

  private void writeFailed(Batch b, Throwable err) {
    metrics.pgFailures.increment();
    if (deadLetters.exhausted(err)) {
      Throwable left = deadLetters.isolate(b, err);
      if (left == null) {
        stored(b); // every record stored or set aside
      } else {
        LOG.warn("setting aside refused records stopped ({}); reading on from the offsets stored in PostgreSQL", left.toString());
        loop.resetToStored();
      }
      return;
    }
    failed = b;
    health.failed("writing a batch of " + b.records() + " records (ranges=" + BatchWriter.describe(b) + ")", err);
  }

  /** Ends a PostgreSQL outage unless a failed batch is still held. */
  void pgRecovered() {
    if (failed == null) {
      health.recovered();
    }
  }

  /** Forgets the failed batch and abandons the running write: whatever it does, the stored offsets say where to resume. */
  void reset() {
    deadLetters.reset();
    failed = null;
    inflight = null;
    gauges.inflight.set(0);
  }
}
