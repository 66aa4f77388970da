package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import dev.updraft.events.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts one consumed record into a {@link Batch}: its offset always, then the cleaned check-in, or, for a
 * record that is not a check-in PostgreSQL can store, a reject with the reason; an edge's warm-up check-in
 * ({@code Topics.WARMUP_HEADER}) only moves the offset. Decoding never fails the
 * loop: a reject is counted, logged with its topic, partition and offset (the first 100, then every
 * 1000th) and stored in {@code ingest_rejects} by the batch's transaction.
 *
 * <p>Not thread-safe: the loop's consumer thread only.
 */
final class Intake {
  private static final Logger LOG = LoggerFactory.getLogger(Intake.class);
  private static final int LOGGED_REJECTS = 100;

  private final String topic;
  private final IngestMetrics metrics;
  private final long maxWaitedNanos;
  /** False for {@link #again()}: records read a second time are neither counted nor logged again. */
  private final boolean counting;
  private long rejected;

  Intake(String topic, IngestMetrics metrics, long maxWaitedNanos) {
    this(topic, metrics, maxWaitedNanos, true);
  }

  private Intake(String topic, IngestMetrics metrics, long maxWaitedNanos, boolean counting) {
    this.topic = topic;
    this.metrics = metrics;
    this.maxWaitedNanos = maxWaitedNanos;
    this.counting = counting;
  }

  /** An intake for records already accepted once (a failed batch split by {@link DeadLetters}): it counts and logs nothing. */
  Intake again() {
    return new Intake(topic, metrics, maxWaitedNanos, false);
  }

  /**
   * How long a record had waited when it was read at {@code nowMillis}, from its Kafka {@code timestamp} (an edge's clock when it sent the
   * check-in, or the broker's at append): at least 0 (no timestamp, or a clock ahead of ours: the batch lingers
   * as if the record had just arrived, as it did before timestamps counted) and at most {@code maxWaitedNanos},
   * the linger (a clock behind ours makes the batch due at once, as a backlog's records are).
   */
  static long waitedNanos(long timestamp, long nowMillis, long maxWaitedNanos) {
    if (timestamp < 0 || timestamp >= nowMillis) {
      return 0;
    }
    return Math.min(maxWaitedNanos, TimeUnit.MILLISECONDS.toNanos(nowMillis - timestamp));
  }

  /** Adds {@code r}, read from {@code tp} at {@code pos}, to {@code batch} and moves {@code pos} past it. */
  void accept(Batch batch, TopicPartition tp, Partitions.Position pos, ConsumerRecord<byte[], byte[]> r) {
    if (r.offset() < pos.next) {
      LOG.warn(
          "offset went back: topic={} partition={} expected>={} got={} (log truncated or recreated?); reading on",
          topic, tp.partition(), pos.next, r.offset());
    }
    batch.cover(tp, pos.next, pos.row, r.offset(), waitedNanos(r.timestamp(), System.currentTimeMillis(), maxWaitedNanos));
    batch.keep(r);
    pos.next = r.offset() + 1;
    pos.row = true;
    if (r.headers().lastHeader(Topics.WARMUP_HEADER) != null) {
      // an edge's own warm-up, not a device: its offset is covered, nothing is stored
      if (counting) {
        metrics.warmupSkipped.increment();
      }
      return;
    }
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
      batch.add(clean);
    } else {
      reject(batch, tp, r, error);
    }
  }

  private void reject(Batch batch, TopicPartition tp, ConsumerRecord<byte[], byte[]> r, String error) {
    if (counting) {
      metrics.decodeErrors.increment();
      rejected++;
    }
    String why = CheckIns.withoutNul(error.length() > 500 ? error.substring(0, 500) : error);
    if (counting && (rejected <= LOGGED_REJECTS || rejected % 1000 == 0)) {
      LOG.warn(
          "skipping a record that is not a check-in (rejects so far={}): topic={} partition={} offset={}: {}",
          rejected, topic, tp.partition(), r.offset(), why);
    }
    String excerpt = null;
    if (r.value() != null) {
      String v = new String(r.value(), 0, Math.min(r.value().length, 512), StandardCharsets.UTF_8);
      excerpt = CheckIns.withoutNul(v);
    }
    batch.reject(tp, r.offset(), why, excerpt);
  }
}
