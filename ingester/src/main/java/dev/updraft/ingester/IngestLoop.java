package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import io.vertx.pgclient.PgException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
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
 * stays paused until its stored offset has been read and the consumer seeked there (a partition with no
 * stored offset starts at the beginning of the log). Every batch records, per partition, the offset it
 * starts from and the one after its last record; {@link BatchWriter} applies it only if PostgreSQL still
 * holds the start offset. A crash at any point therefore loses nothing (what was not committed is read
 * again) and counts nothing twice (what was committed moved the offsets, so a replay of it is refused).
 *
 * <h2>Smart batching</h2>
 * One write per loop is in flight at a time while the next batch fills (a process runs
 * {@code --ingest-consumers} loops, each with its own partitions, so PostgreSQL works on several): at the end of a poll the batch is written
 * if no write is running; otherwise it keeps filling until the running write ends, the size cap is
 * reached, or its oldest record has waited {@code --ingest-batch-wait} (then the loop waits for the
 * running write). So batches grow with PostgreSQL's latency and the decode work overlaps the database.
 *
 * <h2>PostgreSQL down or slow</h2>
 * A failed write keeps its batch, pauses every partition, and is retried with exponential backoff
 * (100 ms to 5 s) while the loop keeps polling (so the group keeps the instance) and reports lag; the
 * first success resumes consumption. Decoding never fails the loop: a record that is not a check-in is
 * counted, logged with its topic, partition and offset, stored in {@code ingest_rejects} by the same
 * transaction, and skipped.
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
  static final long READ_TIMEOUT_MS = 10_000;
  static final long MIN_BACKOFF_MS = 100;
  static final long MAX_BACKOFF_MS = 5_000;
  private static final long LAG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int LOGGED_REJECTS = 100;

  /** The consumed position of one positioned partition. */
  private static final class Position {
    /** The offset after the last record put in a batch (or the stored offset when none was). */
    long next;
    /** Whether PostgreSQL holds (or a pending batch inserts) a row for the partition. */
    boolean row;

    Position(long next, boolean row) {
      this.next = next;
      this.row = row;
    }
  }

  /** A write in flight. */
  private record Flight(Batch batch, CompletableFuture<Integer> result) {}

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final BatchWriter writer;
  private final IngestMetrics metrics;
  private final IngestMetrics.Loop gauges;
  private final Hook hook;
  private final CommitListener listener;
  private final int batchSize;
  private final long batchWaitNanos;
  private final CompletableFuture<Void> exited = new CompletableFuture<>();
  private volatile boolean stopping;
  /** Stop without writing what is held (another loop of the process died abruptly). */
  private volatile boolean halted;

  // consumer-thread state
  private final Map<TopicPartition, Position> positions = new HashMap<>();
  private final Set<TopicPartition> unpositioned = new HashSet<>();
  /** Next offsets known to be stored in PostgreSQL (what lag is counted from). */
  private final Map<TopicPartition, Long> stored = new HashMap<>();
  private Batch current;
  private Flight inflight;
  /** A batch whose write failed, to be retried before anything else is written. */
  private Batch failed;
  /** The last PostgreSQL operation failed; consumption is paused until one succeeds. */
  private boolean pgTrouble;
  private int attempts;
  private long retryAtNanos;
  private long troubleSinceNanos;
  private long nextLagNanos;
  private boolean closing;
  private long rejected;
  private int loopErrors;
  /** Incremented by every {@link #resetToStored()}. */
  private int resets;

  IngestLoop(
      String topic,
      Consumer<byte[], byte[]> consumer,
      BatchWriter writer,
      IngestMetrics metrics,
      int batchSize,
      Duration batchWait,
      Hook hook,
      CommitListener listener) {
    this.topic = topic;
    this.consumer = consumer;
    this.writer = writer;
    this.metrics = metrics;
    this.gauges = metrics.newLoop();
    this.batchSize = batchSize;
    this.batchWaitNanos = batchWait.toNanos();
    this.hook = hook;
    this.listener = listener;
    this.current = newBatch();
    // nanoTime has an arbitrary origin (it may be negative): deadlines start from now, never from 0
    this.retryAtNanos = System.nanoTime();
    this.nextLagNanos = this.retryAtNanos;
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
      consumer.subscribe(List.of(topic), new Rebalance());
      while (!stopping) {
        try {
          step();
          loopErrors = 0;
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
    if (!unpositioned.isEmpty() && failed == null && now - retryAtNanos >= 0) {
      position();
    }
    applyPauses();
    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(pollTimeoutMs()));
    int generation = resets;
    records:
    for (TopicPartition tp : records.partitions()) {
      Position pos = positions.get(tp);
      if (pos == null) {
        if (!unpositioned.contains(tp)) {
          LOG.warn("records from a partition never positioned from PostgreSQL: topic={} partition={}; repositioning", topic, tp.partition());
          unpositioned.add(tp);
          consumer.pause(List.of(tp));
        }
        continue; // read again after the seek to the stored offset
      }
      for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
        accept(tp, pos, r);
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
        if (System.nanoTime() - retryAtNanos >= 0) {
          metrics.pgRetries.increment();
          Batch b = failed;
          failed = null;
          startWrite(b);
        }
      } else if (!current.isEmpty()) {
        startWrite(takeCurrent());
      }
    }
    updateLag();
  }

  private void accept(TopicPartition tp, Position pos, ConsumerRecord<byte[], byte[]> r) {
    if (r.offset() < pos.next) {
      LOG.warn(
          "offset went back: topic={} partition={} expected>={} got={} (log truncated or recreated?); reading on",
          topic, tp.partition(), pos.next, r.offset());
    }
    current.cover(tp, pos.next, pos.row, r.offset());
    pos.next = r.offset() + 1;
    pos.row = true;
    String error;
    CheckIn clean = null;
    try {
      CheckIn decoded = CheckInCodec.decode(r.value());
      clean = CheckIns.clean(decoded, r.timestamp());
      error = clean == null ? CheckIns.problem(decoded) : null;
    } catch (IOException | RuntimeException e) {
      error = "not a check-in: " + e.getMessage();
    }
    if (clean != null) {
      current.add(clean);
    } else {
      reject(tp, r, error);
    }
  }

  private void reject(TopicPartition tp, ConsumerRecord<byte[], byte[]> r, String error) {
    metrics.decodeErrors.increment();
    rejected++;
    String why = CheckIns.withoutNul(error.length() > 500 ? error.substring(0, 500) : error);
    if (rejected <= LOGGED_REJECTS || rejected % 1000 == 0) {
      LOG.warn(
          "skipping a record that is not a check-in (rejects so far={}): topic={} partition={} offset={}: {}",
          rejected, topic, tp.partition(), r.offset(), why);
    }
    String excerpt = null;
    if (r.value() != null) {
      String v = new String(r.value(), 0, Math.min(r.value().length, 512), StandardCharsets.UTF_8);
      excerpt = CheckIns.withoutNul(v);
    }
    current.reject(tp, r.offset(), why, excerpt);
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
  }

  /**
   * Handles the end of the running write.
   *
   * @param block wait for it (up to {@link #WRITE_TIMEOUT_MS}); otherwise return at once when it is running
   */
  private void complete(boolean block) {
    Flight f = inflight;
    Integer rows = null;
    Throwable err = null;
    if (block) {
      try {
        rows = f.result().get(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        err = e.getCause();
      } catch (TimeoutException e) {
        // the transaction may still commit later: the offset condition makes the retry safe either way
        err = new TimeoutException("batch write not finished after " + WRITE_TIMEOUT_MS + " ms: ranges=" + BatchWriter.describe(f.batch()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        err = e;
      }
    } else {
      if (!f.result().isDone()) {
        return;
      }
      try {
        rows = f.result().getNow(null);
      } catch (CompletionException e) {
        err = e.getCause();
      } catch (CancellationException e) {
        err = e;
      }
    }
    inflight = null;
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
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    Set<TopicPartition> assigned = consumer.assignment();
    for (Map.Entry<TopicPartition, Batch.Range> e : b.ranges().entrySet()) {
      if (assigned.contains(e.getKey())) {
        stored.put(e.getKey(), e.getValue().next);
        commit.put(e.getKey(), new OffsetAndMetadata(e.getValue().next));
      }
    }
    long nowMillis = System.currentTimeMillis();
    metrics.records.increment(b.checkIns());
    metrics.deviceRows.increment(deviceRows);
    metrics.batches.increment();
    metrics.batchSize.record(b.records());
    if (b.checkIns() > 0) {
      metrics.delay.record(Math.max(0, nowMillis - b.oldestAt()), TimeUnit.MILLISECONDS);
    }
    attempts = 0;
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
    if (listener != null) {
      listener.committed(nowMillis, b.times());
    }
  }

  private void writeFailed(Batch b, Throwable err) {
    metrics.pgFailures.increment();
    failed = b;
    trouble("writing a batch of " + b.records() + " records (ranges=" + BatchWriter.describe(b) + ")", err);
  }

  private void trouble(String what, Throwable err) {
    attempts++;
    long backoff = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(attempts - 1, 16));
    retryAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoff);
    String detail = err instanceof PgException ? "SQLSTATE " + ((PgException) err).getSqlState() + " " + err.getMessage() : err.toString();
    if (!pgTrouble) {
      pgTrouble = true;
      troubleSinceNanos = System.nanoTime();
      gauges.paused.set(1);
      LOG.warn("PostgreSQL failed {}: {}; consumption paused, retrying in {} ms", what, detail, backoff);
    } else if (attempts % 10 == 0) {
      LOG.warn("PostgreSQL still failing after {} attempts ({} s): {}: {}", attempts,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - troubleSinceNanos), what, detail);
    } else {
      LOG.debug("PostgreSQL failed again (attempt {}): {}: {}", attempts, what, detail);
    }
    if (err instanceof PgException && isDataError(((PgException) err).getSqlState())) {
      LOG.error("PostgreSQL refused the data itself ({}): the batch will keep failing until an operator looks at it", detail);
    }
  }

  private static boolean isDataError(String sqlState) {
    return sqlState != null && (sqlState.startsWith("22") || sqlState.startsWith("23") || sqlState.startsWith("42"));
  }

  private void pgRecovered() {
    if (pgTrouble && failed == null) {
      pgTrouble = false;
      gauges.paused.set(0);
      LOG.info("PostgreSQL writable again after {} ms; consumption resumed",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - troubleSinceNanos));
    }
  }

  /** Reads the stored offsets of the partitions waiting for them and seeks there. */
  private void position() {
    Set<TopicPartition> assigned = consumer.assignment();
    unpositioned.retainAll(assigned);
    if (unpositioned.isEmpty()) {
      return;
    }
    List<TopicPartition> todo = new ArrayList<>(unpositioned);
    List<Integer> ids = new ArrayList<>(todo.size());
    for (TopicPartition tp : todo) {
      ids.add(tp.partition());
    }
    Map<Integer, Long> next;
    try {
      next = writer.loadOffsets(ids).toCompletionStage().toCompletableFuture().get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      metrics.pgFailures.increment();
      trouble("reading the stored offsets of partitions " + ids, e.getCause());
      return;
    } catch (TimeoutException e) {
      metrics.pgFailures.increment();
      trouble("reading the stored offsets of partitions " + ids, e);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    List<TopicPartition> fromStart = new ArrayList<>();
    StringBuilder where = new StringBuilder();
    for (TopicPartition tp : todo) {
      Long n = next.get(tp.partition());
      if (n == null) {
        fromStart.add(tp);
      } else {
        consumer.seek(tp, n);
        positions.put(tp, new Position(n, true));
        stored.put(tp, n);
        unpositioned.remove(tp);
        where.append(' ').append(tp.partition()).append('@').append(n);
      }
    }
    if (!fromStart.isEmpty()) {
      consumer.seekToBeginning(fromStart);
      for (TopicPartition tp : fromStart) {
        long p = consumer.position(tp, Duration.ofMillis(READ_TIMEOUT_MS));
        positions.put(tp, new Position(p, false));
        stored.put(tp, p);
        unpositioned.remove(tp);
        where.append(' ').append(tp.partition()).append("@start=").append(p);
      }
    }
    LOG.info("partitions positioned at the offsets stored in PostgreSQL: topic={}{}", topic, where);
    if (failed == null) {
      attempts = 0;
      pgRecovered();
    }
  }

  /**
   * Pauses what must not be read: partitions not positioned yet, and all of them while PostgreSQL is
   * failing or the batch is full; resumes the rest.
   */
  private void applyPauses() {
    Set<TopicPartition> assigned = consumer.assignment();
    boolean gate = failed != null || current.records() >= batchSize;
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition tp : assigned) {
      boolean want = gate || unpositioned.contains(tp);
      boolean is = paused.contains(tp);
      if (want && !is) {
        pause.add(tp);
      } else if (!want && is) {
        resume.add(tp);
      }
    }
    if (!pause.isEmpty()) {
      consumer.pause(pause);
    }
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
  }

  private long pollTimeoutMs() {
    if (inflight != null) {
      return 5;
    }
    if (failed != null || (pgTrouble && !unpositioned.isEmpty())) {
      long untilRetry = TimeUnit.NANOSECONDS.toMillis(retryAtNanos - System.nanoTime());
      return Math.max(1, Math.min(100, untilRetry));
    }
    return 100;
  }

  /** Lag: records between the offsets stored in PostgreSQL and the log end, over assigned partitions. */
  private void updateLag() {
    long now = System.nanoTime();
    if (now - nextLagNanos < 0) {
      return;
    }
    nextLagNanos = now + LAG_INTERVAL_NANOS;
    Set<TopicPartition> assigned = consumer.assignment();
    gauges.partitions.set(assigned.size());
    if (assigned.isEmpty()) {
      gauges.lag.set(0);
      return;
    }
    try {
      Map<TopicPartition, Long> end = consumer.endOffsets(assigned, Duration.ofMillis(500));
      Set<TopicPartition> unknown = new HashSet<>();
      long lag = 0;
      for (TopicPartition tp : assigned) {
        Long s = stored.get(tp);
        Long e = end.get(tp);
        if (e == null) {
          continue;
        }
        if (s == null) {
          unknown.add(tp);
        } else {
          lag += Math.max(0, e - s);
        }
      }
      if (!unknown.isEmpty()) {
        // never positioned (PostgreSQL was down at assignment): count from Kafka's informational commits
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(unknown, Duration.ofMillis(500));
        Map<TopicPartition, Long> start = consumer.beginningOffsets(unknown, Duration.ofMillis(500));
        for (TopicPartition tp : unknown) {
          OffsetAndMetadata c = committed.get(tp);
          long from = c != null ? c.offset() : start.getOrDefault(tp, 0L);
          lag += Math.max(0, end.get(tp) - from);
        }
      }
      gauges.lag.set(lag);
    } catch (KafkaException e) {
      LOG.debug("lag not updated: {}", e.toString());
    }
  }

  /** Drops every uncommitted record and positions all assigned partitions again from PostgreSQL. */
  private void resetToStored() {
    resets++;
    current = newBatch();
    failed = null;
    inflight = null; // abandoned if running: whatever it does, the stored offsets say where to resume
    Set<TopicPartition> assigned = consumer.assignment();
    positions.clear();
    unpositioned.clear();
    unpositioned.addAll(assigned);
    consumer.pause(assigned);
  }

  private void loopError(RuntimeException e) {
    loopErrors++;
    LOG.error("telemetry ingest loop error (in a row={}); dropping uncommitted check-ins and reading on from the"
        + " offsets stored in PostgreSQL", loopErrors, e);
    try {
      resetToStored();
    } catch (RuntimeException again) {
      LOG.warn("could not reset the consumer: {}", again.toString());
    }
    long pause = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(loopErrors - 1, 16));
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause);
    while (!stopping && System.nanoTime() - until < 0) {
      try {
        Thread.sleep(Math.min(100, pause)); // bounded backoff so a persistent fault does not spin
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        return;
      }
    }
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

  private void forget(Collection<TopicPartition> partitions) {
    positions.keySet().removeAll(partitions);
    unpositioned.removeAll(partitions);
    stored.keySet().removeAll(partitions);
  }

  /** Runs inside {@code poll()} on the consumer thread. */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
      if (closing || revoked.isEmpty()) {
        forget(revoked);
        return;
      }
      // settle before handing over: finish the running write and write what is held, once
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
      forget(revoked);
      LOG.info("partitions revoked: topic={} partitions={}", topic, ids(revoked));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
      if (assigned.isEmpty()) {
        return;
      }
      unpositioned.addAll(assigned);
      consumer.pause(assigned);
      gauges.partitions.set(consumer.assignment().size());
      LOG.info("partitions assigned: topic={} partitions={}", topic, ids(assigned));
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
      if (closing) {
        forget(lost);
        return;
      }
      LOG.warn("partitions lost: topic={} partitions={}; dropping uncommitted check-ins", topic, ids(lost));
      resetToStored();
      forget(lost);
    }

    private List<Integer> ids(Collection<TopicPartition> tps) {
      List<Integer> ids = new ArrayList<>();
      for (TopicPartition tp : tps) {
        ids.add(tp.partition());
      }
      ids.sort(null);
      return ids;
    }
  }
}
