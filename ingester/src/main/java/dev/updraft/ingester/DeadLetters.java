package dev.updraft.ingester;

import io.vertx.core.buffer.Buffer;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a check-in that PostgreSQL refuses every time from stalling its partition forever.
 *
 * <h2>When</h2>
 * A batch whose write fails with an error about the data itself (SQLSTATE class 22, a value out of range; 23, a
 * constraint; 54, a program limit such as an index row too large) is retried with the loop's backoff like any failed
 * write. Once it has failed so {@code --ingest-max-attempts} times in a row it is isolated. No other failure counts:
 * PostgreSQL down, a lost connection, a timeout or a missing table pause the ingester as before and never set anything
 * aside.
 *
 * <h2>How</h2>
 * The batch's records, as consumed, are written again in halves, in offset order, each half one transaction on the
 * usual offset condition ({@link BatchWriter}). A half that is stored moves its partitions' offsets like any batch; a
 * half refused with a data error is split again; a single record refused is written instead as a dead letter (its key,
 * value and timestamp as in the topic, the SQLSTATE and message, how many writes held it) into
 * {@code ingest_dead_letters}, in a transaction that moves its partition's offset past it. So every other record of
 * the batch is stored exactly once, the partition reads on, and a crash in the middle resumes from what committed.
 * Each dead letter is counted ({@code updraft_ingest_dead_letters_total}) and logged with its partition, offset and
 * error.
 *
 * <p>Not thread-safe: the loop's consumer thread only.
 */
final class DeadLetters {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

  static final int DEFAULT_MAX_ATTEMPTS = 5;
  private static final int MAX_ERROR = 2_000;

  static final String INSERT_SQL =
      "INSERT INTO ingest_dead_letters (topic, kafka_partition, record_offset, record_key, record_value,"
          + " record_timestamp, sql_state, error, attempts)"
          + " VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::bigint < 0 THEN NULL ELSE to_timestamp($6::bigint / 1000.0::float8) END,"
          + " $7, $8, $9) ON CONFLICT DO NOTHING";

  /** Records to write together; {@code refused} is the data error of their last write (null: not written yet). */
  private record Chunk(List<ConsumerRecord<byte[], byte[]>> records, int tries, Throwable refused) {}

  private final BatchWriter writer;
  private final Intake intake;
  private final IngestMetrics metrics;
  private final int maxAttempts;
  /** Consecutive data errors of the batch the loop holds. */
  private int attempts;

