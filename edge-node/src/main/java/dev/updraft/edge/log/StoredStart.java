package dev.updraft.edge.log;

import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.events.SnapshotSet;
import dev.updraft.events.StoredImage;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start of an edge from the image it stored ({@link StoredImage}) under {@code --data-dir}, or else from the
 * newest one the control plane wrote to the asset storage ({@link StorageImage}, {@code --image-source}): the image
 * is rebuilt from the stored records before Kafka is asked anything ({@link #restore}), and, once Kafka answers, checked against the log
 * ({@link #matching}): a stored offset beyond a partition's end or before its start, or a partition the
 * topic no longer has, means the image is of another log (a topic recreated, a restore into new topics), and
 * the edge starts from Kafka as if there were none. Reader thread only.
 */
final class StoredStart {
  private static final Logger LOG = LoggerFactory.getLogger(StoredStart.class);

  private StoredStart() {}

  /**
   * Builds the image from the stored one (not ready yet: the reader serves it once Kafka has not answered for
   * {@code --stored-image-after}); null when there is none or it cannot be used, or its records do not fold.
   */
  static StoredImage restore(ImageStore store, StorageImage storage, RecordFolder folder, LiveImage live, String topic) {
    StoredImage stored = store == null ? null : store.load();
    String from = store == null ? null : "data-dir " + store.file();
    if (stored == null && storage != null) {
      stored = storage.load(topic);
      from = "storage " + storage.describe();
    }
    if (stored == null) {
      return null;
    }
    long t0 = System.nanoTime();
    try {
      SnapshotSet set = new SnapshotSet();
      for (Map.Entry<String, byte[]> e : stored.snapshotRecords().entrySet()) {
        set.accept(e.getKey(), e.getValue());
      }
      SnapshotSet.Result snapshots = set.result();
      live.publish(ImageDelta.loadAll(ResolveImage.EMPTY, snapshots.snapshots().values(), Runnable::run));
      live.loadedSnapshots(snapshots.snapshots().size());
      folder.snapshots(snapshots.withoutSnapshots());
      ImageDelta delta = new ImageDelta(live.image());
      for (StoredImage.EventRecord r : stored.events()) {
        folder.fold(delta, new ConsumerRecord<>(topic, r.partition(), r.offset(), r.key(), r.value()));
      }
      if (!delta.isEmpty()) {
        live.publish(delta.apply());
      }
    } catch (RuntimeException e) {
      live.publish(ResolveImage.EMPTY);
      live.loadedSnapshots(0);
      folder.snapshots(new SnapshotSet().result());
      return unusable(store, "corrupt", "the image from " + from + ": its records do not fold: " + e);
    }
    live.restoredFromStore(stored.events().size(), from);
    live.offsets(stored.nextOffsets());
    long ageMillis = Math.max(0, System.currentTimeMillis() - stored.heardAtMillis());
    live.heard(System.nanoTime() - ageMillis * 1_000_000);
    live.phases().since("storedImage", t0);
    if (store != null) {
      store.startFrom(stored, from.startsWith("data-dir "));
    }
    LOG.info("image rebuilt from {} in {} ms: {} app snapshots, {} events, offsets {}, {} s old; apps={} groups={}", from,
        (System.nanoTime() - t0) / 1_000_000, stored.snapshotRecords().size(), stored.events().size(), stored.nextOffsets(),
        ageMillis / 1000, live.image().appCount(), live.image().groupCount());
    return stored;
  }

  /**
   * Where to read each partition from after a stored image, or null when it does not belong to this log
   * (then the image, its readiness and the store are reset: the caller starts as without one).
   */
  static Map<Integer, Long> matching(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions, StoredImage stored,
      ImageStore store, RecordFolder folder, LiveImage live) {
    Map<TopicPartition, Long> begin = c.beginningOffsets(partitions);
    Map<TopicPartition, Long> end = c.endOffsets(partitions);
    Map<Integer, Long> from = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      from.put(tp.partition(), 0L);
    }
    String mismatch = null;
    for (Map.Entry<Integer, Long> e : stored.nextOffsets().entrySet()) {
      TopicPartition tp = new TopicPartition(partitions.get(0).topic(), e.getKey());
      long next = e.getValue();
      if (!end.containsKey(tp)) {
        mismatch = "partition " + e.getKey() + " is not in the topic (" + partitions.size() + " partitions)";
      } else if (next > end.get(tp)) {
        mismatch = "partition " + e.getKey() + " ends at offset " + end.get(tp) + ", before the image's " + next;
      } else if (next < begin.get(tp)) {
        mismatch = "partition " + e.getKey() + " starts at offset " + begin.get(tp) + ", after the image's " + next;
      } else {
        from.put(e.getKey(), next);
        continue;
      }
      break;
    }
    if (mismatch == null) {
      return from;
    }
    unusable(store, "other-log", "the image from " + live.storedFrom() + ": " + mismatch);
    live.publish(ResolveImage.EMPTY);
    live.unready();
    live.loadedSnapshots(0);
    live.offsets(Map.of());
    folder.snapshots(new SnapshotSet().result());
    return null;
  }

  /** Logs and counts an image that is not used (under the data directory's counter when there is one). */
  private static StoredImage unusable(ImageStore store, String reason, String detail) {
    if (store != null) {
      return store.unusable(reason, detail);
    }
    LOG.warn("stored image not used ({}: {}); starting from Kafka", reason, detail);
    return null;
  }
}
