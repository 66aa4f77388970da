package dev.updraft.ingester;

import dev.updraft.common.KafkaRefusal;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingester's consumer loop, run by one dedicated thread (never an event loop): poll, decode, fold
 * into a {@link Batch}, write the batch with its offsets in one PostgreSQL transaction.
 *
 * <h2>Exactly once</h2>
 * PostgreSQL, not Kafka, holds the consumed positions ({@code ingest_offsets}). A newly assigned partition
 * stays paused until its stored offset has been read and the consumer seeked there ({@link Partitions}; a
 * partition with no stored offset starts at the beginning of the log). Every batch records, per partition, the offset it
 * starts from and the one after its last record; {@link BatchWriter} applies it only if PostgreSQL still
 * holds the start offset. A crash at any point therefore loses nothing (what was not committed is read
 * again) and counts nothing twice (what was committed moved the offsets, so a replay of it is refused).
 *
 * <h2>Smart batching</h2>
 * One write per loop is in flight at a time while the next batch fills (a process runs
 * {@code --ingest-consumers} loops, each with its own partitions, so PostgreSQL works on several). When no
 * write is running, the batch is written once its oldest record has waited {@code --ingest-linger} since it
 * was sent (its Kafka timestamp: the wait in the edge's producer and in a fetch counts; 0: at the end of the
 * poll that brought it) or it reached the size cap; while a write runs, it keeps filling until that write
 * ends, the size cap is reached, or its first record has waited {@code --ingest-batch-wait} in the batch
 * (then the loop waits for the running write). So batches grow with PostgreSQL's latency and the decode
 * work overlaps the database; at a low rate the linger makes a transaction carry a linger's worth of
 * check-ins rather than one poll's, and a check-in waits about the linger (plus a write) from its send to its
 * commit: the fetch may wait up to the linger too ({@code fetch.max.wait.ms}), and that wait is part of the
 * linger, not added to it.
 * Stopping and handing partitions over write what is held at once, lingering or not.
 *
 * <h2>PostgreSQL down or slow</h2>
 * A failed write keeps its batch, pauses every partition, and is retried with exponential backoff
 * (100 ms to 5 s, {@link PgHealth}) while the loop keeps polling (so the group keeps the instance) and
 * reports lag; the first success resumes consumption. A batch PostgreSQL refuses for its data
 * {@code --ingest-max-attempts} times is written in halves and the records refused alone are set aside
 * ({@link DeadLetters}), so one record never stalls its partition. Decoding never fails the loop ({@link Intake}): a
 * record that is not a check-in is counted, logged with its topic, partition and offset, stored in
 * {@code ingest_rejects} by the same transaction, and skipped. Partitions moved by the group are handled
 * by {@link Rebalance}.
 *
 * <p>Not thread-safe except {@link #stop()}, {@link #halt()} and {@link #exited()}, which any thread may
 * call.
 */
final class IngestLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestLoop.class);

  /** Named points of the loop where tests inject faults (a thrown {@link Error} stops the loop at once). */
  enum Point {
    /** After a poll's records were added to the batch, before any write is started or completed. */
    AFTER_POLL,
    /** After PostgreSQL confirmed a batch's commit, before the loop updated anything of its own. */
    AFTER_COMMIT
  }

  /** Fault injection for tests; called on the consumer thread. */
  interface Hook {
    Hook NONE = (point, loop) -> {};

    void at(Point point, IngestLoop loop);
  }

  /** Told of every committed batch (benchmarks); called on the consumer thread. */
  interface CommitListener {
    /**
     * @param commitMillis wall-clock time the commit was seen
     * @param checkInTimes the edge times of the batch's check-ins
     */
    void committed(long commitMillis, long[] checkInTimes);
  }

  static final long WRITE_TIMEOUT_MS = 60_000;

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final BatchWriter writer;
  private final IngestMetrics metrics;
  private final IngestMetrics.Loop gauges;
  private final PgHealth health;
  private final Partitions partitions;
  private final Intake intake;
  private final DeadLetters deadLetters;
  private final Hook hook;
  private final CommitListener listener;
  private final int batchSize;
  private final long batchWaitNanos;
  private final long lingerNanos;
  private final CompletableFuture<Void> exited = new CompletableFuture<>();
  private volatile boolean stopping;
  /** Stop without writing what is held (another loop of the process died abruptly). */
  private volatile boolean halted;

  // consumer-thread state
  private Batch current;
  private Flight inflight;
  /** A batch whose write failed, to be retried before anything else is written. */
  private Batch failed;
  private boolean closing;
  private int loopErrors;
  /** The Kafka refusal last logged (credentials, TLS, an ACL); null once a step succeeds. Loop thread only. */
  private String lastRefusal;
  /** Incremented by every {@link #resetToStored()}. */
  private int resets;

  IngestLoop(
      String topic,
      Consumer<byte[], byte[]> consumer,
      BatchWriter writer,
      IngestMetrics metrics,
      int batchSize,
      int maxAttempts,
      Duration batchWait,
      Duration linger,
      Hook hook,
      CommitListener listener) {
    this.topic = topic;
    this.consumer = consumer;
    this.writer = writer;
    this.metrics = metrics;
    this.gauges = metrics.newLoop();
    this.health = new PgHealth(gauges);
    this.partitions = new Partitions(topic, consumer, writer, metrics, gauges, health);
    this.intake = new Intake(topic, metrics, linger.toNanos());
    this.deadLetters = new DeadLetters(writer, intake, metrics, maxAttempts);
    this.batchSize = batchSize;
    this.batchWaitNanos = batchWait.toNanos();
    this.lingerNanos = linger.toNanos();
    this.hook = hook;
    this.listener = listener;
    this.current = newBatch();
  }

  /** Asks the loop to write what it holds and stop; returns at once. */
  void stop() {
    stopping = true;
    if (!exited.isDone()) {
      try {
        consumer.wakeup();
      } catch (RuntimeException e) {
        LOG.debug("wakeup of a closing consumer: {}", e.toString());
      }
    }
  }

  /** Stops at once without writing what is held, as if the process had died; returns at once. */
  void halt() {
    halted = true;
    stop();
  }

  /** Whether a batch write is running (consumer thread only: for tests' fault injection). */
  boolean writing() {
    return inflight != null;
  }

  /** Completed when the loop's thread is done: normally, or exceptionally when it stopped abruptly. */
  CompletableFuture<Void> exited() {
    return exited;
  }

  @Override
  public void run() {
    Throwable crash = null;
    try {
      consumer.subscribe(List.of(topic), new Rebalance(this, partitions, topic));
      while (!stopping) {
        try {
          step();
          loopErrors = 0;
          lastRefusal = null;
        } catch (WakeupException e) {
          // stop() woke the poll up
        } catch (RuntimeException e) {
          loopError(e);
        }
      }
      if (!halted) {
        drain();
      }
    } catch (Error e) {
      // a VM error, or a simulated crash in a test: stop here and write nothing more
      crash = e;
    } finally {
      closing = true;
      try {
        // after a crash or a halt nothing more is written, but the consumer still gets a moment to leave the
        // group, so that the partitions move on now rather than after the session timeout
        consumer.close(CloseOptions.timeout(crash == null && !halted ? Duration.ofSeconds(5) : Duration.ofSeconds(1)));
      } catch (RuntimeException e) {
        LOG.warn("telemetry consumer did not close cleanly: topic={}", topic, e);
      }
      gauges.partitions.set(0);
      if (crash == null) {
        LOG.info("telemetry ingest loop {}: topic={}", halted ? "halted" : "stopped", topic);
        exited.complete(null);
      } else {
        LOG.error("telemetry ingest loop stopped abruptly: topic={}", topic, crash);
        exited.completeExceptionally(crash);
      }
    }
  }

  private void step() {
    long now = System.nanoTime();
    if (partitions.waiting() && failed == null && health.retryDue(now) && partitions.positionFromStored()) {
      health.succeeded();
      pgRecovered();
    }
    partitions.applyPauses(failed != null || current.records() >= batchSize);
    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(pollTimeoutMs()));
    int generation = resets;
    records:
    for (TopicPartition tp : records.partitions()) {
      Partitions.Position pos = partitions.of(tp);
      if (pos == null) {
        continue; // read again after the seek to the stored offset
      }
      List<ConsumerRecord<byte[], byte[]>> polled = records.records(tp);
      if (!polled.isEmpty() && polled.get(0).offset() > pos.next) {
        partitions.gap(tp, pos, polled.get(0).offset()); // expired before they were stored: counted, never silent
      }
      for (ConsumerRecord<byte[], byte[]> r : polled) {
        intake.accept(current, tp, pos, r);
        if (current.records() >= batchSize) {
          batchFull();
          if (resets != generation) {
            break records; // positions were reset from PostgreSQL: the rest of this poll is read again
          }
        }
      }
    }
    hook.at(Point.AFTER_POLL, this);
    if (inflight != null) {
      boolean waitedEnough = !current.isEmpty() && System.nanoTime() - current.firstRecordNanos() >= batchWaitNanos;
      complete(waitedEnough);
    }
    if (inflight == null) {
      if (failed != null) {
        if (health.retryDue(System.nanoTime())) {
          metrics.pgRetries.increment();
          Batch b = failed;
          failed = null;
          startWrite(b);
        }
      } else if (!current.isEmpty() && lingerNanosLeft(System.nanoTime()) <= 0) {
        startWrite(takeCurrent());
      }
    }
    partitions.updateLag();
  }

  /**
   * How long the held batch still lingers before it is written (0 or less: due now; full batches are due), counted
   * from when its longest-waiting record was sent, so that the time a check-in spent in Kafka (a fetch that
   * waited for more bytes) is part of its linger, not added to it.
   */
  private long lingerNanosLeft(long now) {
    if (current.records() >= batchSize) {
      return 0;
    }
    return lingerNanos - (now - current.producedNanos());
  }

  /** The batch reached the size cap in the middle of a poll: write it as soon as the running write ends. */
  private void batchFull() {
    if (failed != null) {
      return; // PostgreSQL is failing: the batch may grow by the rest of this poll, then everything pauses
    }
    if (inflight != null) {
      complete(true);
    }
    if (inflight == null && failed == null) {
      startWrite(takeCurrent());
    }
  }

  private Batch takeCurrent() {
    Batch b = current;
    current = newBatch();
    return b;
  }

  private Batch newBatch() {
    return new Batch(listener != null);
  }

  private void startWrite(Batch b) {
    long t0 = System.nanoTime();
    CompletableFuture<Integer> result = writer.write(b).toCompletionStage().toCompletableFuture();
    result.whenComplete((rows, err) -> metrics.pgTime.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS));
    inflight = new Flight(b, result);
    gauges.inflight.set(b.records());
  }

  /**
   * Handles the end of the running write.
   *
   * @param block wait for it (up to {@link #WRITE_TIMEOUT_MS}); otherwise return at once when it is running
   */
  private void complete(boolean block) {
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
      resetToStored();
    } else {
      writeFailed(f.batch(), err);
    }
  }

  private void committed(Batch b, int deviceRows) {
    hook.at(Point.AFTER_COMMIT, this);
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
        resetToStored();
      }
      return;
    }
    failed = b;
    health.failed("writing a batch of " + b.records() + " records (ranges=" + BatchWriter.describe(b) + ")", err);
  }

  /** Ends a PostgreSQL outage unless a failed batch is still held. */
  private void pgRecovered() {
    if (failed == null) {
      health.recovered();
    }
  }

  private long pollTimeoutMs() {
    if (inflight != null) {
      return 5;
    }
    if (failed != null || (health.inTrouble() && partitions.waiting())) {
      return Math.max(1, Math.min(100, health.millisUntilRetry()));
    }
    if (!current.isEmpty()) {
      // wake up when the held batch is due, to write it even if nothing more arrives
      return Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(lingerNanosLeft(System.nanoTime()) + 999_999)));
    }
    return 100;
  }

  /** Drops every uncommitted record and positions all assigned partitions again from PostgreSQL. */
  void resetToStored() {
    resets++;
    deadLetters.reset();
    current = newBatch();
    failed = null;
    inflight = null; // abandoned if running: whatever it does, the stored offsets say where to resume
    gauges.inflight.set(0);
    partitions.resetAll();
  }

  private void loopError(RuntimeException e) {
    loopErrors++;
    String refused = KafkaRefusal.of(e);
    if (refused == null) {
      LOG.error("telemetry ingest loop error (in a row={}); dropping uncommitted check-ins and reading on from the"
          + " offsets stored in PostgreSQL", loopErrors, e);
    } else if (!refused.equals(lastRefusal)) {
      // one line per cause, no stack trace loop: retried with backoff until the cause goes
      LOG.error("telemetry ingest on {}: {}; retrying", topic, refused);
    }
    lastRefusal = refused;
    try {
      resetToStored();
    } catch (RuntimeException again) {
      LOG.warn("could not reset the consumer: {}", again.toString());
    }
    PgHealth.waitBackoff(loopErrors, () -> stopping); // bounded backoff so a persistent fault does not spin
  }

  /** On stop: finish the running write, then try once to write what is held. */
  private void drain() {
    if (inflight != null) {
      complete(true);
    }
    if (failed != null) {
      Batch b = failed;
      failed = null;
      startWrite(b);
      complete(true);
    }
    if (failed == null && !current.isEmpty()) {
      startWrite(takeCurrent());
      complete(true);
    }
    int left = (failed == null ? 0 : failed.records()) + current.records();
    if (left > 0) {
      LOG.warn("stopping with {} consumed records not written to PostgreSQL; the next ingester reads them again", left);
    }
  }

  /** Whether the loop is closing its consumer (rebalance callbacks then only forget partitions). */
  boolean closing() {
    return closing;
  }

  /**
   * Before partitions are handed over: finishes the running write and writes what is held, once; when
   * PostgreSQL is failing, drops it all to be read again from the stored offsets.
   */
  void settleBeforeHandOver() {
    if (inflight != null) {
      complete(true);
    }
    if (failed == null && !current.isEmpty()) {
      startWrite(takeCurrent());
      complete(true);
    }
    if (failed != null) {
      LOG.info("partitions revoked while PostgreSQL is failing: {} records dropped, to be read again from the stored offsets",
          failed.records() + current.records());
      resetToStored();
    }
  }
}
