package dev.updraft.ingester;

import dev.updraft.common.KafkaRefusal;
import dev.updraft.common.loop.ErrorBackoff;
import dev.updraft.common.loop.IdleStrategy;
import dev.updraft.common.loop.LoopAgent;
import dev.updraft.common.loop.LoopClock;
import dev.updraft.common.loop.LoopRunner;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
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
 * <p>Run by a {@link LoopRunner} (this is its {@link LoopAgent}): a duty cycle is one poll and what it makes due; a
 * cycle that fails (Kafka, or anything unexpected) drops what is uncommitted, reads on from the offsets stored in
 * PostgreSQL, and is retried after the runner's backoff (100 ms doubling up to 5 s); a Kafka refusal is logged once
 * per reason.
 *
 * <p>Not thread-safe except {@link #stop()}, {@link #halt()} and {@link #exited()}, which any thread may
 * call.
 */
final class IngestLoop implements Runnable, LoopAgent {
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

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final IngestMetrics metrics;
  private final IngestMetrics.Loop gauges;
  private final PgHealth health;
  private final Partitions partitions;
  private final Intake intake;
  private final Hook hook;
  private final CommitListener listener;
  private final int batchSize;
  private final long batchWaitNanos;
  private final long lingerNanos;
  private final LoopClock clock;
  private final LoopRunner runner;
  /** Stop without writing what is held (another loop of the process died abruptly). */
  private volatile boolean halted;

  private final Writes writes;

  // consumer-thread state
  private Batch current;
  private boolean closing;
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
    this(topic, consumer, writer, metrics, batchSize, maxAttempts, batchWait, linger, hook, listener, LoopClock.SYSTEM);
  }

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
      CommitListener listener,
      LoopClock clock) {
    this.topic = topic;
    this.consumer = consumer;
    this.metrics = metrics;
    this.gauges = metrics.newLoop();
    this.clock = clock;
    this.health = new PgHealth(gauges, clock);
    this.partitions = new Partitions(topic, consumer, writer, metrics, gauges, health);
    this.intake = new Intake(topic, metrics, linger.toNanos());
    this.batchSize = batchSize;
    this.batchWaitNanos = batchWait.toNanos();
    this.lingerNanos = linger.toNanos();
    this.hook = hook;
    this.listener = listener;
    this.writes = new Writes(this, consumer, writer, metrics, gauges, health, partitions,
        new DeadLetters(writer, intake, metrics, maxAttempts), hook, listener, clock);
    this.current = newBatch();
    this.runner = new LoopRunner(this, IdleStrategy.NONE, ErrorBackoff.DEFAULT, clock); // the poll is the idling
  }

  /** Asks the loop to write what it holds and stop; returns at once. */
  void stop() {
    runner.stop();
  }

  /** Stops at once without writing what is held, as if the process had died; returns at once. */
  void halt() {
    halted = true;
    runner.stop();
  }

  /** Whether a batch write is running (consumer thread only: for tests' fault injection). */
  boolean writing() {
    return writes.running();
  }

  /** Completed when the loop's thread is done: normally, or exceptionally when it stopped abruptly. */
  CompletableFuture<Void> exited() {
    return runner.exited();
  }

  @Override
  public void run() {
    runner.run();
  }

  @Override
  public String name() {
    return "telemetry ingest loop topic=" + topic;
  }

  @Override
  public void onStart() {
    consumer.subscribe(List.of(topic), new Rebalance(this, partitions, topic));
  }

  @Override
  public int doWork() {
    try {
      step();
    } catch (WakeupException e) {
      // stop() woke the poll up
    }
    return 1;
  }

  /** After a failed cycle: drops every uncommitted check-in and reads on from the offsets stored in PostgreSQL. */
  @Override
  public void recover(RuntimeException e) {
    resetToStored();
  }

  @Override
  public String refusal(RuntimeException e) {
    return KafkaRefusal.of(e);
  }

  /** A normal stop writes what is held; a halt (another loop of the process died) writes nothing more. */
  @Override
  public void onStop() {
    if (!halted) {
      drain();
    }
  }

  @Override
  public void onClose(Throwable crash) {
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
    }
  }

  @Override
  public void wake() {
    consumer.wakeup();
  }

  private void step() {
    long now = clock.nanoTime();
    if (partitions.waiting() && !writes.failing() && health.retryDue(now) && partitions.positionFromStored()) {
      health.succeeded();
      writes.pgRecovered();
    }
    partitions.applyPauses(writes.failing() || current.records() >= batchSize);
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
    if (writes.running()) {
      boolean waitedEnough = !current.isEmpty() && clock.nanoTime() - current.firstRecordNanos() >= batchWaitNanos;
      writes.complete(waitedEnough);
    }
    if (!writes.running()) {
      if (writes.failing()) {
        writes.retryIfDue();
      } else if (!current.isEmpty() && lingerNanosLeft(clock.nanoTime()) <= 0) {
        writes.start(takeCurrent());
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
    if (writes.failing()) {
      return; // PostgreSQL is failing: the batch may grow by the rest of this poll, then everything pauses
    }
    if (writes.running()) {
      writes.complete(true);
    }
    if (!writes.running() && !writes.failing()) {
      writes.start(takeCurrent());
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

  private long pollTimeoutMs() {
    if (writes.running()) {
      return 5;
    }
    if (writes.failing() || (health.inTrouble() && partitions.waiting())) {
      return Math.max(1, Math.min(100, health.millisUntilRetry()));
    }
    if (!current.isEmpty()) {
      // wake up when the held batch is due, to write it even if nothing more arrives
      return Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(lingerNanosLeft(clock.nanoTime()) + 999_999)));
    }
    return 100;
  }

  /** Drops every uncommitted record and positions all assigned partitions again from PostgreSQL. */
  void resetToStored() {
    resets++;
    writes.reset();
    current = newBatch();
    partitions.resetAll();
  }

  /** On stop: finish the running write, then try once to write what is held. */
  private void drain() {
    if (writes.running()) {
      writes.complete(true);
    }
    writes.retryNow();
    if (!writes.failing() && !current.isEmpty()) {
      writes.start(takeCurrent());
      writes.complete(true);
    }
    int left = writes.failedRecords() + current.records();
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
    if (writes.running()) {
      writes.complete(true);
    }
    if (!writes.failing() && !current.isEmpty()) {
      writes.start(takeCurrent());
      writes.complete(true);
    }
    if (writes.failing()) {
      LOG.info("partitions revoked while PostgreSQL is failing: {} records dropped, to be read again from the stored offsets",
          writes.failedRecords() + current.records());
      resetToStored();
    }
  }
}
