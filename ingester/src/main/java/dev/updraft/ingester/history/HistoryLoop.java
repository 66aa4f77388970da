package dev.updraft.ingester.history;

import dev.updraft.common.KafkaRefusal;
import dev.updraft.common.loop.ErrorBackoff;
import dev.updraft.common.loop.IdleStrategy;
import dev.updraft.common.loop.LoopAgent;
import dev.updraft.common.loop.LoopClock;
import dev.updraft.common.loop.LoopRunner;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.ingester.kafka.LagGauge;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history projection's consumer loop, on a thread of its own: poll, write the poll's events with
 * their offsets in one PostgreSQL transaction ({@link HistoryWriter}), wait for the commit, poll again.
 * Events are few (publishes, not check-ins), so one transaction at a time is plenty.
 *
 * <p>Exactly once as the telemetry ingester: PostgreSQL holds the positions ({@code history_offsets}). A
 * newly assigned partition is paused until its stored offset is read and the consumer seeked there (the
 * beginning of the log when there is none). A failed write (PostgreSQL down, slow) seeks every partition
 * back to the stored offsets and retries after a backoff (100 ms doubling up to 5 s) while the loop keeps
 * polling, so the group keeps the instance; a batch refused because the stored offsets moved is read
 * again from there. Nothing is held between polls, so a rebalance needs no hand-over.
 *
 * <p>Run by a {@link LoopRunner} (this is its {@link LoopAgent}): a failed write or read ends its duty cycle with
 * {@link PgUnavailable}, and the runner's one error policy counts it, logs it (once while it lasts), calls
 * {@link #recover} and backs off.
 *
 * <p>Not thread-safe except {@link #stop()} and {@link #exited()}.
 */
final class HistoryLoop implements Runnable, LoopAgent {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryLoop.class);
  static final long WRITE_TIMEOUT_MS = 60_000;
  static final long READ_TIMEOUT_MS = 10_000;

  /** Fault injection for tests: called on the consumer thread after a batch was written, before its commit is waited for. */
  interface Hook {
    Hook NONE = records -> {};

    void afterWrite(int records);
  }

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final HistoryWriter writer;
  private final HistoryMetrics metrics;
  private final Hook hook;
  private final LoopClock clock;
  private final LoopRunner runner;

  /** Next offsets stored in PostgreSQL (null value: no row yet) of the positioned partitions. */
  private final Map<TopicPartition, Long> stored = new HashMap<>();
  private final Map<TopicPartition, Long> next = new HashMap<>();
  private final Set<TopicPartition> unpositioned = new HashSet<>();
  private int failures;
  private final LagGauge lagGauge;

  /** PostgreSQL failed a write or a read (already logged and counted): the cycle ends, the runner backs off. */
  static final class PgUnavailable extends RuntimeException {
    PgUnavailable() {
      super("PostgreSQL unavailable", null, false, false);
    }
  }

  HistoryLoop(String topic, Consumer<byte[], byte[]> consumer, HistoryWriter writer, HistoryMetrics metrics, Hook hook) {
    this(topic, consumer, writer, metrics, hook, LoopClock.SYSTEM);
  }

  HistoryLoop(String topic, Consumer<byte[], byte[]> consumer, HistoryWriter writer, HistoryMetrics metrics, Hook hook,
      LoopClock clock) {
    this.clock = clock;
    this.runner = new LoopRunner(this, IdleStrategy.NONE, ErrorBackoff.DEFAULT, clock); // the poll is the idling
    this.topic = topic;
    this.consumer = consumer;
    this.writer = writer;
    this.metrics = metrics;
    this.lagGauge = new LagGauge(metrics.partitions, metrics.lag, "history");
    this.hook = hook;
  }

  void stop() {
    runner.stop();
  }

  CompletableFuture<Void> exited() {
    return runner.exited();
  }

  @Override
  public void run() {
    runner.run();
  }

  @Override
  public String name() {
    return "history loop topic=" + topic;
  }

  @Override
  public void onStart() {
    consumer.subscribe(List.of(topic), new Listener());
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

  /** After a failed cycle: every partition is read again from the stored offsets. */
  @Override
  public void recover(RuntimeException e) {
    failures++;
    resetToStored();
  }

  @Override
  public String refusal(RuntimeException e) {
    return e instanceof PgUnavailable ? "PostgreSQL unavailable; reading on from the stored offsets" : KafkaRefusal.of(e);
  }

  @Override
  public void onClose(Throwable crash) {
    try {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(crash == null ? 5 : 1)));
    } catch (RuntimeException e) {
      LOG.warn("history consumer did not close cleanly: topic={}", topic, e);
    }
    metrics.partitions.set(0);
  }

  @Override
  public void wake() {
    consumer.wakeup();
  }

  /**
   * Lag counts from the stored offset, else the next one read, else the log's start. When everything read is stored,
   * from the consumer's position if that is further: the control plane appends in transactions, and the marker
   * after a transaction's last event is no record to store, so the stored offset stays one short of the log end.
   */
  private Long lagStart(TopicPartition tp) {
    Long s = stored.get(tp);
    if (s != null) {
      return s.equals(next.get(tp)) ? Math.max(s, consumer.position(tp)) : s;
    }
    Long n = next.get(tp);
    return n != null ? n : 0L;
  }

  private void step() {
    if (!unpositioned.isEmpty() && !position()) {
      throw new PgUnavailable();
    }
    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
    List<HistoryWriter.Rec> batch = new ArrayList<>();
    Map<Integer, HistoryWriter.Range> ranges = new LinkedHashMap<>();
    for (TopicPartition tp : records.partitions()) {
      if (!next.containsKey(tp)) {
        continue; // not positioned yet: read again after the seek
      }
      long last = -1;
      for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
        Decoded d = EventCodec.decode(r.value());
        if (d instanceof Decoded.Malformed) {
          metrics.decodeErrors.increment();
          LOG.warn("history: record at topic={} partition={} offset={} is not an event ({}); skipped", topic, tp.partition(),
              r.offset(), ((Decoded.Malformed) d).reason());
        }
        batch.add(new HistoryWriter.Rec(tp.partition(), r.offset(), d));
        last = r.offset();
      }
      if (last >= 0) {
        ranges.put(tp.partition(), new HistoryWriter.Range(stored.get(tp), last + 1));
        next.put(tp, last + 1);
      }
    }
    if (!batch.isEmpty()) {
      write(batch, ranges);
    }
    updateLag();
  }

  private void write(List<HistoryWriter.Rec> batch, Map<Integer, HistoryWriter.Range> ranges) {
    long t0 = clock.nanoTime();
    CompletableFuture<HistoryWriter.Written> f = writer.write(batch, ranges).toCompletionStage().toCompletableFuture();
    hook.afterWrite(batch.size());
    HistoryWriter.Written w;
    try {
      w = f.get(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      metrics.pgTime.record(clock.nanoTime() - t0, TimeUnit.NANOSECONDS);
      if (e.getCause() instanceof HistoryWriter.StaleBatchException) {
        metrics.staleBatches.increment();
        LOG.warn("{}; reading on from the offsets stored in PostgreSQL", e.getCause().getMessage());
        resetToStored();
        return;
      }
      metrics.pgFailures.increment();
      LOG.warn("history: writing {} events failed ({}); reading them again after a backoff", batch.size(), e.getCause().toString());
      throw new PgUnavailable();
    } catch (TimeoutException e) {
      metrics.pgFailures.increment();
      LOG.warn("history: writing {} events took over {} ms; reading them again after a backoff", batch.size(), WRITE_TIMEOUT_MS);
      throw new PgUnavailable();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      runner.stop();
      return;
    }
    metrics.pgTime.record(clock.nanoTime() - t0, TimeUnit.NANOSECONDS);
    committed(batch.size(), ranges, w);
  }

  private void committed(int records, Map<Integer, HistoryWriter.Range> ranges, HistoryWriter.Written w) {
    if (failures > 0) {
      LOG.info("history: PostgreSQL writes work again after {} failures", failures);
    }
    failures = 0;
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    for (Map.Entry<Integer, HistoryWriter.Range> e : ranges.entrySet()) {
      TopicPartition tp = new TopicPartition(topic, e.getKey());
      stored.put(tp, e.getValue().next());
      commit.put(tp, new OffsetAndMetadata(e.getValue().next()));
    }
    metrics.events.increment(records);
    metrics.auditRows.increment(w.auditRows());
    metrics.groupRows.increment(w.groupRows());
    metrics.skipped.increment(w.skipped());
    metrics.batches.increment();
    // for operators' tools only (kafka-consumer-groups): PostgreSQL holds the positions that count
    consumer.commitAsync(commit, (offsets, err) -> {
      if (err != null) {
        LOG.debug("informational Kafka offset commit failed: {}", err.toString());
      }
    });
  }

  private void resetToStored() {
    Set<TopicPartition> assigned = consumer.assignment();
    stored.clear();
    next.clear();
    unpositioned.clear();
    unpositioned.addAll(assigned);
    consumer.pause(assigned);
  }

  /** Reads the stored offsets of the partitions waiting for them, seeks there and resumes them. */
  private boolean position() {
    unpositioned.retainAll(consumer.assignment());
    if (unpositioned.isEmpty()) {
      return true;
    }
    List<TopicPartition> todo = new ArrayList<>(unpositioned);
    List<Integer> ids = new ArrayList<>();
    for (TopicPartition tp : todo) {
      ids.add(tp.partition());
    }
    Map<Integer, Long> offsets;
    try {
      offsets = writer.loadOffsets(ids).toCompletionStage().toCompletableFuture().get(READ_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      metrics.pgFailures.increment();
      LOG.warn("history: reading the stored offsets of partitions {} failed: {}", ids,
          e instanceof ExecutionException ? e.getCause().toString() : e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      runner.stop();
      return false;
    }
    List<TopicPartition> fromStart = new ArrayList<>();
    for (TopicPartition tp : todo) {
      Long n = offsets.get(tp.partition());
      if (n == null) {
        fromStart.add(tp);
      } else {
        consumer.seek(tp, n);
        next.put(tp, n);
      }
      stored.put(tp, n);
    }
    if (!fromStart.isEmpty()) {
      consumer.seekToBeginning(fromStart);
      for (TopicPartition tp : fromStart) {
        next.put(tp, consumer.position(tp, Duration.ofMillis(READ_TIMEOUT_MS)));
      }
    }
    consumer.resume(todo);
    unpositioned.removeAll(todo);
    LOG.info("history: partitions positioned at the offsets stored in PostgreSQL: topic={} {}", topic, offsets);
    return true;
  }

  private void updateLag() {
    lagGauge.update(consumer, this::lagStart);
  }


  /** Newly assigned partitions wait, paused, for their stored offsets; revoked ones are forgotten. */
  private final class Listener implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
      forget(revoked);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
      unpositioned.addAll(assigned);
      consumer.pause(assigned);
      LOG.info("history: partitions assigned: topic={} partitions={}", topic, assigned.size());
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
      forget(lost);
    }

    private void forget(Collection<TopicPartition> tps) {
      stored.keySet().removeAll(tps);
      next.keySet().removeAll(tps);
      unpositioned.removeAll(tps);
    }
  }
}
