package dev.updraft.edge.log;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.KafkaRefusal;
import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.events.SnapshotSet;
import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * <p>Thread-safety: the reader thread owns the consumer; {@link #close()} may be called from any thread.
 */
public final class EventLogReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventLogReader.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final long PARTITION_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(30);

  /** The gauge of the seconds since the reader last heard from the log (its Micrometer name). */
  public static final String STALENESS_GAUGE = "updraft.edge.log.staleness";

  private final String topic;
  /** Nullable: no snapshots, every partition from offset 0. */
  private final String snapshotsTopic;
  private final String bootstrap;
  private final KafkaClientConfig kafka;
  private final String clientId;
  private final LiveImage live;
  private final Properties props;
  private final Thread thread;
  private volatile boolean closed;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile long lag = -1;
  /** Nullable: no --data-dir, nothing stored. */
  private final ImageStore store;
  /** Nullable: no --image-source. */
  private final StorageImage storage;
  /** How long a start with a stored image waits for Kafka before serving it. */
  private final long storedAfterNanos;
  /** The stored image the image was built from, until it is found to match the log or not (reader thread). */
  private StoredImage restored;
  /** {@link System#nanoTime} from which a stored image is served while Kafka has not answered; 0: none (reader thread). */
  private long serveStoredAt;
  private long startNanos;
  private LogHeartbeat heartbeat; // reader thread only

  private final MeterRegistry registry;
  private final RecordFolder folder;
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
    this.storage = stored == null || stored.source() == null ? null : stored.source().open(registry);
    this.storedAfterNanos = stored == null ? 0 : stored.serveAfter().toNanos();
    this.topic = topic;
    this.snapshotsTopic = snapshotsTopic;
    this.bootstrap = bootstrap;
    this.clientId = clientId;
    this.registry = registry;
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
    thread = new Thread(this::run, "updraft-edge-log");
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

  private void run() {
    long t0 = System.nanoTime();
    startNanos = t0;
    restored = store == null && storage == null ? null : StoredStart.restore(store, storage, folder, live, topic);
    serveStoredAt = restored == null ? 0 : t0 + storedAfterNanos;
    // the snapshots are read and decoded while this consumer connects and finds the partitions
    CompletableFuture<SnapshotSet.Result> loading = restored != null ? null : loadingSnapshots();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(kafka.apply(props))) {
      consumer = c;
      if (closed) {
        return;
      }
      heartbeat = LogHeartbeat.of(c);
      Map<TopicPartition, Long> target = null;
      long tail = 0;
      while (target == null) {
        List<TopicPartition> partitions = awaitPartitions(c);
        if (partitions == null) {
          return;
        }
        try {
          live.phases().since("kafkaConnect", t0);
          c.assign(partitions);
          c.seekToBeginning(partitions);
          Map<Integer, Long> from = restored == null ? null : StoredStart.matching(c, partitions, restored, store, folder, live);
          if (from == null) {
            loading = restored != null ? loadingSnapshots() : loading; // the stored image did not match: as without one
            restored = null;
            from = loadSnapshots(loading, partitions);
          }
          for (TopicPartition tp : partitions) {
            if (from.getOrDefault(tp.partition(), 0L) > 0) {
              c.seek(tp, from.get(tp.partition()));
            }
          }
          tail = System.nanoTime();
          target = new HashMap<>(c.endOffsets(partitions));
          LOG.info("reading {} from offsets {} of {} partitions after {} app snapshots{}; ready after end offsets {}", topic, from,
              partitions.size(), live.snapshotApps(), live.fromStore() ? " and the stored image" : "", target);
        } catch (WakeupException | InterruptException e) {
          throw e;
        } catch (RuntimeException e) {
          LOG.warn("starting to read {} failed, retrying in 1 s: {}", topic, e.toString());
          serveStoredIfDue();
          pause(1000);
        }
      }
      long nextRecheck = System.nanoTime() + PARTITION_RECHECK_NANOS;
      while (!closed) {
        try {
          pollOnce(c);
          if (live.refusal() != null) {
            live.refusal(null);
          }
          if (!live.caughtUp()) {
            serveStoredIfDue();
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
          if (System.nanoTime() - nextRecheck > 0) {
            nextRecheck = System.nanoTime() + PARTITION_RECHECK_NANOS;
            EventsPartitions.addNew(c, topic);
          }
        } catch (WakeupException | InterruptException e) {
          if (!closed) {
            LOG.warn("log reader woken up while open; continuing");
          }
        } catch (RuntimeException e) {
          // a broker or network failure, or a refusal: keep serving the last image and try again
          if (!refused(e)) {
            LOG.warn("reading {} failed, retrying in 1 s: {}", topic, e.toString());
          }
          pause(1000);
        }
      }
    } catch (WakeupException | InterruptException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("log reader stopped: {}; the image stays at its last state", e.toString(), e);
    } finally {
      consumer = null;
    }
  }

  /** Starts reading and decoding the snapshots topic on a thread of its own; null without one. */
  private CompletableFuture<SnapshotSet.Result> loadingSnapshots() {
    return snapshotsTopic == null ? null
        : CompletableFuture.supplyAsync(() -> SnapshotLoader.load(bootstrap, kafka, snapshotsTopic, clientId, live, registry, store), r -> {
          Thread t = new Thread(r, "updraft-edge-snapshots");
          t.setDaemon(true);
          t.start();
        });
  }

  /**
   * Waits for the image built from the snapshots (when there is a snapshots topic, {@link SnapshotLoader#load},
   * started with the reader) and returns where to start each partition.
   */
  private Map<Integer, Long> loadSnapshots(CompletableFuture<SnapshotSet.Result> loading, List<TopicPartition> partitions) {
    List<Integer> ids = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      ids.add(tp.partition());
    }
    if (loading == null) {
      if (store != null) {
        store.snapshotRecords(Map.of());
      }
      return Map.of();
    }
    SnapshotSet.Result snapshots;
    try {
      snapshots = loading.join();
      folder.snapshots(snapshots);
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
    }
    return snapshots.startOffsets(ids);
  }

  private void pollOnce(KafkaConsumer<byte[], byte[]> c) {
    ConsumerRecords<byte[], byte[]> records = c.poll(POLL);
    if (heartbeat.answered(!records.isEmpty())) {
      live.heard(System.nanoTime());
    }
    if (!records.isEmpty()) {
      ImageDelta delta = held != null ? held : new ImageDelta(live.image());
      long now = System.nanoTime();
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
    boolean stuck = transactions.tooOld(System.nanoTime());
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

  /**
   * Serves the stored image when it is due ({@code --stored-image-after} since the start) and the log has not
   * been heard from since the start (Kafka unreachable or refusing, or the topic missing); reader thread.
   */
  private void serveStoredIfDue() {
    if (serveStoredAt != 0 && restored != null && !live.ready() && System.nanoTime() - serveStoredAt >= 0
        && live.lastHeardNanos() - startNanos < 0) {
      live.markReadyFromStore();
      LOG.warn("{} cannot be read (Kafka unreachable or refusing, or the topic missing): serving the image from {}, {} s old,"
          + " offsets {}; it catches up from those offsets when Kafka answers", topic, live.storedFrom(), Math.round(live.stalenessNanos() / 1e9),
          live.offsets());
    }
  }

  /**
   * Whether {@code e} is Kafka refusing this edge (credentials, TLS, an ACL): then {@code /readyz} carries the reason,
   * logged once per reason (no stack-trace loop), until reading works again.
   */
  private boolean refused(RuntimeException e) {
    String why = KafkaRefusal.of(e);
    if (why == null) {
      return false;
    }
    if (!why.equals(live.refusal())) {
      LOG.error("reading {}: {}", topic, why);
    }
    live.refusal(why);
    return true;
  }

  /** Waits until the topic exists (the control plane creates it), serving a stored image when due; null when closed meanwhile. */
  private List<TopicPartition> awaitPartitions(KafkaConsumer<byte[], byte[]> c) {
    boolean logged = false;
    while (!closed) {
      boolean waitingToServe = serveStoredAt != 0 && !live.ready();
      List<TopicPartition> found;
      try {
        found = EventsPartitions.of(c, topic, waitingToServe ? Duration.ofSeconds(1) : Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        if (!refused(e)) {
          throw e;
        }
        serveStoredIfDue();
        pause(2000);
        continue;
      }
      if (!found.isEmpty()) {
        live.refusal(null);
        return found;
      }
      serveStoredIfDue();
      if (!logged) {
        LOG.info("waiting for topic {} to exist", topic);
        logged = true;
      }
      pause(500);
    }
    return null;
  }

  private void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /** Stops the reader and waits (bounded) for its thread to end. */
  @Override
  public void close() {
    closed = true;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
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