  /** @param intake the loop's (records are read again through {@link Intake#again()}, neither counted nor logged twice) */
  DeadLetters(BatchWriter writer, Intake intake, IngestMetrics metrics, int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: maxAttempts=" + maxAttempts);
    }
    this.writer = writer;
    this.intake = intake.again();
    this.metrics = metrics;
    this.maxAttempts = maxAttempts;
  }

  /** Whether PostgreSQL refused the values themselves (the same write would fail again), not failed as a server. */
  static boolean dataError(Throwable err) {
    if (!(err instanceof PgException pg) || pg.getSqlState() == null) {
      return false;
    }
    String s = pg.getSqlState();
    return s.startsWith("22") || s.startsWith("23") || s.startsWith("54");
  }

  /** Counts a failed write of the held batch; true when it has failed with a data error {@code --ingest-max-attempts} times. */
  boolean exhausted(Throwable err) {
    if (!dataError(err)) {
      return false;
    }
    attempts++;
    return attempts >= maxAttempts;
  }

  /** The held batch was stored or dropped: the next failure counts from 1 again. */
  void reset() {
    attempts = 0;
  }

  /**
   * Writes {@code failed}'s records in halves until every one is stored or set aside (see the class comment).
   *
   * @return null when all of them were, otherwise the failure that stopped the isolation (a {@link
   *     BatchWriter.StaleBatchException} or PostgreSQL failing): some halves may be stored, so the loop reads on from
   *     the offsets PostgreSQL holds
   */
  Throwable isolate(Batch failed, Throwable refused) {
    int tries = attempts;
    reset();
    LOG.warn("PostgreSQL refused a batch of {} records {} times ({}): writing it in halves to set aside the records it"
        + " refuses alone (ranges={})", failed.records(), tries, describe(refused), BatchWriter.describe(failed));
    Map<TopicPartition, Partitions.Position> positions = new HashMap<>();
    for (Map.Entry<TopicPartition, Batch.Range> e : failed.ranges().entrySet()) {
      positions.put(e.getKey(), new Partitions.Position(e.getValue().expected, e.getValue().expectedRow));
    }
    Deque<Chunk> work = new ArrayDeque<>();
    work.add(new Chunk(failed.consumed(), tries, refused));
    while (!work.isEmpty()) {
      Chunk c = work.pollFirst();
      if (c.refused() == null) {
        Batch part = new Batch(false);
        for (ConsumerRecord<byte[], byte[]> r : c.records()) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          intake.accept(part, tp, positions.get(tp), r);
        }
        Throwable err = writeNow(part);
        if (err == null) {
          metrics.records.increment(part.checkIns());
          metrics.batches.increment();
          continue;
        }
        for (Map.Entry<TopicPartition, Batch.Range> e : part.ranges().entrySet()) {
          positions.put(e.getKey(), new Partitions.Position(e.getValue().expected, e.getValue().expectedRow));
        }
        if (!dataError(err)) {
          return err;
        }
        c = new Chunk(c.records(), c.tries() + 1, err);
      }
      int n = c.records().size();
      if (n > 1) {
        work.addFirst(new Chunk(c.records().subList(n / 2, n), c.tries(), null));
        work.addFirst(new Chunk(c.records().subList(0, n / 2), c.tries(), null));
        continue;
      }
      Throwable err = setAside(c.records().get(0), c.refused(), c.tries(), positions);
      if (err != null) {
        return err;
      }
    }
    return null;
  }

  private Throwable setAside(
      ConsumerRecord<byte[], byte[]> r, Throwable refused, int tries, Map<TopicPartition, Partitions.Position> positions) {
    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
    Partitions.Position p = positions.get(tp);
    Batch letter = new Batch(false);
    letter.cover(tp, p.next, p.row, r.offset());
    String sqlState = refused instanceof PgException pg ? pg.getSqlState() : null;
    String error = refused.getMessage() == null ? refused.toString() : refused.getMessage();
    error = CheckIns.withoutNul(error.length() > MAX_ERROR ? error.substring(0, MAX_ERROR) : error);
    letter.deadLetter(new Batch.DeadLetter(r, sqlState, error, tries));
    Throwable err = writeNow(letter);
    if (err != null) {
      return err;
    }
    p.next = r.offset() + 1;
    p.row = true;
    metrics.deadLetters.increment();
    LOG.error("set aside a record PostgreSQL refused {} times in ingest_dead_letters: topic={} partition={} offset={}:"
        + " SQLSTATE {} {}", tries, r.topic(), r.partition(), r.offset(), sqlState, error);
    return null;
  }

  private Throwable writeNow(Batch b) {
    try {
      writer.write(b).toCompletionStage().toCompletableFuture().get(Writes.WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    }
  }

  /** The parameters of {@link #INSERT_SQL} for {@code d}. */
  static Tuple tuple(Batch.DeadLetter d) {
    ConsumerRecord<byte[], byte[]> r = d.record();
    return Tuple.tuple()
        .addString(r.topic())
        .addInteger(r.partition())
        .addLong(r.offset())
        .addBuffer(r.key() == null ? null : Buffer.buffer(r.key()))
        .addBuffer(r.value() == null ? null : Buffer.buffer(r.value()))
        .addLong(r.timestamp())
        .addString(d.sqlState())
        .addString(d.error())
        .addInteger(d.attempts());
  }

  private static String describe(Throwable err) {
    return err instanceof PgException pg ? "SQLSTATE " + pg.getSqlState() + " " + pg.getMessage() : String.valueOf(err);
  }
}
