package dev.updraft.ingester;

import dev.updraft.ingester.kafka.LagGauge;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of one consumer loop and where each is read from. PostgreSQL, not Kafka, holds the
 * consumed positions ({@code ingest_offsets}): a newly assigned partition stays paused until its stored
 * offset has been read and the consumer seeked there (a partition with no stored offset starts at the
 * beginning of the log). Also pauses everything while the loop must not read, and reports the lag
 * counted from the stored offsets.
 *
 * <p>Not thread-safe: the loop's consumer thread only (rebalance callbacks run there too, inside
 * {@code poll()}).
 */
final class Partitions {
  private static final Logger LOG = LoggerFactory.getLogger(Partitions.class);

  static final long READ_TIMEOUT_MS = 10_000;

  /** The consumed position of one positioned partition. */
  static final class Position {
    /** The offset after the last record put in a batch (or the stored offset when none was). */
    long next;
    /** Whether PostgreSQL holds (or a pending batch inserts) a row for the partition. */
    boolean row;

    Position(long next, boolean row) {
      this.next = next;
      this.row = row;
    }
  }

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final BatchWriter writer;
  private final IngestMetrics metrics;
  private final IngestMetrics.Loop gauges;
  private final PgHealth health;
  private final Map<TopicPartition, Position> positions = new HashMap<>();
  private final Set<TopicPartition> unpositioned = new HashSet<>();
  /** Next offsets known to be stored in PostgreSQL (what lag is counted from). */
  private final Map<TopicPartition, Long> stored = new HashMap<>();
  private final LagGauge lagGauge;
  private final LagGauge.Start lagStart = stored::get;

  Partitions(
      String topic,
      Consumer<byte[], byte[]> consumer,
      BatchWriter writer,
      IngestMetrics metrics,
      IngestMetrics.Loop gauges,
      PgHealth health) {
    this.topic = topic;
    this.consumer = consumer;
    this.writer = writer;
    this.metrics = metrics;
    this.gauges = gauges;
    this.health = health;
    this.lagGauge = new LagGauge(gauges.partitions, gauges.lag, "ingest");
  }

  /**
   * Where {@code tp} is read from, or null when it is not positioned yet; records of a partition that
   * was never even waiting for its position pause it and are read again once it is positioned.
   */
  Position of(TopicPartition tp) {
    Position pos = positions.get(tp);
    if (pos == null && !unpositioned.contains(tp)) {
      LOG.warn("records from a partition never positioned from PostgreSQL: topic={} partition={}; repositioning", topic, tp.partition());
      unpositioned.add(tp);
      consumer.pause(List.of(tp));
    }
    return pos;
  }

  /** Whether some assigned partition waits for its stored offset. */
  boolean waiting() {
    return !unpositioned.isEmpty();
  }

  /**
   * Reads the stored offsets of the partitions waiting for them and seeks there. A PostgreSQL failure is
   * counted and reported to the {@link PgHealth}; they stay waiting.
   *
   * @return whether partitions were positioned
   */
  boolean positionFromStored() {
    Set<TopicPartition> assigned = consumer.assignment();
    unpositioned.retainAll(assigned);
    if (unpositioned.isEmpty()) {
      return false;
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
      health.failed("reading the stored offsets of partitions " + ids, e.getCause());
      return false;
    } catch (TimeoutException e) {
      metrics.pgFailures.increment();
      health.failed("reading the stored offsets of partitions " + ids, e);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
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
    return true;
  }

  /**
   * A poll brought records of {@code tp} starting at {@code first}, past {@code pos.next}: the records between were
   * not read. The telemetry topic's producers are idempotent, not transactional, so its offsets have no holes of
   * their own: records below the log start were deleted by the topic's retention before this ingester stored them
   * (the consumer, asked for a deleted offset, moved to the log start). They are lost; they are counted
   * ({@code updraft_ingest_checkins_expired_total}, which an alert watches) and their range is logged. A hole above
   * the log start (none expected) is only logged.
   */
  void gap(TopicPartition tp, Position pos, long first) {
    long logStart;
    try {
      logStart = consumer.beginningOffsets(List.of(tp), Duration.ofMillis(READ_TIMEOUT_MS)).getOrDefault(tp, -1L);
    } catch (RuntimeException e) {
      logStart = first; // cannot ask: every record skipped counts as expired, never as nothing
      LOG.warn("cannot read the log start of topic={} partition={} ({}): counting offsets [{}, {}) as expired", topic, tp.partition(), e, pos.next, first);
    }
    long lostEnd = Math.min(logStart, first);
    if (lostEnd > pos.next) {
      long lost = lostEnd - pos.next;
      metrics.expired.increment(lost);
      LOG.error("{} check-ins expired from the telemetry topic before they were stored, and are lost: topic={} partition={} offsets"
          + " [{}, {}) are below the log start {}; this ingester fell behind the topic's retention (--telemetry-retention of the"
          + " control plane): add ingesters or PostgreSQL capacity, or lengthen the retention", lost, topic, tp.partition(), pos.next, lostEnd,
          logStart);
    }
    if (first > lostEnd) {
      LOG.warn("offsets skipped above the log start: topic={} partition={} [{}, {}) (not expected on the telemetry topic)", topic,
          tp.partition(), lostEnd, first);
    }
  }

  /** PostgreSQL now holds {@code next} for {@code tp} (a batch committed). */
  void stored(TopicPartition tp, long next) {
    stored.put(tp, next);
  }

  /** Newly assigned partitions: paused until positioned. */
  void assigned(Collection<TopicPartition> assigned) {
    unpositioned.addAll(assigned);
    consumer.pause(assigned);
    gauges.partitions.set(consumer.assignment().size());
  }

  /** Partitions no longer assigned. */
  void forget(Collection<TopicPartition> partitions) {
    positions.keySet().removeAll(partitions);
    unpositioned.removeAll(partitions);
    stored.keySet().removeAll(partitions);
  }

  /** Forgets every position: all assigned partitions wait for their stored offsets again, paused. */
  void resetAll() {
    Set<TopicPartition> assigned = consumer.assignment();
    positions.clear();
    unpositioned.clear();
    unpositioned.addAll(assigned);
    consumer.pause(assigned);
  }

  /**
   * Pauses what must not be read: partitions not positioned yet, and all of them when {@code gate}
   * (PostgreSQL is failing or the batch is full); resumes the rest.
   */
  void applyPauses(boolean gate) {
    Set<TopicPartition> assigned = consumer.assignment();
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

  /** Lag, at most once a second: records between the stored offsets and the log end, over assigned partitions. */
  void updateLag() {
    lagGauge.update(consumer, lagStart);
  }

}
