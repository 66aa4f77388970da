package dev.updraft.controlplane.edgeimage;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.controlplane.storage.ImageObjects;
import dev.updraft.events.ImagePointer;
import dev.updraft.events.ImageSeal;
import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the edge image to the asset storage every {@code --edge-image-interval} when the log changed (unchanged,
 * every {@value #REFRESH_INTERVALS} intervals, so that its age, counted from when it was read, stays close), so that
 * an edge with no image of its own can start while Kafka is unreachable ({@code updraft edge --image-source}).
 *
 * <p>One write: the image is built from Kafka ({@link ImageBuilder}, the edge's own format), sealed with
 * {@code --edge-image-key} ({@link ImageSeal}: encrypted and authenticated, since it holds every app's events), stored
 * under a name of its own, then the pointer {@value ImagePointer#NAME} naming it with its SHA-256 is replaced; a
 * reader finds the previous image or this one, whole. Images beyond the newest {@code --edge-image-keep} are then
 * deleted (the pointer's is always the newest). A failed write is logged and counted
 * ({@code updraft_control_edge_images_written_total{outcome="failed"}}), the previous image stays, and it is tried
 * again at the next interval. A thread of its own; never on the event loop or the command thread.
 */
public final class EdgeImageWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeImageWriter.class);
  static final int REFRESH_INTERVALS = 10;

  private final ImageBuilder builder;
  private final ImageObjects objects;
  private final ImageSeal seal;
  private final Duration interval;
  private final int keep;
  private final Counter ok;
  private final Counter failed;
  private final ScheduledExecutorService thread;
  private Map<String, Long> lastEnds; // writer thread only
  private long lastWriteNanos; // writer thread only
  private volatile long lastWrittenMillis = -1;

  /**
   * @param interval how often ({@code --edge-image-interval})
   * @param keep images kept ({@code --edge-image-keep}), at least 2
   */
  public EdgeImageWriter(String bootstrap, KafkaClientConfig kafka, String eventsTopic, String snapshotsTopic, ImageObjects objects,
      ImageSeal seal, Duration interval, int keep, MeterRegistry metrics) {
    if (keep < 2) {
      throw new IllegalArgumentException("keep=" + keep + ": at least the newest image and the one before it are kept");
    }
    this.builder = new ImageBuilder(bootstrap, kafka, eventsTopic, snapshotsTopic, Duration.ofSeconds(60));
    this.objects = objects;
    this.seal = seal;
    this.interval = interval;
    this.keep = keep;
    ok = Counter.builder("updraft_control_edge_images_written_total").tag("outcome", "ok")
        .description("Edge images written to the asset storage, by outcome").register(metrics);
    failed = Counter.builder("updraft_control_edge_images_written_total").tag("outcome", "failed")
        .description("Edge images written to the asset storage, by outcome").register(metrics);
    Gauge.builder("updraft_control_edge_image_age_seconds", this, w -> w.lastWrittenMillis < 0 ? -1
        : (System.currentTimeMillis() - w.lastWrittenMillis) / 1e3)
        .description("Seconds since the newest edge image was written to the asset storage (-1: none yet)").register(metrics);
    thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "updraft-control-edge-image");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts writing: the first image at once, then every interval. */
  public EdgeImageWriter start() {
    thread.scheduleWithFixedDelay(this::writeIfDue, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void writeIfDue() {
    try {
      Map<String, Long> ends = builder.ends();
      boolean refresh = System.nanoTime() - lastWriteNanos >= REFRESH_INTERVALS * interval.toNanos();
      if (ends.equals(lastEnds) && !refresh) {
        return;
      }
      write();
      lastEnds = ends;
      lastWriteNanos = System.nanoTime();
    } catch (IOException | RuntimeException e) {
      failed.increment();
      LOG.warn("writing the edge image to {} failed ({}); the previous image stays, trying again in {}", objects.describe(), e.toString(),
          interval);
    }
  }

  /** Builds, seals and stores one image, then the pointer, then prunes. */
  void write() throws IOException {
    long t0 = System.nanoTime();
    StoredImage image = builder.build();
    byte[] sealed = seal.seal(image.encode());
    String sha = sha256(sealed);
    String name = ImagePointer.imageName(image.writtenAtMillis(), sha);
    objects.write(name, sealed);
    objects.write(ImagePointer.NAME, new ImagePointer(name, sha, sealed.length, image.writtenAtMillis()).encode());
    lastWrittenMillis = image.writtenAtMillis();
    ok.increment();
    int pruned = prune(name);
    LOG.info("wrote edge image {} to {}: {} snapshot records, {} events, offsets {}, {} bytes sealed, {} older deleted ({} ms)", name,
        objects.describe(), image.snapshotRecords().size(), image.events().size(), image.nextOffsets(), sealed.length, pruned,
        (System.nanoTime() - t0) / 1_000_000);
  }

  /** Deletes the images beyond the newest {@code keep} (by the time in their names), never {@code newest}. */
  private int prune(String newest) throws IOException {
    List<String> delete = beyondNewest(objects.names(), newest, keep);
    for (String n : delete) {
      objects.delete(n);
    }
    return delete.size();
  }

  /**
   * Of {@code names} (every object beside the images), the images to delete so that {@code keep} remain: the oldest
   * by the time in their names, never {@code newest} (the pointer's), never anything that is not an image.
   */
  static List<String> beyondNewest(List<String> names, String newest, int keep) {
    List<String> images = new ArrayList<>();
    for (String n : names) {
      if (ImagePointer.IMAGE_NAME.matcher(n).matches() && !n.equals(newest)) {
        images.add(n);
      }
    }
    images.sort(null);
    return List.copyOf(images.subList(0, Math.max(0, images.size() - (keep - 1))));
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
