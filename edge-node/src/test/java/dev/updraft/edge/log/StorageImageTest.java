package dev.updraft.edge.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.ImagePointer;
import dev.updraft.events.ImageSeal;
import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An edge reads the control plane's image from a directory of the asset storage: the pointer's image, opened with the
 * key, is the image written; a changed byte, an object that is not the pointer's digest, another key or another
 * topic is refused and counted by reason, never returned; an empty storage is no image.
 */
class StorageImageTest {
  static final String TOPIC = "updraft.events";
  static final ImageSeal SEAL = ImageSeal.of(Base64.getEncoder().encodeToString(new byte[32]), "k");

  static StoredImage image(String topic) {
    return new StoredImage(5_000, 4_000, topic, Map.of(0, 3L, 1, 0L), Map.of("demo", "snap".getBytes(StandardCharsets.UTF_8)),
        List.of(new StoredImage.EventRecord(0, 2, "demo".getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8))));
  }

  /** Writes the image as the control plane does; returns the object's name. */
  static String write(Path dir, StoredImage image, ImageSeal seal) throws Exception {
    byte[] sealed = seal.seal(image.encode());
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(sealed));
    String name = ImagePointer.imageName(image.writtenAtMillis(), sha);
    Files.write(dir.resolve(name), sealed);
    Files.write(dir.resolve(ImagePointer.NAME), new ImagePointer(name, sha, sealed.length, image.writtenAtMillis()).encode());
    return name;
  }

  static double refusals(SimpleMeterRegistry r, String reason) {
    var c = r.find("updraft.edge.image.source.refusals").tag("reason", reason).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void everyRefusalReasonIsOnTheMetricsPageAtZeroBeforeTheFirstRead(@TempDir Path dir) {
    var r = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
    new StorageImage(ImageFetch.of(dir.toString(), null, null), SEAL, r);
    String page = r.scrape();
    for (String reason : List.of("tampered", "digest-mismatch", "unknown-format", "unknown-version", "corrupt", "other-topic",
        "absent", "unreadable")) {
      assertThat(page).as(page).contains("updraft_edge_image_source_refusals_total{reason=\"" + reason + "\"} 0.0");
    }
  }

  @Test
  void thePointersImageOpensToTheImageWritten(@TempDir Path dir) throws Exception {
    write(dir, image(TOPIC), SEAL);
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    StoredImage loaded = new StorageImage(ImageFetch.of("file:" + dir.toAbsolutePath(), null, null), SEAL, r).load(TOPIC);
    assertThat(loaded).usingRecursiveComparison().isEqualTo(image(TOPIC));
    assertThat(new StorageImage(ImageFetch.of(dir.toString(), null, null), SEAL, r).load(TOPIC)).as("a plain path too").usingRecursiveComparison().isEqualTo(image(TOPIC));
  }

  @Test
  void aTamperedImageIsRefusedAndCounted(@TempDir Path dir) throws Exception {
    String name = write(dir, image(TOPIC), SEAL);
    byte[] b = Files.readAllBytes(dir.resolve(name));
    b[b.length / 2] ^= 0x20;
    Files.write(dir.resolve(name), b);
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    StorageImage source = new StorageImage(ImageFetch.of(dir.toString(), null, null), SEAL, r);
    assertThat(source.load(TOPIC)).as("the object is no longer the pointer's").isNull();
    assertThat(refusals(r, "digest-mismatch")).isEqualTo(1);

    // the pointer rewritten to the changed object's digest: the seal still refuses it
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    Files.write(dir.resolve(ImagePointer.NAME), new ImagePointer(name, sha, b.length, 5_000).encode());
    assertThat(source.load(TOPIC)).isNull();
    assertThat(refusals(r, "tampered")).isEqualTo(1);
  }

  @Test
  void anotherKeyAnotherTopicAndAnEmptyStorageGiveNoImage(@TempDir Path dir) throws Exception {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    StorageImage source = new StorageImage(ImageFetch.of(dir.toString(), null, null), SEAL, r);
    assertThat(source.load(TOPIC)).isNull();
    assertThat(refusals(r, "absent")).isEqualTo(1);
    write(dir, image(TOPIC), ImageSeal.of(Base64.getEncoder().encodeToString("another key of thirty-two bytes!".getBytes(StandardCharsets.US_ASCII)), "k"));
    assertThat(source.load(TOPIC)).isNull();
    assertThat(refusals(r, "tampered")).isEqualTo(1);
    write(dir, image("other.updraft.events"), SEAL);
    assertThat(source.load(TOPIC)).isNull();
    assertThat(refusals(r, "other-topic")).isEqualTo(1);
  }
}
