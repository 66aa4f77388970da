package dev.updraft.controlplane.log;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's connection to {@code updraft.events}. Not thread-safe: one thread (the command
 * thread) owns it.
 *
 * <p>Writes go through a transactional producer with a fixed {@code transactional.id}: starting another
 * instance with the same id ({@code initTransactions}) fences this one, whose next append fails with
 * {@link LogWriteException.Kind#FENCED}. {@code initTransactions} also completes any transaction a
 * predecessor left open, so the replay that follows sees everything that was committed.
 *
 * <p>When a commit's outcome is unknown (the commit failed without saying it was fenced: Kafka's
 * coordinator can answer a commit that races a new producer's {@code initTransactions} with an invalid
 * state instead of "fenced"), {@link #settle} finds out without writing: from the log whether the records
 * were committed, and from the transaction coordinator ({@code describeTransactions}) whether another
 * producer took the transactional id, comparing its producer id and epoch with the ones this writer's
 * transaction had while open (asked before each commit).
 *
 * <p>Reads go through a {@link LogReader}. State changes only by reading: after a commit the writer reads its
 * own records back ({@link #awaitOwn}) and folds them like any replayed record.
 */
public final class EventLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventLog.class);
  /** How long a new producer may take to retry its InitProducerId after aborting this writer's transaction. */
  private static final Duration FENCE_GRACE = Duration.ofSeconds(5);
  /** What Updraft creates {@code updraft.events} with and its producer sends: {@link RecordLimit#UPDRAFT}. */
  public static final int RECORD_LIMIT_BYTES = RecordLimit.UPDRAFT;

  private final String bootstrap;
  private final KafkaClientConfig kafka;
  private final String topic;
  private final String transactionalId;
  /** Test seam: runs after an append's records are in the log and before its commit; nullable. */
  private final Runnable beforeCommit;
  /** The events topic's record limit: Kafka's default until {@link #startWriter} reads the topic's. */
  private RecordLimit limit = RecordLimit.kafkaDefault();
  /** The events topic's {@code min.insync.replicas}, read by {@link #startWriter}. */
  private int minInsync = 1;
  private KafkaProducer<String, byte[]> producer;
  private Admin coordinator;
  /** Reads the log: the replay at start, then this writer's own records; null before {@link #replay}. */
  private LogReader reader;

  /** @param kafka the {@code --kafka-config} settings added to its producer, admin client and consumers */
  public EventLog(String bootstrap, KafkaClientConfig kafka, String eventsTopic, String transactionalId) {
    this(bootstrap, kafka, eventsTopic, transactionalId, null);
  }

  EventLog(String bootstrap, KafkaClientConfig kafka, String eventsTopic, String transactionalId, Runnable beforeCommit) {
    this.bootstrap = bootstrap;
    this.kafka = kafka;
    this.topic = eventsTopic;
    this.transactionalId = transactionalId;
    this.beforeCommit = beforeCommit;
  }

  public String topic() {
    return topic;
  }

  /**
   * Why the events topic cannot take a write now, or null when it can: Kafka answers for it within {@code timeout}
   * with a leader and at least the topic's {@code min.insync.replicas} in-sync replicas per partition ({@link LogProbe}).
   */
  public String unwritable(Duration timeout) {
    return coordinator == null ? null : LogProbe.unwritable(coordinator, topic, minInsync, timeout);
  }

  /**
   * {@link #unwritable}, asked now and answered by the supplier (which waits until {@code timeout} after this call
   * for Kafka's answer): a command asks before it decides, so the round trip overlaps the decision.
   */
  public Supplier<String> probe(Duration timeout) {
    return coordinator == null ? () -> null : LogProbe.start(coordinator, topic, minInsync, timeout);
  }

  /** The largest encoded event {@link #append} takes. */
  public int maxEventBytes() {
    return limit.maxEventBytes();
  }

  /** Creates the producer and fences any earlier writer with the same transactional id. */
  public void startWriter(Duration timeout) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000);
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, RECORD_LIMIT_BYTES);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId + "-" + UUID.randomUUID().toString().substring(0, 8));
    producer = new KafkaProducer<>(kafka.apply(p), new StringSerializer(), new ByteArraySerializer());
    producer.initTransactions();
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    a.put(AdminClientConfig.CLIENT_ID_CONFIG, transactionalId + "-coordinator-" + UUID.randomUUID().toString().substring(0, 8));
    coordinator = Admin.create(kafka.apply(a));
    limit = RecordLimit.read(coordinator, topic);
    minInsync = LogProbe.minInsyncReplicas(coordinator, topic);
    LOG.info("event writer ready transactionalId={} topic={} maxEventBytes={}", transactionalId, topic, limit.maxEventBytes());
  }

  private Properties readerProperties(String role) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, transactionalId + "-" + role + "-" + UUID.randomUUID().toString().substring(0, 8));
    return kafka.apply(p);
  }

  /**
   * Reads the log from offset 0 to its end as of now, handing every record to {@code sink}.
   *
   * @return the number of records read
   */
  public long replay(Consumer<ConsumerRecord<String, byte[]>> sink, Duration timeout) {
    return replay(ps -> Map.of(), sink, timeout);
  }

  /**
   * Reads the log from where {@code start} says (given the partition ids, the offset to start each at; 0
   * for a partition it does not name) to its end as of now, handing every record to {@code sink}.
   *
   * @return the number of records read
   */
  public long replay(
      java.util.function.Function<List<Integer>, Map<Integer, Long>> start, Consumer<ConsumerRecord<String, byte[]>> sink, Duration timeout) {
    if (reader != null) {
      reader.close();
    }
    reader = new LogReader(bootstrap, topic, readerProperties("reader"));
    return reader.replay(start, sink, timeout);
  }

  /**
   * Appends {@code events} atomically (one transaction).
   *
   * @return where each record landed, in order
   * @throws LogWriteException with {@link LogWriteException.Kind#UNCERTAIN} when the commit's outcome is
   *     unknown: then call {@link #settle}
   */
  public List<RecordMetadata> append(List<EventEnvelope> events) throws LogWriteException {
    if (producer == null) {
      throw new LogWriteException(LogWriteException.Kind.FENCED, "the event writer is closed", null);
    }
    List<byte[]> encoded = new ArrayList<>(events.size());
    for (EventEnvelope e : events) {
      byte[] b = EventCodec.encode(e);
      if (b.length > limit.maxEventBytes()) {
        throw new LogWriteException(LogWriteException.Kind.TOO_LARGE, "event " + e.type().wireName() + " of app " + e.appId() + " is "
            + b.length + " bytes encoded, above the event log's limit of " + limit.maxEventBytes() + " bytes" + limit.raiseHint(), null);
      }
      encoded.add(b);
    }
    List<RecordMetadata> out = new ArrayList<>();
    TransactionDescription open = null;
    boolean committing = false;
    try {
      producer.beginTransaction();
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (ProducerRecord<String, byte[]> record : EventRecords.of(topic, events, encoded)) {
        sent.add(producer.send(record));
      }
      for (Future<RecordMetadata> f : sent) {
        out.add(f.get()); // in the log, not committed yet
      }
      open = describe();
      if (open != null && !(open.state() == TransactionState.ONGOING && open.topicPartitions().containsAll(partitions(out)))) {
        // the coordinator ended this writer's transaction (a new producer's initTransactions aborts it); no commit was sent
        closeProducerQuietly();
        throw new LogWriteException(LogWriteException.Kind.FENCED, "another control plane with transactionalId=" + transactionalId
            + " has taken over the event log: the transaction coordinator ended this writer's transaction before its commit (" + open + ")", null);
      }
      if (beforeCommit != null) {
        beforeCommit.run();
      }
      committing = true;
      commitWithRetries();
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LogWriteException(LogWriteException.Kind.UNCERTAIN, "interrupted while appending", e, attempt(out, open, committing));
    } catch (ExecutionException | KafkaException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      if (Fence.isFencing(cause)) {
        closeProducerQuietly();
        throw new LogWriteException(
            LogWriteException.Kind.FENCED,
            "another control plane with transactionalId=" + transactionalId + " has taken over the event log",
            cause);
      }
      if (committing && cause instanceof TimeoutException) {
        throw new LogWriteException(
            LogWriteException.Kind.UNCERTAIN, "commit timed out: " + cause.getMessage(), cause, attempt(out, open, true));
      }
      try {
        producer.abortTransaction();
      } catch (KafkaException abortFailure) {
        if (Fence.isFencing(abortFailure)) {
          closeProducerQuietly();
          throw new LogWriteException(
              LogWriteException.Kind.FENCED,
              "another control plane with transactionalId=" + transactionalId + " has taken over the event log",
              abortFailure);
        }
        throw new LogWriteException(
            LogWriteException.Kind.UNCERTAIN, "append failed and could not be aborted: " + cause.getMessage(), cause,
            attempt(out, open, committing));
      }
      throw new LogWriteException(LogWriteException.Kind.ABORTED, "append failed, nothing written: " + cause.getMessage(), cause);
    }
  }

  /**
   * Writes {@code records} (to another topic: the snapshots) in one transaction of this writer's
   * producer, so that readers ({@code read_committed}) see all of them or none; {@code beforeCommit}
   * (nullable, a test seam) runs after they are sent. A failure aborts the transaction.
   *
   * @throws LogWriteException {@link LogWriteException.Kind#FENCED} when another writer took over, otherwise
   *     {@link LogWriteException.Kind#ABORTED} (nothing written) or {@link LogWriteException.Kind#UNCERTAIN}
   */
  public void writeOther(List<ProducerRecord<String, byte[]>> records, Runnable beforeCommit) throws LogWriteException {
    if (producer == null) {
      throw new LogWriteException(LogWriteException.Kind.FENCED, "the event writer is closed", null);
    }
    try {
      producer.beginTransaction();
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (ProducerRecord<String, byte[]> r : records) {
        sent.add(producer.send(r));
      }
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
      if (beforeCommit != null) {
        beforeCommit.run();
      }
      commitWithRetries();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LogWriteException(LogWriteException.Kind.UNCERTAIN, "interrupted while writing", e);
    } catch (ExecutionException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      if (Fence.isFencing(cause)) {
        closeProducerQuietly();
        throw new LogWriteException(LogWriteException.Kind.FENCED,
            "another control plane with transactionalId=" + transactionalId + " has taken over the event log", cause);
      }
      try {
        producer.abortTransaction();
      } catch (KafkaException abortFailure) {
        closeProducerQuietly();
        throw new LogWriteException(Fence.isFencing(abortFailure) ? LogWriteException.Kind.FENCED : LogWriteException.Kind.UNCERTAIN,
            "write to another topic failed and could not be aborted: " + cause.getMessage(), abortFailure);
      }
      throw new LogWriteException(LogWriteException.Kind.ABORTED, "write aborted, nothing written: " + cause.getMessage(), cause);
    }
  }

  private static Attempt attempt(List<RecordMetadata> records, TransactionDescription open, boolean commitSent) {
    return open == null
        ? new Attempt(records, -1, -1, commitSent)
        : new Attempt(records, open.producerId(), open.producerEpoch(), commitSent);
  }

  /**
   * After {@link #append} failed with {@link LogWriteException.Kind#UNCERTAIN}: finds out, without writing,
   * whether that append was committed (reading the log) and whether another writer took the transactional
   * id (asking the transaction coordinator), for up to {@code timeout}. The producer is closed first:
   * whatever the outcome, this writer cannot write again. Blocking; the command thread only.
   */
  public Settlement settle(LogWriteException failure, Duration timeout) {
    Attempt attempt = failure.attempt();
    closeProducerQuietly();
    if (attempt == null) {
      return new Settlement(Settlement.Outcome.UNKNOWN, List.of(), failure.getMessage());
    }
    boolean read = attempt.commitSent() && !attempt.records().isEmpty();
    try (KafkaConsumer<String, byte[]> reader = read ? new KafkaConsumer<>(readerProperties("settle"), new StringDeserializer(), new ByteArrayDeserializer()) : null) {
      Settlement s = Settle.settle(
          attempt,
          this::describe,
          () -> read ? CommitCheck.committed(reader, attempt.records()) : (attempt.commitSent() ? null : Boolean.FALSE),
          timeout,
          FENCE_GRACE,
          System::nanoTime,
          () -> sleepQuietly(100));
      LOG.warn("settled an append whose commit was unknown: outcome={} reason={} (the failure: {})", s.outcome(), s.reason(), failure.getMessage());
      return s;
    }
  }

  /** The coordinator's description of this writer's transactional id; null when it cannot be had. */
  private TransactionDescription describe() {
    if (coordinator == null) {
      return null;
    }
    try {
      return coordinator.describeTransactions(List.of(transactionalId)).description(transactionalId).get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
      LOG.debug("cannot describe transactionalId={}: {}", transactionalId, e.toString());
      return null;
    }
  }

  private static Set<TopicPartition> partitions(List<RecordMetadata> records) {
    Set<TopicPartition> out = new HashSet<>();
    for (RecordMetadata m : records) {
      out.add(new TopicPartition(m.topic(), m.partition()));
    }
    return out;
  }

  private void commitWithRetries() {
    for (int attempt = 1; ; attempt++) {
      try {
        producer.commitTransaction();
        return;
      } catch (TimeoutException e) {
        if (attempt >= 3) {
          throw e;
        }
        LOG.warn("commit timed out (attempt {}), retrying: {}", attempt, e.getMessage());
      }
    }
  }

  /**
   * Reads until every record in {@code written} has been read back (handing everything read to
   * {@code sink}, in order).
   */
  public void awaitOwn(List<RecordMetadata> written, Consumer<ConsumerRecord<String, byte[]>> sink, Duration timeout)
      throws LogWriteException {
    reader.awaitOwn(written, sink, timeout);
  }

  private void closeProducerQuietly() {
    if (producer != null) {
      try {
        producer.close(Duration.ZERO);
      } catch (RuntimeException e) {
        LOG.debug("closing fenced producer: {}", e.toString());
      }
      producer = null;
    }
  }

  static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        LOG.warn("closing producer: {}", e.toString());
      }
      producer = null;
    }
    if (coordinator != null) {
      try {
        coordinator.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        LOG.warn("closing admin client: {}", e.toString());
      }
      coordinator = null;
    }
    if (reader != null) {
      reader.close();
      reader = null;
    }
  }
}
