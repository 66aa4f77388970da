package dev.updraft.ingester.kafka;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop's two gauges, the partitions assigned to its consumer and the records behind their log ends, refreshed
 * at most once a second from the loop's own thread. A partition's lag counts from where the loop says its
 * stored position is ({@link Start}); the log ends come from {@link ReadCommittedConsumer#logEnds}. Not
 * thread-safe: one loop, one gauge.
 */
public final class LagGauge {
  private static final Logger LOG = LoggerFactory.getLogger(LagGauge.class);
  private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Duration ASK_TIMEOUT = Duration.ofMillis(500);

  /** Where a partition's lag counts from. */
  @FunctionalInterface
  public interface Start {
    /**
     * The next offset the loop has stored for {@code tp}, or {@code null} when it has none yet (the partition
     * was never positioned, for example because PostgreSQL was down at assignment): the lag then counts from
     * the group's offset committed in Kafka, else from the log's start.
     */
    Long of(TopicPartition tp);
  }

  private final AtomicLong partitions;
  private final AtomicLong lag;
  private final String loop;
  private final LongSupplier nanoClock;
  private long nextNanos;

  /** {@code loop} names the loop in the debug line logged when Kafka cannot answer. */
  public LagGauge(AtomicLong partitions, AtomicLong lag, String loop) {
    this(partitions, lag, loop, System::nanoTime);
  }

  LagGauge(AtomicLong partitions, AtomicLong lag, String loop, LongSupplier nanoClock) {
    this.partitions = partitions;
    this.lag = lag;
    this.loop = loop;
    this.nanoClock = nanoClock;
    this.nextNanos = nanoClock.getAsLong();
  }

  /** Sets both gauges when a second has passed since the last update; otherwise does nothing. */
  public void update(Consumer<?, ?> consumer, Start start) {
    long now = nanoClock.getAsLong();
    if (now - nextNanos < 0) {
      return;
    }
    nextNanos = now + INTERVAL_NANOS;
    Set<TopicPartition> assigned = consumer.assignment();
    partitions.set(assigned.size());
    if (assigned.isEmpty()) {
      lag.set(0);
      return;
    }
    try {
      lag.set(behind(consumer, assigned, start));
    } catch (KafkaException e) {
      // the gauge keeps its last value; the next second tries again
      LOG.debug("{} lag not updated: {}", loop, e.toString());
    }
  }

  private static long behind(Consumer<?, ?> consumer, Set<TopicPartition> assigned, Start start) {
    Map<TopicPartition, Long> end = ReadCommittedConsumer.logEnds(consumer, assigned);
    Set<TopicPartition> unknown = new HashSet<>();
    long sum = 0;
    for (TopicPartition tp : assigned) {
      Long e = end.get(tp);
      if (e == null) {
        continue;
      }
      Long from = start.of(tp);
      if (from == null) {
        unknown.add(tp);
      } else {
        sum += Math.max(0, e - from);
      }
    }
    if (!unknown.isEmpty()) {
      // only while a partition waits for its stored offset (PostgreSQL down at assignment): two requests on the
      // fetch connection, which may wait behind a held fetch; rare enough to leave
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(unknown, ASK_TIMEOUT);
      Map<TopicPartition, Long> first = consumer.beginningOffsets(unknown, ASK_TIMEOUT);
      for (TopicPartition tp : unknown) {
        OffsetAndMetadata c = committed.get(tp);
        long from = c != null ? c.offset() : first.getOrDefault(tp, 0L);
        sum += Math.max(0, end.get(tp) - from);
      }
    }
    return sum;
  }
}
