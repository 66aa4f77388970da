package dev.updraft.edge.log;

import dev.updraft.events.ImagePointer;
import dev.updraft.events.ImageSeal;
import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The newest edge image the control plane wrote to the asset storage ({@code --image-source}), for an edge with
 * no image of its own under {@code --data-dir}: the pointer {@value ImagePointer#NAME} names the object, whose
 * SHA-256 must be the pointer's and which must open with {@code --edge-image-key} ({@link ImageSeal}: encrypted and
 * authenticated). Anything else is refused, never served: logged as an error naming the source and the reason and
 * counted in {@code updraft_edge_image_source_refusals_total{reason}} ({@code tampered}, {@code digest-mismatch},
 * {@code unknown-format}, {@code unknown-version}, {@code corrupt}, {@code other-topic}; every reason registered at 0); a storage that cannot be read or holds no image
 * is logged and counted as {@code unreadable} / {@code absent}. Reader thread.
 */
final class StorageImage {
  private static final Logger LOG = LoggerFactory.getLogger(StorageImage.class);

  /**
   * Every reason a storage image is not used, registered at 0 when the edge has an {@code --image-source}: a counter
   * that exists before its first refusal lets {@code increase()} see that first one (alert
   * {@code UpdraftEdgeImageSourceRefused}).
   */
  static final java.util.List<String> REASONS = java.util.List.of("tampered", "digest-mismatch", "unknown-format", "unknown-version",
      "corrupt", "other-topic", "absent", "unreadable");

  private final ImageFetch fetch;
  private final ImageSeal seal;
  private final MeterRegistry registry;

  StorageImage(ImageFetch fetch, ImageSeal seal, MeterRegistry registry) {
    this.fetch = fetch;
    this.seal = seal;
    this.registry = registry;
    for (String reason : REASONS) {
      counter(reason);
    }
  }

  /** Where it reads from, for logs and {@code /readyz}. */
  String describe() {
    return fetch.describe();
  }

  /** The newest image for {@code topic}, or null (logged and counted) when there is none that can be served. */
  StoredImage load(String topic) {
    long t0 = System.nanoTime();
    byte[] pointerBytes;
    byte[] sealed;
    ImagePointer pointer;
    try {
      pointerBytes = fetch.get(ImagePointer.NAME);
      if (pointerBytes == null) {
        count("absent");
        LOG.info("no edge image in {} (no {} object): starting from Kafka", fetch.describe(), ImagePointer.NAME);
        return null;
      }
      pointer = ImagePointer.decode(pointerBytes);
      sealed = fetch.get(pointer.name());
    } catch (IOException e) {
      count("unreadable");
      LOG.warn("cannot read the edge image from {} ({}): starting from Kafka", fetch.describe(), e.getMessage());
      return null;
    } catch (IllegalArgumentException e) {
      return refused("corrupt", e.getMessage());
    }
    if (sealed == null) {
      return refused("corrupt", "the pointer names " + pointer.name() + ", which is not there");
    }
    String digest = sha256(sealed);
    if (!digest.equals(pointer.sha256()) || sealed.length != pointer.size()) {
      return refused("digest-mismatch", pointer.name() + " has " + sealed.length + " bytes of SHA-256 " + digest + ", the pointer says "
          + pointer.size() + " bytes of " + pointer.sha256());
    }
    ImageSeal.Opened opened = seal.open(sealed);
    if (opened instanceof ImageSeal.Opened.Refused r) {
      return refused(r.reason(), pointer.name() + ": " + r.detail());
    }
    StoredImage.Read read = StoredImage.decode(((ImageSeal.Opened.Image) opened).bytes());
    if (read instanceof StoredImage.Read.Unusable u) {
      return refused(u.reason(), pointer.name() + ": " + u.detail());
    }
    StoredImage image = ((StoredImage.Read.Loaded) read).image();
    if (!image.topic().equals(topic)) {
      return refused("other-topic", pointer.name() + " holds topic " + image.topic() + ", this edge reads " + topic);
    }
    LOG.info("read edge image {} from {} ({} bytes, written {} ms ago) in {} ms", pointer.name(), fetch.describe(), sealed.length,
        System.currentTimeMillis() - image.writtenAtMillis(), (System.nanoTime() - t0) / 1_000_000);
    return image;
  }

  private StoredImage refused(String reason, String detail) {
    count(reason);
    LOG.error("edge image from {} refused, not served ({}: {}); starting from Kafka", fetch.describe(), reason, detail);
    return null;
  }

  private void count(String reason) {
    counter(reason).increment();
  }

  private Counter counter(String reason) {
    return Counter.builder("updraft.edge.image.source.refusals").tag("reason", reason)
        .description("Edge images in the asset storage (--image-source) not used, by reason").register(registry);
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
