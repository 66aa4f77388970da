package dev.updraft.edge.log;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.events.SnapshotSet;
import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the {@link EventLogReader} starts each partition, and what the image shows until it gets there: the stored
 * image ({@code --data-dir} or {@code --image-source}) when the log still holds what follows it, else the newest app
 * snapshots (read and decoded on a thread of their own while the consumer connects), else offset 0. A stored image is
 * served, before the log answers, once {@code --stored-image-after} has passed. Reader thread only.
 */
final class LogStart {
  private static final Logger LOG = LoggerFactory.getLogger(LogStart.class);

  private final String bootstrap;
  private final KafkaClientConfig kafka;
  private final String topic;
  /** Nullable: no snapshots, every partition from offset 0. */
  private final String snapshotsTopic;
  private final String clientId;
  private final LiveImage live;
  private final MeterRegistry registry;
  private final RecordFolder folder;
  /** Nullable: no --data-dir, nothing stored. */
  private final ImageStore store;
  /** Nullable: no --image-source. */
  private final StorageImage storage;
  private final long storedAfterNanos;

  /** The stored image the image was built from, until it is found to match the log or not. */
  private StoredImage restored;
  /** Nano time from which a stored image is served while Kafka has not answered; 0: none. */
  private long serveStoredAt;
  private long startNanos;
  /** The snapshots being read; null without a snapshots topic or while a stored image is tried. */
  private CompletableFuture<SnapshotSet.Result> loading;

  LogStart(String bootstrap, KafkaClientConfig kafka, String topic, String snapshotsTopic, String clientId, LiveImage live,
      MeterRegistry registry, RecordFolder folder, ImageStore store, StorageImage storage, long storedAfterNanos) {
    this.bootstrap = bootstrap;
    this.kafka = kafka;
    this.topic = topic;
    this.snapshotsTopic = snapshotsTopic;
    this.clientId = clientId;
    this.live = live;
    this.registry = registry;
    this.folder = folder;
    this.store = store;
    this.storage = storage;
    this.storedAfterNanos = storedAfterNanos;
  }

  /** Restores the stored image, if any, or starts reading the snapshots; before the consumer connects. */
  void begin(long nowNanos) {
    startNanos = nowNanos;
    restored = store == null && storage == null ? null : StoredStart.restore(store, storage, folder, live, topic);
    serveStoredAt = restored == null ? 0 : nowNanos + storedAfterNanos;
    // the snapshots are read and decoded while the consumer connects and finds the partitions
    loading = restored != null ? null : loadingSnapshots();
  }

  /** Whether a stored image waits to be served (the reader then asks Kafka for the partitions with a shorter wait). */
  boolean waitingToServe() {
    return serveStoredAt != 0 && !live.ready();
  }

  /**
   * Seeks every partition of {@code c} (assigned, at their beginning) to where reading starts: after the stored image
   * when the log matches it, else after the snapshots.
   *
   * @return the start offset per partition id (absent: 0)
   */
  Map<Integer, Long> seek(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
    Map<Integer, Long> from = restored == null ? null : StoredStart.matching(c, partitions, restored, store, folder, live);
    if (from == null) {
      loading = restored != null ? loadingSnapshots() : loading; // the stored image did not match: as without one
      restored = null;
      from = loadSnapshots(partitions);
    }
    for (TopicPartition tp : partitions) {
      if (from.getOrDefault(tp.partition(), 0L) > 0) {
        c.seek(tp, from.get(tp.partition()));
      }
    }
    return from;
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
  private Map<Integer, Long> loadSnapshots(List<TopicPartition> partitions) {
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

  /**
   * Serves the stored image when it is due ({@code --stored-image-after} since the start) and the log has not
   * been heard from since the start (Kafka unreachable or refusing, or the topic missing).
   */
  void serveStoredIfDue(long nowNanos) {
    if (serveStoredAt != 0 && restored != null && !live.ready() && nowNanos - serveStoredAt >= 0
        && live.lastHeardNanos() - startNanos < 0) {
      live.markReadyFromStore();
      LOG.warn("{} cannot be read (Kafka unreachable or refusing, or the topic missing): serving the image from {}, {} s old,"
          + " offsets {}; it catches up from those offsets when Kafka answers", topic, live.storedFrom(), Math.round(live.stalenessNanos() / 1e9),
          live.offsets());
    }
  }
}
