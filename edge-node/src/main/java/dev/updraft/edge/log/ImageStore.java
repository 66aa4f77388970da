package dev.updraft.edge.log;

import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an edge's image durable under {@code --data-dir} ({@link StoredImage}, file {@value StoredImage#FILE_NAME}):
 * the log reader hands it the snapshot records the image started from and every event record it folds after
 * them, and marks the points where the image is whole and caught up (no transaction read in part); a thread of
 * its own writes the last such point every {@code --image-interval} when it changed (unchanged, every
 * {@value #REFRESH_INTERVALS} intervals, so that the time it was last heard from the log, its age, stays close),
 * and {@link #saveNow} at shutdown. At start, {@link #load} reads the file back: one that cannot be used is logged, counted in
 * {@code updraft_edge_image_store_fallbacks_total{reason}} and ignored (the edge then starts from Kafka), so a
 * damaged file never stops an edge from starting.
 *
 * <p>Memory: the records since the image's start are held (the snapshot records and the events after them);
 * a restart from Kafka starts again from the newest snapshots.
 *
 * <p>Thread-safety: {@link #snapshotRecords}, {@link #folded} and {@link #whole} are called by the reader
 * thread; saving takes what they left under this object's lock.
 */
final class ImageStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ImageStore.class);
  /**
   * An unchanged image is written again once the time it was last heard from the log has moved this many
   * intervals: its stored age is then at most that much too old (an edge killed while idle).
   */
  static final int REFRESH_INTERVALS = 10;

  private final Path file;
  private final String topic;
  private final Duration interval;
  private final Counter saved;
  private final Counter saveFailed;
  private final MeterRegistry registry;
  private final ScheduledExecutorService saver;

  // guarded by this
  private Map<String, byte[]> snapshots = Map.of();
  private final List<StoredImage.EventRecord> events = new ArrayList<>();
  private int wholeCount = -1;
  private Map<Integer, Long> wholeOffsets = Map.of();
  private long wholeHeardAtMillis;
  private long changes;
  private long savedChanges = -1;
  private long savedHeardAtMillis;
  private volatile long lastSavedMillis = -1;

  ImageStore(Path dataDir, String topic, Duration interval, MeterRegistry registry) {
    this.file = dataDir.resolve(StoredImage.FILE_NAME);
    this.topic = topic;
    this.interval = interval;
    this.registry = registry;
    saved = Counter.builder("updraft.edge.image.saves").tag("outcome", "ok")
        .description("Writes of the image stored under --data-dir, by outcome").register(registry);
    saveFailed = Counter.builder("updraft.edge.image.saves").tag("outcome", "failed")
        .description("Writes of the image stored under --data-dir, by outcome").register(registry);
    Gauge.builder("updraft.edge.image.saved.age", this, s -> s.lastSavedMillis < 0 ? -1 : (System.currentTimeMillis() - s.lastSavedMillis) / 1e3)
        .baseUnit("seconds").description("Seconds since the image was last written under --data-dir (-1: not yet)").register(registry);
    saver = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "updraft-edge-image-store");
      t.setDaemon(true);
      return t;
    });
  }

  /** The file the image is stored in. */
  Path file() {
    return file;
  }

  /** Starts writing the image every interval (when it changed). */
  void start() {
    long ms = Math.max(1, interval.toMillis());
    saver.scheduleWithFixedDelay(this::saveIfDue, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** The stored image, or null when there is none or it cannot be used (logged and counted). */
  StoredImage load() {
    StoredImage.Read read = StoredImage.read(file);
    if (read instanceof StoredImage.Read.Absent) {
      LOG.info("no stored image at {}: starting from Kafka", file);
      return null;
    }
    if (read instanceof StoredImage.Read.Unusable u) {
      return unusable(u.reason(), u.detail());
    }
    StoredImage image = ((StoredImage.Read.Loaded) read).image();
    if (!image.topic().equals(topic)) {
      return unusable("other-topic", "it holds topic " + image.topic() + ", this edge reads " + topic);
    }
    return image;
  }

  /** Logs and counts a stored image that is not used; null. */
  StoredImage unusable(String reason, String detail) {
    Counter.builder("updraft.edge.image.store.fallbacks").tag("reason", reason)
        .description("Stored images not used (the edge started from Kafka), by reason").register(registry).increment();
    LOG.warn("stored image {} not used ({}: {}); starting from Kafka", file, reason, detail);
    return null;
  }

  /** The image starts from these snapshot records (the latest of each key of the snapshots topic); reader thread. */
  synchronized void snapshotRecords(Map<String, byte[]> latest) {
    snapshots = new LinkedHashMap<>(latest);
    events.clear();
    wholeCount = -1;
    changes++;
  }

  /**
   * The image starts from {@code stored}, which is whole as it is; reader thread.
   *
   * @param onDisk whether it is this store's file (else, the control plane's from the asset storage, it is written at
   *     the next interval)
   */
  synchronized void startFrom(StoredImage stored, boolean onDisk) {
    snapshots = stored.snapshotRecords();
    events.clear();
    events.addAll(stored.events());
    wholeCount = events.size();
    wholeOffsets = stored.nextOffsets();
    wholeHeardAtMillis = stored.heardAtMillis();
    savedChanges = onDisk ? changes : -1; // the file holds exactly this, or not yet
    savedHeardAtMillis = wholeHeardAtMillis;
  }

  /** One record folded into the image; reader thread. */
  synchronized void folded(ConsumerRecord<byte[], byte[]> r) {
    events.add(new StoredImage.EventRecord(r.partition(), r.offset(), r.key(), r.value()));
  }

  /**
   * The image is whole and caught up: it holds the records given so far and the partitions' next offsets are
   * {@code next}; reader thread.
   */
  synchronized void whole(Map<Integer, Long> next, long heardAtMillis) {
    if (wholeCount != events.size() || !wholeOffsets.equals(next)) {
      changes++;
    }
    wholeCount = events.size();
    wholeOffsets = Map.copyOf(next);
    wholeHeardAtMillis = heardAtMillis;
  }

  /** What to write now, or null when nothing whole was marked or nothing changed since the last write. */
  private synchronized StoredImage toSave(boolean evenUnchanged) {
    // unchanged, it is written again only to keep its age honest: when it was last heard from the log
    boolean fresher = wholeHeardAtMillis - savedHeardAtMillis >= REFRESH_INTERVALS * interval.toMillis();
    if (wholeCount < 0 || (!evenUnchanged && changes == savedChanges && !fresher)) {
      return null;
    }
    savedChanges = changes;
    savedHeardAtMillis = wholeHeardAtMillis;
    return new StoredImage(System.currentTimeMillis(), wholeHeardAtMillis, topic, wholeOffsets, snapshots,
        new ArrayList<>(events.subList(0, wholeCount)));
  }

  /** Writes the image if it changed since the last write, or its age has moved on (the periodic write). */
  void saveIfDue() {
    try {
      save(false);
    } catch (RuntimeException e) {
      LOG.error("storing the image failed", e);
    }
  }

  /** Writes the image now (at shutdown), also when unchanged so that its age restarts from now. */
  void saveNow() {
    save(true);
  }

  private void save(boolean evenUnchanged) {
    StoredImage image = toSave(evenUnchanged);
    if (image == null) {
      return;
    }
    long t0 = System.nanoTime();
    try {
      image.write(file);
      saved.increment();
      lastSavedMillis = image.writtenAtMillis();
      LOG.debug("stored the image in {}: {} snapshot records, {} events, offsets {} ({} ms)", file, image.snapshotRecords().size(),
          image.events().size(), image.nextOffsets(), (System.nanoTime() - t0) / 1_000_000);
    } catch (IOException | RuntimeException e) {
      saveFailed.increment();
      synchronized (this) {
        savedChanges = -1; // try again at the next interval
      }
      LOG.warn("cannot store the image in {} ({}); the edge keeps serving, the previous file stays", file, e.toString());
    }
  }

  /** Stops the periodic writes (call {@link #saveNow} after the reader stopped). */
  @Override
  public void close() {
    saver.shutdownNow();
    try {
      saver.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
