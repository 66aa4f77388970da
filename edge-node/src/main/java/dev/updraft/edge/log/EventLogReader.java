package dev.updraft.edge.log;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.KafkaRefusal;
import dev.updraft.common.loop.ErrorBackoff;
import dev.updraft.common.loop.IdleStrategy;
import dev.updraft.common.loop.LoopAgent;
import dev.updraft.common.loop.LoopClock;
import dev.updraft.common.loop.LoopRunner;
import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.LiveImage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds {@code updraft.events} into a {@link LiveImage} on a thread of its own: every partition from
 * offset 0 by {@code assign} (no consumer group, so any number of edges read independently),
 * {@code read_committed} (the control plane writes in transactions). Each poll's records go into one
 * {@link ImageDelta} whose new image is published with one reference swap; when a poll ends inside an app's
 * transaction (its last record read carries {@link dev.updraft.events.Topics#MORE_HEADER}), the delta is held
 * and the next polls fold into it until the transaction's last record, so no image shows half a command. The
 * image is marked ready once the reader has passed the end offsets it saw at start.
 *
 * <p>What it does with records this build cannot use (unknown types, bytes that are not events, duplicates,
 * sequence gaps): {@link RecordFolder}.
 *
 * <p>How stale the image may be: {@code updraft_edge_log_staleness_seconds} is the time since the reader
 * last heard from the log, that is since a poll returned records or the consumer received a fetch
 * response (counted by the consumer's own {@code fetch-total} metric; a caught-up consumer gets an empty
 * one at least every {@code fetch.max.wait.ms}, 500 ms). It stays below a second while Kafka answers and
 * grows while the edge is cut off from Kafka, when the image keeps serving what it had (since the
 * reader started, before the first answer).
 *
 * <p>Where reading starts (a stored image, the snapshots, offset 0): {@link LogStart}. The thread is a {@link LoopRunner}
 * (this is its {@link LoopAgent}): a duty cycle finds the partitions and where to start them, then polls; a failed
 * cycle (a broker or network failure, or a refusal, carried by {@code /readyz}) keeps the last image and is retried
 * after 1 s, and a missing topic is waited for in steps of 500 ms.
 *
 * <p>Thread-safety: the reader thread owns the consumer; {@link #close()} may be called from any thread.
 */
public final class EventLogReader implements AutoCloseable, LoopAgent {
  private static final Logger LOG = LoggerFactory.getLogger(EventLogReader.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final long PARTITION_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final ErrorBackoff RETRY = ErrorBackoff.fixed(TimeUnit.SECONDS.toNanos(1));
  private static final IdleStrategy TOPIC_WAIT = IdleStrategy.sleeping(TimeUnit.MILLISECONDS.toNanos(500));

  /** The gauge of the seconds since the reader last heard from the log (its Micrometer name). */
  public static final String STALENESS_GAUGE = "updraft.edge.log.staleness";

  private final String topic;
  private final KafkaClientConfig kafka;
  private final LiveImage live;
  private final Properties props;
  private final Thread thread;
  private volatile boolean closed;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile long lag = -1;
  /** Nullable: no --data-dir, nothing stored. */
  private final ImageStore store;
  private final LogStart start;
  private final LoopClock clock = LoopClock.SYSTEM;
  private final LoopRunner runner;
  private final RecordFolder folder;

  // reader thread only
  private LogHeartbeat heartbeat;
  private long t0;
  /** The end offsets to pass before the image is ready; null until every partition is positioned. */
  private Map<TopicPartition, Long> target;
  private long tail;
  private long nextRecheck;
  private boolean loggedWaiting;
  private final OpenTransactions transactions = new OpenTransactions(); // reader thread only
  /** The delta of the polls since a transaction was read in part, not yet published (reader thread only). */
  private ImageDelta held;
  private final Counter unfinishedTransactions;

  /**
   * @param bootstrap Kafka bootstrap servers
   * @param topic the events topic ({@code Topics.events(prefix)})
   * @param clientId Kafka client id (names the edge in broker logs)
   */
  public EventLogReader(String bootstrap, String topic, String clientId, LiveImage live, MeterRegistry registry) {
    this(bootstrap, topic, null, clientId, live, registry);
  }

  /**
   * @param snapshotsTopic nullable: the snapshots topic ({@code Topics.snapshots(prefix)}) to start from
   */
  public EventLogReader(String bootstrap, String topic, String snapshotsTopic, String clientId, LiveImage live, MeterRegistry registry) {
    this(bootstrap, KafkaClientConfig.none(), topic, snapshotsTopic, clientId, live, registry, null);
  }

  /**
   * @param kafka the {@code --kafka-config} settings added to each of its consumers
   * @param stored nullable: where and how often to store the image, and how long to wait for Kafka before
   *     serving a stored one
   */
  public EventLogReader(String bootstrap, KafkaClientConfig kafka, String topic, String snapshotsTopic, String clientId, LiveImage live,
      MeterRegistry registry, StoredImages stored) {
    this.kafka = kafka;
    this.store = stored == null || stored.dataDir() == null ? null : new ImageStore(stored.dataDir(), topic, stored.interval(), registry);
    StorageImage storage = stored == null || stored.source() == null ? null : stored.source().open(registry);
    this.topic = topic;
    this.live = live;
    props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());

    folder = new RecordFolder(topic, live, registry);
    start = new LogStart(bootstrap, kafka, topic, snapshotsTopic, clientId, live, registry, folder, store, storage,
        stored == null ? 0 : stored.serveAfter().toNanos());
    runner = new LoopRunner(this, TOPIC_WAIT, RETRY, clock);
    unfinishedTransactions = Counter.builder("updraft.edge.transactions.unfinished")
        .description("Transactions read in part with no more of them in the log, published as read")
        .register(registry);
    Gauge.builder("updraft.edge.log.lag.records", this, r -> r.lag)
        .description("Records between the image and the log end (-1 before the first poll)")
        .register(registry);
    Gauge.builder(STALENESS_GAUGE, this, EventLogReader::stalenessSeconds)
        .baseUnit("seconds")
        .description("Seconds since the log reader last heard from Kafka (records or a fetch response)")
        .register(registry);
    thread = new Thread(runner, "updraft-edge-log");
    thread.setDaemon(true);
  }

  /** Sets a property of the Kafka consumer (tests: smaller fetches); before {@link #start()}. */
  void consumerProperty(String key, String value) {
    props.put(key, value);
  }

  /** Starts the reader thread (and the image store's writes). */
  public void start() {
    thread.start();
    if (store != null) {
      store.start();
    }
  }

  /** Records behind the log end at the last poll, or -1 before the first. */
  public long lag() {
    return lag;
  }

  /** Seconds since the reader last heard from the log (see the class comment). */
  public double stalenessSeconds() {
    return live.stalenessNanos() / 1e9;
  }

  @Override
  public String name() {
    return "edge log reader topic=" + topic;
  }

  @Override
  public void onStart() {
    t0 = clock.nanoTime();
    start.begin(t0);
    consumer = new KafkaConsumer<>(kafka.apply(props));
    heartbeat = LogHeartbeat.of(consumer);
  }

  @Override
  public int doWork() {
    KafkaConsumer<byte[], byte[]> c = consumer;
    try {
      return target == null ? position(c) : read(c);
    } catch (WakeupException e) {
      if (!closed) {
        LOG.warn("log reader woken up while open; continuing");
      }
      return 1;
    } catch (InterruptException e) {
      runner.stop(); // the thread was interrupted: stop as close() does
      return 1;
    }
  }

  /** Finds the partitions and seeks each to where reading starts; 0 while the topic does not exist yet. */
  private int position(KafkaConsumer<byte[], byte[]> c) {
    List<TopicPartition> partitions = EventsPartitions.of(c, topic, start.waitingToServe() ? Duration.ofSeconds(1) : Duration.ofSeconds(5));
    if (partitions.isEmpty()) {
      start.serveStoredIfDue(clock.nanoTime());
      if (!loggedWaiting) {
        LOG.info("waiting for topic {} to exist", topic);
        loggedWaiting = true;
      }
      return 0;
    }
    live.refusal(null);
    live.phases().since("kafkaConnect", t0);
    c.assign(partitions);
    c.seekToBeginning(partitions);
    Map<Integer, Long> from = start.seek(c, partitions);
    tail = clock.nanoTime();
    target = new HashMap<>(c.endOffsets(partitions));
    nextRecheck = clock.nanoTime() + PARTITION_RECHECK_NANOS;
    LOG.info("reading {} from offsets {} of {} partitions after {} app snapshots{}; ready after end offsets {}", topic, from,
        partitions.size(), live.snapshotApps(), live.fromStore() ? " and the stored image" : "", target);
    return 1;
  }

  /** One poll folded into the image; marks the image ready once the end offsets seen at start are passed. */
  private int read(KafkaConsumer<byte[], byte[]> c) {
    pollOnce(c);
    if (live.refusal() != null) {
      live.refusal(null);
    }
    if (!live.caughtUp()) {
      start.serveStoredIfDue(clock.nanoTime());
    }
    if (!live.caughtUp() && reached(c, target)) {
      live.phases().since("tailReplay", tail);
      if (live.servingStored()) {
        LOG.info("caught up with {} after serving the stored image: {} events read after its offsets", topic, live.eventsReplayed());
      }
      live.markReady();
      LOG.info("image ready: apps={} groups={} bytes={}", live.image().appCount(), live.image().groupCount(),
          live.image().bytes());
    }
    if (clock.nanoTime() - nextRecheck > 0) {
      nextRecheck = clock.nanoTime() + PARTITION_RECHECK_NANOS;
      EventsPartitions.addNew(c, topic);
    }
    return 1;
  }

  /** A failed cycle keeps serving the last image; while starting, the stored one may become due. */
  @Override
  public void recover(RuntimeException e) {
    if (target == null) {
      start.serveStoredIfDue(clock.nanoTime());
    }
  }

  /**
   * Whether {@code e} is Kafka refusing this edge (credentials, TLS, an ACL): then {@code /readyz} carries the reason,
   * logged once per reason (no stack-trace loop) by the runner, until reading works again.
   */
  @Override
  public String refusal(RuntimeException e) {
    String why = KafkaRefusal.of(e);
    if (why != null) {
      live.refusal(why);
    }
    return why;
  }

  @Override
  public void onClose(Throwable crash) {
    KafkaConsumer<byte[], byte[]> c = consumer;
    consumer = null;
    if (c != null) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.debug("closing the log consumer: {}", e.toString());
      }
    }
  }

  @Override
  public void wake() {
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  private void pollOnce(KafkaConsumer<byte[], byte[]> c) {
    ConsumerRecords<byte[], byte[]> records = c.poll(POLL);
    if (heartbeat.answered(!records.isEmpty())) {
      live.heard(clock.nanoTime());
    }
    if (!records.isEmpty()) {
      ImageDelta delta = held != null ? held : new ImageDelta(live.image());
      long now = clock.nanoTime();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        folder.fold(delta, r);
        transactions.see(r.key(), r.partition(), r.headers(), now);
        if (store != null) {
          store.folded(r);
        }
      }
      held = delta;
    }
    if (held != null && (!transactions.any() || unfinished(c))) {
      ImageDelta delta = held;
      held = null;
      transactions.clear();
      if (!delta.isEmpty()) {
        live.publish(delta.apply());
      }
    }
    if (held == null) {
      Map<Integer, Long> next = new HashMap<>();
      for (TopicPartition tp : c.assignment()) {
        next.put(tp.partition(), c.position(tp));
      }
      if (!next.equals(live.offsets())) {
        live.offsets(next);
      }
      if (store != null && live.caughtUp()) {
        store.whole(next, System.currentTimeMillis() - live.stalenessNanos() / 1_000_000);
      }
    }
    long sum = 0;
    for (TopicPartition tp : c.assignment()) {
      OptionalLong l = c.currentLag(tp);
      if (l.isEmpty()) {
        return; // not known yet: keep the previous figure
      }
      sum += l.getAsLong();
    }
    lag = sum;
  }

  /**
   * Whether the transactions read in part will not be completed by what the log holds (a partition of one is
   * read to its end, or the first opened {@link OpenTransactions#MAX_OPEN_NANOS} ago): then what was read is
   * published, logged and counted. A committed transaction is always whole in the log, so this is a writer
   * whose header lies or a truncated log.
   */
  private boolean unfinished(KafkaConsumer<byte[], byte[]> c) {
    boolean stuck = transactions.tooOld(clock.nanoTime());
    for (TopicPartition tp : c.assignment()) {
      if (!stuck && transactions.inPartition(tp.partition())) {
        OptionalLong l = c.currentLag(tp);
        stuck = l.isPresent() && l.getAsLong() == 0;
      }
    }
    if (stuck) {
      unfinishedTransactions.increment();
      LOG.warn("transactions of apps {} (app@partition) were read in part and the log holds no more of them; "
          + "publishing the image with what was read", transactions.describe());
    }
    return stuck;
  }

  private boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> target) {
    for (Map.Entry<TopicPartition, Long> t : target.entrySet()) {
      if (c.position(t.getKey()) < t.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Stops the reader and waits (bounded) for its thread to end. */
  @Override
  public void close() {
    closed = true;
    runner.stop();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("log reader thread did not stop within 10 s");
    }
    if (store != null) {
      store.close();
      if (!thread.isAlive()) {
        store.saveNow();
      }
    }
  }
}
